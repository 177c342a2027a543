package runjob

import (
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/runner"
	"github.com/seccompbench/seccompbench/runner/command"
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/stats"
)

// A large foreign load is warned about; the advice to move to another
// CPU with --cpu is left out for the command workload, whose runs are
// not pinned, and another run seen at the same time is named.
func TestForeignLoadWarningAdvice(t *testing.T) {
	f := &result.ForeignLoad{CPUs: []int{0, 1}, Children: 4, WindowNs: 4e9, BusyNs: 3e9, OwnNs: 1e9, Share: 0.5,
		OtherRuns: []result.OtherRun{{Pid: 4242, Argv: []string{"seccompbench", "run", "--trials", "5"}}}}
	info := result.RunInfo{ForeignLoad: f}
	find := func(ws []string) string {
		for _, w := range ws {
			if strings.HasPrefix(w, "other processes took") {
				return w
			}
		}
		return ""
	}
	loop := find(resultWarnings(&Job{}, nil, stats.Result{}, info))
	if !strings.Contains(loop, "choose an idle CPU with --cpu") || !strings.Contains(loop, "another seccompbench run measured at the same time (PID 4242: seccompbench run --trials 5)") {
		t.Errorf("loop workload warning: %q", loop)
	}
	cmd := find(resultWarnings(&Job{Workload: runner.Workload{Command: &command.Spec{Argv: []string{"true"}, Design: command.DesignPairs}}}, nil, stats.Result{}, info))
	if cmd == "" || strings.Contains(cmd, "--cpu") || !strings.Contains(cmd, "not pinned") {
		t.Errorf("command workload warning: %q", cmd)
	}
}
