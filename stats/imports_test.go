package stats

import (
	"testing"

	"github.com/seccompbench/seccompbench/internal/boundary"
)

// TestImports enforces stats's package boundary (docs/architecture.md,
// "Allowed imports"): stats is pure math
// and imports neither runner nor report, nor anything touching the kernel.
func TestImports(t *testing.T) {
	boundary.ForbidImports(t, "stats", boundary.Sources(t),
		[]string{"/runner", "/report", "/cmd/", "golang.org/x/sys", "os/exec", "syscall"})
}
