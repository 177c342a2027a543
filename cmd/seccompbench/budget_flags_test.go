package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/runner/command"
	"github.com/seccompbench/seccompbench/stats"
)

// TestRunBudgetFlags: --budget parses into the job, implies the paired
// design and rounds from two blocks, and is refused where it cannot be
// decided.
func TestRunBudgetFlags(t *testing.T) {
	o := parseFlags(t, NewCmdRun, []string{"--workload", "command", "--budget", "2%", "--", "true"}, errContaining(""))
	j := o.Job
	if j.Budget == nil || *j.Budget != (stats.Budget{Pct: 2, Relative: true}) {
		t.Fatalf("Budget = %+v", j.Budget)
	}
	if !slices.Equal(j.Counts, []int{1}) {
		t.Errorf("counts %v without --filters, want [1] (the policy alone)", j.Counts)
	}
	if j.Workload.Command.Design != command.DesignPairs || j.Trials != 2 || j.MaxTrials != 1000 {
		t.Errorf("design %q, trials %d, max trials %d; want pairs, 2, 1000", j.Workload.Command.Design, j.Trials, j.MaxTrials)
	}
	o = parseFlags(t, NewCmdRun, []string{"--workload", "command", "--budget", "5ms", "--ab", "duet", "--trials", "4", "--", "true"}, errContaining(""))
	if o.Job.Budget.Ns != 5e6 || o.Job.Workload.Command.Design != command.DesignDuet || o.Job.Trials != 4 {
		t.Errorf("5ms duet: %+v %q %d", o.Job.Budget, o.Job.Workload.Command.Design, o.Job.Trials)
	}
	if o := parseFlags(t, NewCmdRun, []string{"--workload", "getpid", "--budget", "25%"}, errContaining("")); o.Job.Budget == nil || o.Job.Budget.Pct != 25 || o.Job.Trials != 2 || !slices.Equal(o.Job.Counts, []int{1, 32}) {
		t.Errorf("loop budget: %+v, trials %d, counts %v", o.Job.Budget, o.Job.Trials, o.Job.Counts)
	}
	if o := parseFlags(t, NewCmdRun, []string{"--workload", "getpid", "--budget", "25%", "--filters", "0,4"}, errContaining("")); !slices.Equal(o.Job.Counts, []int{0, 4}) {
		t.Errorf("--filters 0,4 with a budget: counts %v", o.Job.Counts)
	}
	if o := parseFlags(t, NewCmdRun, []string{"--workload", "command", "--", "true"}, errContaining("")); o.Job.Budget != nil {
		t.Error("a budget without --budget")
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--workload", "command", "--budget", "5", "--", "true"}, "--budget: budget \"5\": no unit"},
		{[]string{"--workload", "command", "--budget", "-2%", "--", "true"}, "not above 0"},
		{[]string{"--workload", "command", "--budget", "2%", "--ab", "children", "--", "true"}, "needs a paired design"},
		{[]string{"--workload", "getpid", "--budget", "50ns", "--paired=false"}, "paired baseline"},
		{[]string{"--workload", "command", "--budget", "2%", "--target-ci", "5%", "--", "true"}, "give one stop rule"},
	} {
		parseFlags(t, NewCmdRun, c.args, usageErrContaining(c.want))
	}
}

// TestEstimateBudgetFlags: estimate --command --budget parses into the
// options with a paired design; without --command, or with --ab
// children, it is a usage error.
func TestEstimateBudgetFlags(t *testing.T) {
	o := parseFlags(t, NewCmdEstimate, []string{"default", "--command", "--budget", "5ms", "--", "true"}, errContaining(""))
	if o.Budget == nil || o.Budget.Ns != 5e6 || !o.AB.Paired() {
		t.Errorf("budget %+v, design %q", o.Budget, o.AB)
	}
	if o := parseFlags(t, NewCmdEstimate, []string{"default", "--command", "--", "true"}, errContaining("")); o.Budget != nil {
		t.Error("a budget without --budget")
	}
	parseFlags(t, NewCmdEstimate, []string{"default", "--command", "--budget", "2%", "--ab", "children", "--", "true"}, usageErrContaining("needs a paired design"))
	parseFlags(t, NewCmdEstimate, []string{"default", "--budget", "2%", "--profile", "x.txt"}, usageErrContaining("a % budget needs --command"))
	// Without --command an absolute budget is judged on the bracket.
	if o := parseFlags(t, NewCmdEstimate, []string{"default", "--budget", "5ms", "--profile", "x.txt"}, errContaining("")); o.Budget == nil || o.Budget.Ns != 5e6 {
		t.Errorf("profile-only budget %+v, want 5 ms", o.Budget)
	}
	parseFlags(t, NewCmdEstimate, []string{"default", "--command", "--budget", "2", "--", "true"}, usageErrContaining("no unit"))
}

// TestCompareBudgetExit: compare --budget exits with its verdict: a
// result against itself is within a 1 µs budget (0); docs/examples'
// default policy against minimal.json's is over 1 % at the deepest count
// (3); a usage error for a bad budget or a third file (2).
func TestCompareBudgetExit(t *testing.T) {
	ex := func(f string) string { return "../../docs/examples/" + f }
	for _, c := range []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"compare", ex("run.json"), ex("run.json"), "--budget", "1000ns"}, 0, "budget: within 1 µs:"},
		{[]string{"compare", ex("minimal.json"), ex("run.json"), "--budget", "1%"}, 3, "budget: over 1%:"},
		{[]string{"compare", ex("run.json"), ex("run.json"), "--budget", "1"}, 2, ""},
		{[]string{"compare", ex("run.json"), ex("run.json"), ex("run.json"), "--budget", "1%"}, 2, ""},
	} {
		var out, errb bytes.Buffer
		if got := run(c.args, strings.NewReader(""), &out, &errb); got != c.code || !strings.HasPrefix(out.String(), c.out) {
			t.Errorf("%v: exit %d, want %d; stdout starts %.120q; stderr %s", c.args[1:], got, c.code, out.String(), errb.String())
		}
	}
}

// TestTopBudgetFlags: top --budget takes a share and --max-time, and
// refuses an absolute budget and --duration.
func TestTopBudgetFlags(t *testing.T) {
	o := parseFlags(t, NewCmdTop, []string{"--pid", "1", "--budget", "1%", "--max-time", "30s"}, errContaining(""))
	if o.Budget == nil || o.Budget.Pct != 1 || o.MaxTime.Seconds() != 30 {
		t.Errorf("budget %+v, max time %v", o.Budget, o.MaxTime)
	}
	parseFlags(t, NewCmdTop, []string{"--pid", "1", "--budget", "5ms"}, usageErrContaining("a share of the targets' CPU time"))
	parseFlags(t, NewCmdTop, []string{"--pid", "1", "--budget", "1%", "--duration", "5s"}, usageErrContaining("drop --duration"))
}
