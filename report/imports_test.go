package report

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImports enforces the package boundary of DESIGN.md: report formats a
// finished result onto an io.Writer. It never imports a command, anything
// that touches the kernel or the file system (x/sys, syscall, os, os/exec),
// and it uses runner only for the types and constants a result carries
// (runner itself is where children run; report must not start any).
func TestImports(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	forbidden := []string{"/cmd/", "golang.org/x/sys", "os/exec", "os/signal", "syscall", "os", "unsafe"}
	// What report may name from runner: result types and constants, never
	// a function that measures, probes or inspects.
	runnerOK := map[string]bool{
		"Environment": true, "Sample": true,
		"StopTrials": true, "StopPrecision": true, "StopMaxTrials": true, "StopMaxTime": true, "StopCancelled": true, "StopFailed": true,
		"SeccompModeDisabled": true, "SeccompModeStrict": true, "SeccompModeFilter": true,
	}
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatalf("parse %s: %v", name, err)
		}
		checked++
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			for _, bad := range forbidden {
				if strings.Contains(bad, "/") && strings.Contains(path, bad) || path == strings.Trim(bad, "/") {
					t.Errorf("%s imports %q; report must not import %q", name, path, bad)
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == "runner" && !runnerOK[sel.Sel.Name] {
				t.Errorf("%s uses runner.%s; report may use only runner's result types and constants", name, sel.Sel.Name)
			}
			return true
		})
	}
	if checked == 0 {
		t.Fatal("no source files checked")
	}
}
