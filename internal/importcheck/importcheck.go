// Package importcheck lets a package test its import boundary (DESIGN.md:
// no package imports cmd; filters and stats import neither runner nor
// report; runner never imports report). It is for tests only.
package importcheck

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Check parses the imports of every non-test Go file in the test's package
// directory and reports, with t.Errorf, each import path for which
// forbidden returns true, naming the file and pkg, the package that must
// not import it. It fails the test when no file was checked or one does
// not parse.
func Check(t testing.TB, pkg string, forbidden func(path string) bool) {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
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
			if forbidden(path) {
				t.Errorf("%s imports %q, which package %s must not import", name, path, pkg)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no source files checked")
	}
}
