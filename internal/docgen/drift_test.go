package docgen

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// root is the repository root, seen from this package's directory.
const root = "../.."

// measuring matches a command that measures or needs a live process: such
// a block must be marked kernel or manual, never checked.
var measuring = regexp.MustCompile(`\bseccompbench (run|estimate|sandbox|inspect|top)\b`)

var (
	treeOnce          sync.Once
	treeDir, treePath string
	treeErr           error
	treeTop           string // removed by TestMain
)

func TestMain(m *testing.M) {
	code := m.Run()
	if treeTop != "" {
		os.RemoveAll(treeTop)
	}
	os.Exit(code)
}

// tree builds seccompbench and copies the repository (without .git and
// without files over 4 MiB) to a temporary directory, where the commands
// of the docs can write what they write without touching the checkout. It
// returns that directory and a PATH with the binary first. The tests share
// one tree.
func tree(t *testing.T) (dir, path string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds seccompbench and reruns the docs' commands; skipped with -short")
	}
	treeOnce.Do(func() { treeDir, treePath, treeErr = makeTree() })
	if treeErr != nil {
		t.Fatal(treeErr)
	}
	return treeDir, treePath
}

func makeTree() (dir, path string, err error) {
	treeTop, err = os.MkdirTemp("", "docgen")
	if err != nil {
		return "", "", err
	}
	bin, dir := filepath.Join(treeTop, "bin"), filepath.Join(treeTop, "repo")
	if err := Build(root, bin); err != nil {
		return "", "", err
	}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		if info, err := d.Info(); err != nil || !info.Mode().IsRegular() || info.Size() > 4<<20 {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), data, 0o644)
	})
	return dir, bin + string(os.PathListSeparator) + os.Getenv("PATH"), err
}

// TestConsoleBlocks reruns every checked console block of README.md and
// docs/*.md and fails when what the code prints today differs from what
// the block shows, after masking (Mask) both. /tmp/ in a command is a
// private temporary directory here.
func TestConsoleBlocks(t *testing.T) {
	dir, path := tree(t)
	t.Setenv("PATH", path)
	tmp := t.TempDir()
	files, err := Sources(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name, _ := filepath.Rel(root, f)
		blocks, err := ParseFile(f, name)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range blocks {
			if b.Mode != Checked {
				continue
			}
			for _, c := range b.Commands {
				if measuring.MatchString(c.Line) {
					t.Errorf("%s:%d: $ %s measures or needs a process; mark the block <!-- mkdocs: kernel --> or <!-- mkdocs: manual (why) -->", name, b.Line, c.Line)
					continue
				}
				out, _ := Shell(dir, strings.ReplaceAll(c.Line, "/tmp/", tmp+"/"))
				got, want := Mask(strings.ReplaceAll(string(out), tmp+"/", "/tmp/")), Mask(c.Output)
				if got != want {
					t.Errorf("%s:%d: $ %s\nprints today (masked):\n%s\nthe doc shows (masked):\n%s\nrun `go run docs/mkdocs.go` and review the diff", name, b.Line, c.Line, got, want)
				}
			}
		}
	}
}

// TestExamples remakes the examples that derive from the measured ones
// and fails when they differ from docs/examples after masking.
func TestExamples(t *testing.T) {
	dir, path := tree(t)
	t.Setenv("PATH", path)
	for _, e := range Examples {
		if e.Kernel {
			continue
		}
		if out, err := Shell(dir, e.Cmd); err != nil {
			t.Fatalf("$ %s: %v\n%s", e.Cmd, err, out)
		}
		got, err := os.ReadFile(filepath.Join(dir, e.File))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join(root, e.File))
		if err != nil {
			t.Fatal(err)
		}
		if Mask(string(got)) != Mask(string(want)) {
			t.Errorf("%s differs from what `%s` makes today; run `go run docs/mkdocs.go`", e.File, e.Cmd)
		}
	}
}

// TestManPages fails when docs/man is not exactly the pages the code
// generates: one per command, byte for byte.
func TestManPages(t *testing.T) {
	dir, path := tree(t)
	t.Setenv("PATH", path)
	gen := filepath.Join(t.TempDir(), "man")
	if out, err := Shell(dir, "seccompbench man "+gen); err != nil {
		t.Fatalf("seccompbench man: %v\n%s", err, out)
	}
	pages := func(d string) map[string][]byte {
		m := map[string][]byte{}
		ents, err := os.ReadDir(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			data, err := os.ReadFile(filepath.Join(d, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			m[e.Name()] = data
		}
		return m
	}
	got, want := pages(gen), pages(filepath.Join(root, "docs", "man"))
	for n, g := range got {
		w, ok := want[n]
		switch {
		case !ok:
			t.Errorf("docs/man lacks %s; run `go run docs/mkdocs.go`", n)
		case !bytes.Equal(g, w):
			t.Errorf("docs/man/%s differs from the generated page; run `go run docs/mkdocs.go`", n)
		}
	}
	for n := range want {
		if _, ok := got[n]; !ok {
			t.Errorf("docs/man/%s documents no command; run `go run docs/mkdocs.go`", n)
		}
	}
}
