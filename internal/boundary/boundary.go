// Package boundary checks, from a package's own tests, that the package
// keeps the import boundaries of docs/architecture.md (stats and report never import
// cmd or the kernel, report uses runner only for result types, ...). It is
// for tests only.
package boundary

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// Sources parses the non-test Go files of the test's package directory,
// keyed by file name. It fails the test when there are none.
func Sources(t testing.TB) map[string]*ast.File {
	t.Helper()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*ast.File{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatalf("parse %s: %v", name, err)
		}
		out[name] = f
	}
	if len(out) == 0 {
		t.Fatal("no source files checked")
	}
	return out
}

// ForbidImports reports, with t.Errorf, every import of files that matches
// forbidden: an entry with a slash matches any import path containing it
// ("/cmd/", "golang.org/x/sys"), one without matches that path exactly
// ("os", "syscall"). pkg names the package in the messages.
func ForbidImports(t testing.TB, pkg string, files map[string]*ast.File, forbidden []string) {
	t.Helper()
	for _, name := range sortedNames(files) {
		for _, imp := range files[name].Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			for _, bad := range forbidden {
				if strings.Contains(bad, "/") && strings.Contains(path, bad) || path == bad {
					t.Errorf("%s imports %q; %s must not import %q", name, path, pkg, bad)
				}
			}
		}
	}
}

func sortedNames(files map[string]*ast.File) []string {
	var names []string
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
