// Package docgen keeps the documentation's console blocks and man pages
// tied to the code: it finds the ```console blocks of Markdown files,
// classifies them, reruns their commands, masks the figures that change
// from run to run, and renders the man pages. docs/mkdocs.go (the
// generator) and the drift test both use it, so they cannot disagree on
// what a block is or how it is compared. The rules are in docs/README.md.
package docgen

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// Mode says how a console block is kept up to date. A block's mode is set
// by an HTML comment on the line before its fence, e.g.
// "<!-- mkdocs: kernel -->"; a block without one is [Checked].
type Mode int

const (
	// Checked blocks run fast and deterministically without measuring:
	// the generator rewrites them and the drift test reruns them and
	// compares the masked output.
	Checked Mode = iota
	// Kernel blocks measure (run, estimate, sandbox, top): their figures
	// come from a quiet machine, so only `go run docs/mkdocs.go
	// -run-examples` rewrites them, and the drift test does not rerun
	// them.
	Kernel
	// Manual blocks cannot be rerun as written (a PID, a file that is not
	// in the repository, another tool); nothing rewrites them.
	Manual
)

// String is the mode's name as written in the marker comment.
func (m Mode) String() string {
	switch m {
	case Kernel:
		return "kernel"
	case Manual:
		return "manual"
	}
	return "checked"
}

// Command is one "$ " line of a console block with the output shown under
// it in the document.
type Command struct {
	Line   string // the command, without "$ "
	Output string // the lines up to the next command or the fence
}

// Block is one ```console block of a Markdown file.
type Block struct {
	// Line is the 1-based line of the opening fence.
	Line int
	Mode Mode
	// Commands are the block's "$ " lines; a block without one is kept
	// as it is.
	Commands []Command
	// start and end index the lines between the fences.
	start, end int
}

var markerRE = regexp.MustCompile(`^<!--\s*mkdocs:\s*(\w+).*-->\s*$`)

// Parse returns the console blocks of a Markdown file's text src. name is
// used in errors only.
func Parse(name, src string) ([]Block, error) {
	lines := strings.SplitAfter(src, "\n")
	var blocks []Block
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "```console" {
			continue
		}
		j := i + 1
		for j < len(lines) && strings.TrimSpace(lines[j]) != "```" {
			j++
		}
		if j == len(lines) {
			return nil, fmt.Errorf("%s:%d: unclosed console block", name, i+1)
		}
		b := Block{Line: i + 1, start: i + 1, end: j}
		if i > 0 {
			if m := markerRE.FindStringSubmatch(strings.TrimSpace(lines[i-1])); m != nil {
				switch m[1] {
				case "kernel":
					b.Mode = Kernel
				case "manual":
					b.Mode = Manual
				case "checked":
				default:
					return nil, fmt.Errorf("%s:%d: unknown mkdocs mode %q; want checked, kernel or manual", name, i, m[1])
				}
			}
		}
		for _, l := range lines[i+1 : j] {
			if c, ok := strings.CutPrefix(l, "$ "); ok {
				b.Commands = append(b.Commands, Command{Line: strings.TrimRight(c, "\n")})
			} else if n := len(b.Commands); n > 0 {
				b.Commands[n-1].Output += l
			}
		}
		blocks = append(blocks, b)
		i = j
	}
	return blocks, nil
}

// ParseFile reads the Markdown file path and returns its console blocks,
// with errors naming name (path relative to the repository root).
func ParseFile(path, name string) ([]Block, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(name, string(src))
}

// Rewrite returns src with the output of every command of the blocks for
// which rerun returns true replaced by what run prints for it. run returns
// the command's stdout and stderr together.
func Rewrite(name, src string, rerun func(Block) bool, run func(cmd string) (string, error)) (string, error) {
	blocks, err := Parse(name, src)
	if err != nil {
		return "", err
	}
	lines := strings.SplitAfter(src, "\n")
	var out strings.Builder
	next := 0
	for _, b := range blocks {
		if len(b.Commands) == 0 || !rerun(b) {
			continue
		}
		for _, l := range lines[next:b.start] {
			out.WriteString(l)
		}
		for _, c := range b.Commands {
			o, err := run(c.Line)
			if err != nil {
				return "", fmt.Errorf("%s:%d: $ %s: %w", name, b.Line, c.Line, err)
			}
			out.WriteString("$ " + c.Line + "\n" + o)
			if o != "" && !strings.HasSuffix(o, "\n") {
				out.WriteString("\n")
			}
		}
		next = b.end
	}
	for _, l := range lines[next:] {
		out.WriteString(l)
	}
	return out.String(), nil
}

// maskSteps replace, in order, what differs between two correct runs of
// the same code: timestamps, absolute paths, hex values and hashes (8 or
// more hex digits with a letter among them), kernel releases, CPU models,
// and numbers with their sign, decimals and unit (durations, sizes,
// percentages, PIDs, counts). Whitespace runs then become one space and
// trailing spaces go, so that columns aligned to wider or narrower numbers
// compare equal.
var maskSteps = []func(string) string{
	replace(`\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?`, "<time>"),
	replace(`(^|[\s"'(=:\[,])(?:/[\w.@+*~-]+)+/?`, "${1}<path>"),
	replace(`\b0x[0-9a-fA-F]+\b`, "<hex>"),
	func(s string) string {
		return hashRE.ReplaceAllStringFunc(s, func(h string) string {
			if strings.ContainsAny(h, "abcdef") {
				return "<hash>"
			}
			return h
		})
	},
	replace(`\b\d+\.\d+(\.\d+)?[-+~][\w.+~-]+`, "<kernel>"),
	replace(`\b(AMD|Intel|Ampere|ARM|Apple)\b[^,\n]*`, "<cpu>"),
	replace(`[-+−±]?\d+(?:[.,]\d+)*(?:[eE][-+]?\d+)?(?: ?(?:ns|µs|us|ms|min|s|h|KiB|MiB|GiB|kB|MB|GB|B)\b)?`, "<n>"),
	replace(`[ \t]+`, " "),
	replace(`(?m) +$`, ""),
}

var hashRE = regexp.MustCompile(`\b[0-9a-f]{8,}\b`)

// replace returns a step that replaces every match of the regular
// expression re with with.
func replace(re, with string) func(string) string {
	r := regexp.MustCompile(re)
	return func(s string) string { return r.ReplaceAllString(s, with) }
}

// Mask returns s with the figures replaced by placeholders (see
// maskSteps), so that two runs of the same code on different machines
// give the same text.
func Mask(s string) string {
	for _, step := range maskSteps {
		s = step(s)
	}
	return s
}

// Example is a file of docs/examples and the command, run through sh -c
// from the repository root, that writes it.
type Example struct {
	File string
	// Cmd writes File (and possibly others).
	Cmd string
	// Kernel is true when Cmd measures: only `go run docs/mkdocs.go
	// -run-examples` reruns it. The other examples are derived from the
	// measured ones without measuring, and the drift test checks them.
	Kernel bool
}

// Examples are the files of docs/examples in the order they must be made.
var Examples = []Example{
	{File: "docs/examples/run.json", Kernel: true, Cmd: "seccompbench run --trials 10 -q -o docs/examples/run.json -o docs/examples/run.md -o docs/examples/run.txt -o docs/examples/run.csv -o docs/examples/run.bench -o docs/examples/run.svg -o docs/examples/run.png"},
	{File: "docs/examples/minimal.json", Kernel: true, Cmd: "seccompbench run testdata/policies/minimal.yaml --trials 10 -q -o docs/examples/minimal.json"},
	{File: "docs/examples/getpid.json", Kernel: true, Cmd: "seccompbench run --workload getpid --trials 3 --filters 0,1,8 -q -o docs/examples/getpid.json"},
	{File: "docs/examples/compare.txt", Cmd: "cd docs/examples && seccompbench compare run.json minimal.json > compare.txt"},
	{File: "docs/examples/compare.md", Cmd: "cd docs/examples && seccompbench compare --format markdown -o compare.md run.json minimal.json"},
	{File: "docs/examples/compare.json", Cmd: "cd docs/examples && seccompbench compare --format json -o compare.json run.json minimal.json"},
}

// Sources returns the Markdown files of the repository at root whose
// console blocks the generator reruns and the drift test checks: README.md
// and docs/*.md.
func Sources(root string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	return append([]string{filepath.Join(root, "README.md")}, files...), nil
}

// Build builds seccompbench from the repository at root into dir
// (CGO_ENABLED=0, no VCS stamp, so its output does not depend on the
// checkout).
func Build(root, dir string) error {
	out, err := filepath.Abs(filepath.Join(dir, "seccompbench"))
	if err != nil {
		return err
	}
	build := exec.Command("go", "build", "-buildvcs=false", "-o", out, "./cmd/seccompbench")
	build.Dir = root
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	var b bytes.Buffer
	build.Stdout, build.Stderr = &b, &b
	if err := build.Run(); err != nil {
		return fmt.Errorf("build seccompbench: %w\n%s", err, b.Bytes())
	}
	return nil
}

// Shell runs c with sh -c in directory dir ("" for the current one) and
// returns its stdout and stderr together, and its error (an
// *exec.ExitError for a non-zero exit).
func Shell(dir, c string) ([]byte, error) {
	cmd := exec.Command("sh", "-c", c)
	cmd.Dir = dir
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	err := cmd.Run()
	return b.Bytes(), err
}
