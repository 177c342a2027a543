package runner

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seccompbench/seccompbench/runner/command"
	"github.com/seccompbench/seccompbench/runner/cpulock"
	"github.com/seccompbench/seccompbench/stats"
)

// pairsRun runs spec (its command appends one line per run to out,
// say) at 3 filters, one block, checks the sample's counts and returns
// the file's lines, the pair orders and the two series of run times.
func pairsRun(t *testing.T, spec command.Spec, out string) ([]string, []bool, []float64, []float64) {
	t.Helper()
	cfg := commandConfig(t, spec, []int{3})
	got, _, err := RunAdaptive(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("%d samples, want 1", len(got))
	}
	s := got[0]
	c := s.Command
	n := spec.Runs
	if c.Design != string(spec.Design) || c.Runs != n || c.Warmup != spec.Warmup {
		t.Errorf("design %q, %d runs after %d warm-up, want %q, %d after %d", c.Design, c.Runs, c.Warmup, spec.Design, n, spec.Warmup)
	}
	for name, l := range map[string]int{"runs": len(s.SamplesNsPerOp), "CPU": len(c.CPUNs), "base runs": len(s.BaselineSamplesNsPerOp),
		"base wall": len(c.BaseWallNs), "base CPU": len(c.BaseCPUNs), "orders": len(c.BaseFirst)} {
		if l != n {
			t.Errorf("%d %s, want %d", l, name, n)
		}
	}
	if !(s.BaselineNsPerOp > 0) || s.BaselineNsPerOp != stats.Median(s.BaselineSamplesNsPerOp) {
		t.Errorf("BaselineNsPerOp %v, want the median of %v", s.BaselineNsPerOp, s.BaselineSamplesNsPerOp)
	}
	for i := range n {
		if !(s.BaselineSamplesNsPerOp[i] > 0) || !(c.BaseWallNs[i] > s.BaselineSamplesNsPerOp[i]) {
			t.Errorf("pair %d: unfiltered run %v ns from execve, %v ns in all", i, s.BaselineSamplesNsPerOp[i], c.BaseWallNs[i])
		}
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n"), c.BaseFirst, s.BaselineSamplesNsPerOp, s.SamplesNsPerOp
}

// In the pairs design one child makes every pair's two runs, one without
// filters and one under the stack, in the order it reports: each run of
// the command appends its own Seccomp_filters, and the file's sequence is
// the calibration run, the warm-up pair (unfiltered first), then each
// pair in its reported order. The seed draws both orders.
func TestCommandWorkloadPairs(t *testing.T) {
	skipIfNoSeccomp(t)
	out := filepath.Join(t.TempDir(), "status")
	script := "grep '^Seccomp_filters:' /proc/self/status | cut -f2 >> " + out
	const pairs = 12
	spec := command.Spec{Argv: []string{"sh", "-c", script}, Warmup: 1, Runs: pairs, Design: command.DesignPairs}
	lines, first, _, _ := pairsRun(t, spec, out)
	base, stacked := itoa(parentFilters(t)), itoa(parentFilters(t)+3)
	want := []string{base, base, stacked}
	for _, bf := range first {
		if bf {
			want = append(want, base, stacked)
		} else {
			want = append(want, stacked, base)
		}
	}
	if !slices.Equal(lines, want) {
		t.Errorf("filters seen by the runs, in order: %v\nwant (from the reported orders %v): %v", lines, first, want)
	}
	if !slices.Contains(first, true) || !slices.Contains(first, false) {
		t.Errorf("orders %v: 12 pairs drawn from the seed should not all start on the same side", first)
	}
}

// In the duet design both runs of a pair run at once, each pinned to one
// of two CPUs, the unfiltered one on the first CPU when the pair says
// so: each run appends its filter count and its allowed CPUs.
func TestCommandWorkloadDuet(t *testing.T) {
	skipIfNoSeccomp(t)
	cpus := cpulock.AllowedCPUs()
	if len(cpus) < 2 {
		t.Skip("the duet design needs two CPUs")
	}
	out := filepath.Join(t.TempDir(), "status")
	script := "echo $(grep '^Seccomp_filters:' /proc/self/status | cut -f2) $(grep '^Cpus_allowed_list:' /proc/self/status | cut -f2) >> " + out
	const pairs = 8
	spec := command.Spec{Argv: []string{"sh", "-c", script}, Warmup: 1, Runs: pairs, Design: command.DesignDuet}
	lines, first, _, _ := pairsRun(t, spec, out)
	base, stacked := itoa(parentFilters(t)), itoa(parentFilters(t)+3)
	if len(lines) != 1+2*(1+pairs) {
		t.Fatalf("%d runs: %v, want %d", len(lines), lines, 1+2*(1+pairs))
	}
	seen := map[string]int{}
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		if len(f) != 2 || strings.ContainsAny(f[1], ",-") {
			t.Fatalf("run %q: want one filter count and one CPU", l)
		}
		seen[f[0]+" on "+f[1]]++
	}
	nFirst := 1 // the warm-up pair: unfiltered on the first CPU
	for _, bf := range first {
		if bf {
			nFirst++
		}
	}
	var onBase, onStack int
	for k, v := range seen {
		if strings.HasPrefix(k, base+" ") {
			onBase += v
		} else if strings.HasPrefix(k, stacked+" ") {
			onStack += v
		}
	}
	if onBase != 1+pairs || onStack != 1+pairs || len(seen) != 4 {
		t.Errorf("runs by filters and CPU %v: want %d unfiltered and %d stacked runs, each side on both CPUs", seen, 1+pairs, 1+pairs)
	}
	// The stacked side ran nFirst times on one CPU (the second of the
	// pair) and the rest on the other.
	var perCPU []int
	for k, v := range seen {
		if strings.HasPrefix(k, stacked+" ") {
			perCPU = append(perCPU, v)
		}
	}
	slices.Sort(perCPU)
	want := []int{min(nFirst, 1+pairs-nFirst), max(nFirst, 1+pairs-nFirst)}
	if !slices.Equal(perCPU, want) {
		t.Errorf("stacked runs per CPU %v (from %v), want %v from the reported sides %v", perCPU, seen, want, first)
	}
}

// /bin/true under a small stack in the pairs design, three blocks: every
// pair gives a difference, and the paired estimate has an interval.
func TestCommandWorkloadPairsTrue(t *testing.T) {
	skipIfNoSeccomp(t)
	cfg := commandConfig(t, command.Spec{Argv: []string{"/bin/true"}, Warmup: 1, Runs: 10, Design: command.DesignPairs}, []int{4})
	cfg.Trials = 3
	got, info, err := RunAdaptive(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || info.Runs != 10 {
		t.Fatalf("%d samples, %d pairs per child; want 3 and 10", len(got), info.Runs)
	}
	var diffs [][]float64
	for _, s := range got {
		diffs = append(diffs, stats.PairDiffs(s.BaselineSamplesNsPerOp, s.SamplesNsPerOp))
	}
	p := stats.PairedShift(diffs, 0.95)
	if p.Pairs != 30 || len(p.Children) != 3 || math.IsNaN(p.Lo) || !(p.Lo <= p.Center && p.Center <= p.Hi) {
		t.Errorf("PairedShift = %+v, want 30 pairs of 3 children and an interval around the centre", p)
	}
}

// A calibrated paired child stops at its time rather than at R: with a
// child target of 50 ms and /bin/true, every child makes at least MinRuns
// pairs and at most R, and the children need not agree on the count.
func TestCommandWorkloadPairsTimeBox(t *testing.T) {
	skipIfNoSeccomp(t)
	cfg := commandConfig(t, command.Spec{Argv: []string{"/bin/true"}, Warmup: 1, TargetChild: 50 * time.Millisecond, Design: command.DesignPairs}, []int{2})
	cfg.Trials = 2
	got, info, err := RunAdaptive(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range got {
		n := len(s.SamplesNsPerOp)
		if n < command.MinRuns || n > info.Runs || len(s.BaselineSamplesNsPerOp) != n || s.Command.Runs != n {
			t.Errorf("child made %d pairs (%d unfiltered runs, %d counted), want %d to R = %d", n, len(s.BaselineSamplesNsPerOp), s.Command.Runs, command.MinRuns, info.Runs)
		}
	}
}
