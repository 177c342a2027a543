package runner

import (
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/internal/importcheck"
)

// TestImports enforces the package boundary of DESIGN.md: runner measures
// and hands samples on; it never imports report (which formats its
// results) nor cmd (no package does). It may import filters and stats.
func TestImports(t *testing.T) {
	const module = "github.com/seccompbench/seccompbench/"
	importcheck.Check(t, "runner", func(path string) bool {
		for _, bad := range []string{module + "report", module + "cmd"} {
			if path == bad || strings.HasPrefix(path, bad+"/") {
				return true
			}
		}
		return false
	})
}
