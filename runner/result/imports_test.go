package result

import (
	"testing"

	"github.com/seccompbench/seccompbench/internal/boundary"
)

// TestImports enforces the package boundary of docs/architecture.md:
// result holds what renderers read, so it imports nothing that touches
// the kernel (syscall only for the Errno and Signal types of errors) and
// nothing of the runner, report or cmd.
func TestImports(t *testing.T) {
	boundary.ForbidImports(t, "runner/result", boundary.Sources(t),
		[]string{"/runner", "/report", "/cmd/", "golang.org/x/sys", "os", "os/exec", "unsafe"})
}
