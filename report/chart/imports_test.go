package chart

import (
	"testing"

	"github.com/seccompbench/seccompbench/internal/boundary"
)

// TestImports enforces the package boundary of docs/architecture.md:
// chart draws finished results. Like report, it never imports a command,
// the runner, or anything that touches the kernel.
func TestImports(t *testing.T) {
	boundary.ForbidImports(t, "report/chart", boundary.Sources(t),
		[]string{"/cmd/", "/runner", "golang.org/x/sys", "os/exec", "os/signal", "syscall", "os", "unsafe"})
}
