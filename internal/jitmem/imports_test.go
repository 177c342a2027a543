package jitmem

import (
	"testing"

	"github.com/seccompbench/seccompbench/internal/importcheck"
)

// TestImports keeps the model pure (STYLE.md): no kernel access, no exec,
// no clock; runner reads the kernel and passes text and numbers in.
func TestImports(t *testing.T) {
	importcheck.Check(t, "jitmem", func(path string) bool {
		switch path {
		case "golang.org/x/sys/unix", "os", "os/exec", "syscall", "time":
			return true
		}
		return false
	})
}
