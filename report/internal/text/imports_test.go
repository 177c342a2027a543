package text

import (
	"testing"

	"github.com/seccompbench/seccompbench/internal/boundary"
)

// TestImports enforces the text helpers' boundary (docs/architecture.md):
// they know nothing of documents, commands, filters or the kernel, so they
// import nothing of the module and nothing kernel-side.
func TestImports(t *testing.T) {
	boundary.ForbidImports(t, "report/internal/text", boundary.Sources(t),
		[]string{"github.com/seccompbench/", "golang.org/x/sys", "os/exec", "os", "syscall", "unsafe"})
}
