package report

import (
	"go/ast"
	"testing"

	"github.com/seccompbench/seccompbench/internal/boundary"
)

// TestImports enforces report's package boundary (docs/architecture.md,
// "Allowed imports"): report formats a
// finished result onto an io.Writer. It never imports a command, anything
// that touches the kernel or the file system (x/sys, syscall, os, os/exec),
// and it uses runner only for the types and constants a result carries
// (runner itself is where children run; report must not start any).
func TestImports(t *testing.T) {
	files := boundary.Sources(t)
	boundary.ForbidImports(t, "report", files,
		[]string{"/cmd/", "golang.org/x/sys", "os/exec", "os/signal", "syscall", "os", "unsafe"})
	// What report may name from runner: result types and constants, never
	// a function that measures, probes or inspects.
	runnerOK := map[string]bool{
		"Environment": true, "Sample": true, "StopReason": true, "ForeignLoad": true,
		"StopTrials": true, "StopPrecision": true, "StopMaxTrials": true, "StopMaxTime": true, "StopCancelled": true, "StopFailed": true,
		"SeccompModeDisabled": true, "SeccompModeStrict": true, "SeccompModeFilter": true,
	}
	for name, f := range files {
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
}
