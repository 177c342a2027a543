package jit

import (
	"os"
	"testing"

	"github.com/seccompbench/seccompbench/runner/internal/child"
)

// TestMain lets the test binary serve as the holder child of HoldStack.
func TestMain(m *testing.M) {
	if child.IsChild() {
		child.Main(HoldChild)
	}
	os.Exit(m.Run())
}

func skipIfNoSeccomp(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc")
	}
}
