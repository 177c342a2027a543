package runjob

import (
	"slices"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
)

// TestUnitAsPolicyCounts: a unit given as the only POLICY ("-" here) is
// measured as --systemd-unit measures it: without --filters the counts
// are 0 and each directive's prefix of the stack.
func TestUnitAsPolicyCounts(t *testing.T) {
	ios, in, _, _ := cmdutil.TestIOStreams()
	in.WriteString("[Service]\nSystemCallArchitectures=native\nLockPersonality=yes\nSystemCallFilter=@system-service\n")
	j := &Job{Policies: []string{"-"}, Counts: []int{0, 1, 2, 4, 8, 16, 32}}
	progs, pols, err := openSources(ios, j)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := j.Counts, []int{0, 1, 2, 3}; !slices.Equal(got, want) {
		t.Errorf("counts = %v, want %v", got, want)
	}
	if len(progs) != 3 || len(pols) != 1 || !strings.Contains(pols[0].Path, "systemd stack of 3 filters") {
		t.Errorf("got %d programs, policies %+v", len(progs), pols)
	}
}
