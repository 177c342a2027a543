package jitmem

import (
	"testing"

	"github.com/seccompbench/seccompbench/internal/boundary"
)

// TestImports keeps the model pure (docs/architecture.md, "Allowed
// imports"): no kernel access, no exec,
// no clock; runner reads the kernel and passes text and numbers in.
func TestImports(t *testing.T) {
	boundary.ForbidImports(t, "jitmem", boundary.Sources(t),
		[]string{"golang.org/x/sys/unix", "os", "os/exec", "syscall", "time"})
}
