package stats

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImports enforces the package boundary of DESIGN.md: stats is pure math
// and imports neither runner nor report, nor anything touching the kernel.
func TestImports(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	forbidden := []string{"/runner", "/report", "/cmd/", "golang.org/x/sys", "os/exec", "syscall"}
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ImportsOnly)
		if err != nil {
			t.Fatalf("parse %s: %v", name, err)
		}
		checked++
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			for _, bad := range forbidden {
				if strings.Contains(path, bad) || path == strings.Trim(bad, "/") {
					t.Errorf("%s imports %q; stats must not import %q", name, path, bad)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no source files checked")
	}
}
