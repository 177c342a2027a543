package runner

import (
	"testing"

	"github.com/seccompbench/seccompbench/internal/boundary"
)

// TestImports enforces runner's package boundary (docs/architecture.md,
// "Allowed imports"): runner measures and hands samples on; it never
// imports report (which formats its results) nor cmd (no package does).
// It may import filters, stats and its own sub-packages.
// internal/boundary's TestRunnerAndReportLayers checks the layers under it.
func TestImports(t *testing.T) {
	const module = "github.com/seccompbench/seccompbench/"
	boundary.ForbidImports(t, "runner", boundary.Sources(t),
		[]string{module + "report", module + "cmd/"})
}
