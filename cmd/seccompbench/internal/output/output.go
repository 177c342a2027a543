// Package output decides where and in which format a command writes its
// result (-o FILE and --format) and writes files atomically.
package output

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/pflag"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/report/chart"
	"github.com/seccompbench/seccompbench/report/document"
)

// RunFormats are the output formats of `run` (and `report`).
var RunFormats = []string{"table", "json", "markdown", "csv", "benchstat", "svg", "png", "html"}

// formatsByExt maps a file extension to the formats it may mean, for -o;
// the first that the command writes is taken (.txt is "table" for run and
// "text" for compile).
var formatsByExt = map[string][]string{
	".txt": {"table", "text"}, ".text": {"text", "table"}, ".json": {"json"}, ".md": {"markdown"}, ".markdown": {"markdown"},
	".csv": {"csv"}, ".bench": {"benchstat"}, ".benchstat": {"benchstat"}, ".svg": {"svg"}, ".png": {"png"},
	".bpf": {"raw"}, ".raw": {"raw"}, ".html": {"html"}, ".htm": {"html"},
}

// binary are the formats never written to a terminal by default.
var binary = map[string]bool{"png": true}

// Spec is one rendering of the result: a format and a file ("" for
// stdout).
type Spec struct {
	Path   string
	Format string
	// Explain is --explain: the text report adds how the run was made,
	// the model and the checks after its headline and table.
	Explain bool
}

// Flags are a command's --format and -o FILE flags (AddFlags).
type Flags struct {
	// Format is --format; FormatSet reports that it was given.
	Format    string
	FormatSet bool
	// Outputs are the -o FILEs, in order.
	Outputs []string
	// Explain is --explain (AddExplainFlag), copied into every Spec.
	Explain bool
}

// AddExplainFlag adds --explain (-v) to fl, storing into dst.Explain:
// the text output of a measuring command then follows its headline and
// table with the explanation (how it was measured, the model, the
// checks); without it the text is the answer only (docs/reading-results.md).
func AddExplainFlag(fl *pflag.FlagSet, dst *Flags) {
	fl.BoolVarP(&dst.Explain, "explain", "v", false, "after the headline and the table, explain: how it was measured, the per-filter model, the cache, setup costs, the checks and what the numbers mean")
}

// AddFlags adds --format (one of formats, default def) and the repeatable
// -o/--output FILE to fl, storing into dst. what names the result in the
// help text ("the comparison").
func AddFlags(fl *pflag.FlagSet, dst *Flags, formats []string, def, what string) {
	fl.StringVar(&dst.Format, "format", def, "output format: "+strings.Join(formats, ", "))
	fl.StringArrayVarP(&dst.Outputs, "output", "o", nil, fmt.Sprintf("write %s to `FILE` (atomically) instead of stdout; repeat for several formats, each from its extension (%s), or give --format", what, extsOf(formats)))
}

// extsOf lists the extensions that select one of formats, e.g. ".txt .json".
func extsOf(formats []string) string {
	var out []string
	for _, e := range []string{".txt", ".json", ".md", ".csv", ".bench", ".svg", ".png", ".html", ".bpf"} {
		if slices.ContainsFunc(formatsByExt[e], func(f string) bool { return slices.Contains(formats, f) }) {
			out = append(out, e)
		}
	}
	return strings.Join(out, " ")
}

// Resolve is ResolveFor with run's formats.
func Resolve(format string, formatSet bool, paths []string) ([]Spec, error) {
	return ResolveFor(RunFormats, format, formatSet, paths)
}

// Resolve decides what to write from fl, for a command writing formats;
// formatSet is whether --format was given (cobra's Changed).
func (fl *Flags) Resolve(formats []string, formatSet bool) ([]Spec, error) {
	fl.FormatSet = formatSet
	fl.Format = TextAlias(formats, fl.Format)
	specs, err := ResolveFor(formats, fl.Format, formatSet, fl.Outputs)
	for i := range specs {
		specs[i].Explain = fl.Explain
	}
	return specs, err
}

// ResolveFor decides what to write, for a command that writes formats.
// Without -o the result goes to stdout in --format (png is refused:
// binary on a terminal). With one -o, an explicit --format wins, else the
// file's extension decides. With several -o each file's extension
// decides, and an explicit --format covers files whose extension is
// unknown. An extension that says nothing, or names a format the command
// does not write, is a usage error unless --format says what to write
// (issue 26: -o x.weird never silently gets a table).
func ResolveFor(formats []string, format string, formatSet bool, paths []string) ([]Spec, error) {
	format = TextAlias(formats, format)
	if !slices.Contains(formats, format) {
		return nil, cmdutil.FlagErrorf("--format: %q is not one of %s", format, strings.Join(formats, ", "))
	}
	if len(paths) == 0 {
		if binary[format] {
			return nil, cmdutil.FlagErrorf("--format %s writes binary data: give a file with -o plot.%s", format, format)
		}
		return []Spec{{Format: format}}, nil
	}
	var out []Spec
	seen := map[string]bool{}
	for _, p := range paths {
		if p == "" {
			return nil, cmdutil.FlagErrorf("-o: empty file name")
		}
		if seen[filepath.Clean(p)] {
			return nil, cmdutil.FlagErrorf("-o: %s given twice", p)
		}
		seen[filepath.Clean(p)] = true
		f, err := formatOf(formats, format, formatSet, len(paths) == 1, p)
		if err != nil {
			return nil, err
		}
		out = append(out, Spec{Path: p, Format: f})
	}
	return out, nil
}

// TextAlias returns format with "text" and "table" taken as one name
// for the default text format: a command that writes only one of them
// accepts the other (lint --format table, run --format text). Any other
// format is returned unchanged.
func TextAlias(formats []string, format string) string {
	switch {
	case format == "table" && !slices.Contains(formats, "table") && slices.Contains(formats, "text"):
		return "text"
	case format == "text" && !slices.Contains(formats, "text") && slices.Contains(formats, "table"):
		return "table"
	}
	return format
}

// formatOf picks the format of the file -o p (see ResolveFor); single
// reports that p is the only -o.
func formatOf(formats []string, format string, formatSet, single bool, p string) (string, error) {
	if single && formatSet {
		return format, nil
	}
	ext := strings.ToLower(filepath.Ext(p))
	cands, known := formatsByExt[ext]
	for _, c := range cands {
		if slices.Contains(formats, c) {
			return c, nil
		}
	}
	switch {
	case formatSet || isDevice(p):
		// A device or pipe (/dev/stdout) has no extension to read; a
		// directory is refused by Check, which says so.
		return format, nil
	case known:
		return "", cmdutil.FlagErrorf("-o %s: this command writes %s, not %s; use --format to write one of those to %s", p, strings.Join(formats, ", "), cands[0], p)
	}
	return "", cmdutil.FlagErrorf("-o %s: cannot tell the format from the extension %q; use one of %s, or say it with --format", p, ext, extsOf(formats))
}

// isDevice reports whether p exists and is not a regular file: a device,
// a named pipe or a directory.
func isDevice(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.Mode().IsRegular()
}

// RenderResult writes doc to w in format. Machine formats (csv, benchstat,
// svg, png) send their notes and the result's warnings to warn; table,
// markdown and json carry warnings inside.
func RenderResult(format string, w, warn io.Writer, doc *document.Document) error {
	switch format {
	case "table":
		return report.WriteTable(w, doc)
	case "json":
		return report.WriteJSON(w, doc)
	case "markdown":
		return report.WriteMarkdown(w, doc)
	case "csv":
		return report.WriteCSV(w, warn, doc)
	case "benchstat":
		return report.WriteBenchstat(w, warn, doc)
	case "svg":
		return chart.WriteSVG(w, warn, doc)
	case "png":
		return chart.WritePNG(w, warn, doc)
	case "html":
		return WriteRunHTML(w, warn, doc)
	}
	return fmt.Errorf("render result: unknown format %q", format)
}

// OnceLineWriter passes each distinct line through once, so warnings that
// several renderers report reach the user once.
type OnceLineWriter struct {
	mu   sync.Mutex
	w    io.Writer
	seen map[string]bool
	buf  []byte
}

// NewOnceLineWriter returns an OnceLineWriter writing to w.
func NewOnceLineWriter(w io.Writer) *OnceLineWriter {
	return &OnceLineWriter{w: w, seen: map[string]bool{}}
}

// Write buffers p and passes each complete line not seen before to the
// underlying writer; a partial line waits for its end.
func (o *OnceLineWriter) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.buf = append(o.buf, p...)
	for {
		i := bytes.IndexByte(o.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := string(o.buf[:i+1])
		o.buf = o.buf[i+1:]
		if o.seen[line] {
			continue
		}
		o.seen[line] = true
		if _, err := io.WriteString(o.w, line); err != nil {
			return len(p), err
		}
	}
}

// WriteResult renders doc into every output: stdout directly, files
// atomically (WriteFileAtomic), announcing each file on errOut. A file
// that cannot be written does not stop the others; if any failed and the
// report went nowhere else on stdout, the whole document is printed on
// stdout as JSON, so a measured run is never lost to a full disk. The
// error then joins every write error and says where the result went.
func WriteResult(outs []Spec, stdout, errOut io.Writer, doc *document.Document) error {
	warn := NewOnceLineWriter(errOut)
	var errs []error
	var failed []string
	onStdout := false
	for _, o := range outs {
		render := func(w io.Writer) error {
			if o.Format == "table" && o.Explain {
				return report.WriteText(w, doc, report.TextOptions{Explain: true})
			}
			return RenderResult(o.Format, w, warn, doc)
		}
		if o.Path == "" {
			onStdout = true
			if err := render(stdout); err != nil {
				return err
			}
			continue
		}
		if err := WriteFileAtomic(o.Path, render); err != nil {
			errs = append(errs, err)
			failed = append(failed, o.Path)
			continue
		}
		fmt.Fprintf(errOut, "wrote %s (%s)\n", o.Path, o.Format)
	}
	if len(errs) == 0 {
		return nil
	}
	if !onStdout {
		if err := RenderResult("json", stdout, warn, doc); err != nil {
			errs = append(errs, fmt.Errorf("print the result on stdout instead: %w", err))
		} else {
			errs = append(errs, fmt.Errorf("the result is on stdout as JSON instead of in %s, so nothing is lost", strings.Join(failed, ", ")))
		}
	}
	return errors.Join(errs...)
}

// Check makes sure, before anything is measured, that every -o FILE
// can be written: its directory exists and accepts new files (the atomic
// write creates a temporary file there), and the file is not a directory.
// Devices and pipes (e.g. /dev/null, /dev/stdout) are written directly.
// The error names the path and what to do about it.
func Check(outs []Spec) error {
	for _, o := range outs {
		if o.Path == "" {
			continue
		}
		if err := checkOutputPath(o.Path); err != nil {
			return err
		}
	}
	return nil
}

func checkOutputPath(path string) error {
	if fi, err := os.Stat(path); err == nil {
		if fi.IsDir() {
			return fmt.Errorf("-o %s: is a directory; give a file name, e.g. %s", path, filepath.Join(path, "result.json"))
		}
		if !fi.Mode().IsRegular() {
			return nil // a device or pipe: written directly
		}
	}
	target, err := outputTarget(path)
	if err != nil {
		return err
	}
	dir := filepath.Dir(target)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("-o %s: directory %s does not exist; create it (mkdir -p %s) or write elsewhere", path, dir, dir)
	case err != nil:
		return fmt.Errorf("-o %s: %w; write elsewhere", path, err)
	case !fi.IsDir():
		return fmt.Errorf("-o %s: %s is not a directory; write elsewhere", path, dir)
	}
	probe, err := os.CreateTemp(dir, ".seccompbench-probe*")
	if err != nil {
		return fmt.Errorf("-o %s: cannot create files in %s (%w); choose a writable directory", path, dir, unwrapPath(err))
	}
	probe.Close()
	os.Remove(probe.Name())
	return nil
}

// outputTarget returns the file that writing path replaces: path itself or,
// when it is a symbolic link, the file it points to (so the link stays).
func outputTarget(path string) (string, error) {
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return path, nil
	}
	t, err := filepath.EvalSymlinks(path)
	if errors.Is(err, fs.ErrNotExist) {
		// A dangling link: write where it points.
		l, lerr := os.Readlink(path)
		if lerr != nil {
			return "", fmt.Errorf("-o %s: %w", path, lerr)
		}
		if !filepath.IsAbs(l) {
			l = filepath.Join(filepath.Dir(path), l)
		}
		return l, nil
	}
	if err != nil {
		return "", fmt.Errorf("-o %s: %w", path, err)
	}
	return t, nil
}

// unwrapPath drops the *fs.PathError around err, whose path (a random
// temporary name) would only confuse.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Or returns specs, or, when there are none (options not parsed from a
// command line, as tests build them), stdout in format.
func Or(specs []Spec, format string) []Spec {
	if len(specs) == 0 {
		return []Spec{{Format: format}}
	}
	return specs
}
