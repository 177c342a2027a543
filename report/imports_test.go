package report

import (
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/internal/boundary"
)

// TestImports enforces report's package boundary (docs/architecture.md,
// "Allowed imports"): report formats a
// finished result onto an io.Writer. It never imports a command, anything
// that touches the kernel or the file system (x/sys, syscall, os, os/exec),
// and it imports from the runner only runner/result, the types and
// constants a result carries (the runner is where children run; report
// must not start any).
func TestImports(t *testing.T) {
	files := boundary.Sources(t)
	boundary.ForbidImports(t, "report", files,
		[]string{"/cmd/", "golang.org/x/sys", "os/exec", "os/signal", "syscall", "os", "unsafe"})
	// From the runner, report reads only the result types.
	for name, f := range files {
		for _, imp := range f.Imports {
			if p := imp.Path.Value; strings.Contains(p, "/runner") && p != `"github.com/seccompbench/seccompbench/runner/result"` {
				t.Errorf("%s imports %s; report may import only runner/result", name, p)
			}
		}
	}
}
