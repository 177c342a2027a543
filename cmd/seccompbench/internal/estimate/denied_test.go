package estimate

import (
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/analysis"
)

// TestDeniedWarnings: a call denied at arguments 0 by a filter that
// tests the arguments (socket under a family allow-list) is not claimed
// to stop the workload; one denied whatever its arguments is.
func TestDeniedWarnings(t *testing.T) {
	entry := func(name string, calls int64, a filters.Action, read filters.FieldSet) analysis.ProfileCost {
		return analysis.ProfileCost{ProfileEntry: analysis.ProfileEntry{Name: name, Known: true, Calls: calls},
			Cost: analysis.SyscallCost{Action: a, Read: read}}
	}
	evals := []analysis.ProfileCost{
		entry("read", 100, filters.ActionAllow, filters.FieldNr|filters.FieldArch),
		entry("socket", 4, filters.ActionErrno, filters.FieldNr|filters.FieldArch|filters.FieldArgs&0x30), // reads args[0]
		entry("unlink", 2, filters.ActionErrno, filters.FieldNr|filters.FieldArch|filters.FieldIP),
	}
	w := deniedWarnings(evals)
	if len(w) != 2 {
		t.Fatalf("warnings %q, want two", w)
	}
	if !strings.HasPrefix(w[0], "2 profiled calls") || !strings.Contains(w[0], "unlink (errno)") || !strings.Contains(w[0], "would not run") || strings.Contains(w[0], "socket") {
		t.Errorf("argument-free denial: %q", w[0])
	}
	if !strings.HasPrefix(w[1], "4 profiled calls") || !strings.Contains(w[1], "socket (errno)") || strings.Contains(w[1], "would not run") {
		t.Errorf("argument-dependent denial: %q", w[1])
	}
	if w := deniedWarnings(evals[:1]); len(w) != 0 {
		t.Errorf("all allowed: %q", w)
	}
}
