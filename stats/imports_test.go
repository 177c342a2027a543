package stats

import (
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/internal/importcheck"
)

// TestImports enforces the package boundary of DESIGN.md: stats is pure math
// and imports neither runner nor report, nor anything touching the kernel.
func TestImports(t *testing.T) {
	forbidden := []string{"/runner", "/report", "/cmd/", "golang.org/x/sys", "os/exec", "syscall"}
	importcheck.Check(t, "stats", func(path string) bool {
		for _, bad := range forbidden {
			if strings.Contains(path, bad) || path == strings.Trim(bad, "/") {
				return true
			}
		}
		return false
	})
}
