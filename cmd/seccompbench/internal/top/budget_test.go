package top

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/stats"
)

func ptr(x float64) *float64 { return &x }

// TestWindowShare: the share is the targets' seccomp time over their CPU
// time, idle targets left out, and its error the CPU-weighted batch-means
// half-width over z.
func TestWindowShare(t *testing.T) {
	w := &document.Top{Method: document.TopMethod{Confidence: 0.95}, Processes: []document.TopProcess{
		{CPUNs: 3e9, SeccompNs: 0.06e9, SeccompShare: ptr(0.02), SeccompShareCILow: ptr(0.01), SeccompShareCIHigh: ptr(0.03)},
		{CPUNs: 1e9, SeccompNs: 0.02e9, SeccompShare: ptr(0.02), SeccompShareCILow: ptr(0.0), SeccompShareCIHigh: ptr(0.04)},
		{CPUNs: 0}, // idle: no share
	}}
	pct, se, ok := WindowShare(w)
	if !ok || math.Abs(pct-2) > 1e-9 {
		t.Errorf("share %g %v, want 2 %%", pct, ok)
	}
	if want := 100 * (3*0.01 + 1*0.02) / 4 / stats.ZQuantile(0.95); math.Abs(se-want) > 1e-9 {
		t.Errorf("se %g, want %g", se, want)
	}
	if _, _, ok := WindowShare(&document.Top{}); ok {
		t.Error("a share from no process")
	}
}

// TestShareDecision: shares well under 1 % decide within after
// MinSequentialN windows, well over it decide over; a share of 0 in
// every window is bounded by the windows' own error, not by 0.
func TestShareDecision(t *testing.T) {
	b := stats.Budget{Pct: 1, Relative: true}
	low := []float64{0.2, 0.25, 0.18, 0.3, 0.22, 0.2, 0.27, 0.21}
	if d := ShareDecision(low, 0, b, 0.95, 8, 16); d.Verdict != stats.VerdictWithin || d.DecidedBy != "share" || d.Rounds != 8 {
		t.Errorf("low: %+v", d)
	}
	if d := ShareDecision(low[:7], 0, b, 0.95, 7, 14); d.Verdict != stats.VerdictUndecided {
		t.Errorf("7 windows decided: %+v", d)
	}
	high := []float64{2.1, 2.4, 1.9, 2.2, 2.0, 2.3, 2.5, 2.2}
	if d := ShareDecision(high, 0, b, 0.95, 8, 16); d.Verdict != stats.VerdictOver {
		t.Errorf("high: %+v", d)
	}
	zeros := make([]float64, 8)
	if d := ShareDecision(zeros, 1, b, 0.95, 8, 16); d.Verdict != stats.VerdictUndecided || !(d.Upper > 1) {
		t.Errorf("zeros with a 1 %% window error: %+v", d)
	}
}

// budgetRun runs top --pid 8 --budget 1% on the fake sampler, 8 an idle
// target (never sampled) with filters seccomp filters, and returns its
// JSON verdict and the error Report returned. Windows are of the fake
// clock, --max-time of the real one.
func budgetRun(t *testing.T, filters int) (*document.BudgetVerdict, error) {
	t.Helper()
	o, f, _ := idleOptions(t, func(uint64) time.Duration { return 0 })
	f.quiet = true
	o.Pids = []int{8}
	o.ListPids = func() ([]int, error) { return []int{8}, nil }
	mode := result.SeccompModeFilter
	if filters == 0 {
		mode = result.SeccompModeDisabled
	}
	o.Status = func(pid int) (result.ProcStatus, error) {
		return result.ProcStatus{Pid: pid, SeccompMode: mode, SeccompFilters: filters}, nil
	}
	b := stats.Budget{Pct: 1, Relative: true}
	var out, errOut strings.Builder
	err := Report(context.Background(), o, View{Refresh: 100 * time.Millisecond, Format: "json", MaxSyscalls: 8, Budget: &b, MaxTime: 500 * time.Millisecond}, &out, &errOut)
	var doc document.Top
	if jerr := json.Unmarshal([]byte(out.String()), &doc); jerr != nil || doc.Budget == nil {
		t.Fatalf("output %q: %v, budget %v", out.String(), jerr, doc.Budget)
	}
	return doc.Budget, err
}

// A target with no seccomp filter pays exactly nothing for seccomp: the
// verdict is within at the first window, decided by its filter count. It
// was undecided (exit 4) after --max-time, "n/a [n/a, n/a] … the
// estimate sits on the budget".
func TestBudgetNoFilters(t *testing.T) {
	v, err := budgetRun(t, 0)
	if err != nil {
		t.Fatalf("err %v, want nil (within, exit 0)", err)
	}
	if v.Verdict != "within" || v.DecidedBy != document.BudgetByNoFilters || v.Rounds != 1 || v.Estimate != 0 || v.Upper != 0 {
		t.Errorf("verdict %+v, want within by no_filters after one window, 0 estimate and bound", v)
	}
	if txt := report.BudgetText(v); !strings.Contains(txt, "no seccomp filter") || strings.Contains(txt, "n/a") {
		t.Errorf("text %q", txt)
	}
}

// A filtered target that is never sampled stays undecided, and the line
// says why (no CPU samples), not "n/a … sits on the budget".
func TestBudgetNoSamples(t *testing.T) {
	v, err := budgetRun(t, 2)
	var be *cmdutil.BudgetError
	if !errors.As(err, &be) || be.Code() != cmdutil.ExitUndecided {
		t.Fatalf("err %v, want undecided (exit 4)", err)
	}
	txt := report.BudgetText(v)
	if v.Verdict != "undecided" || v.N != 0 || !strings.Contains(txt, "no CPU samples of the targets in") {
		t.Errorf("verdict %+v, text %q", v, txt)
	}
	for _, bad := range []string{"n/a", "sits on the budget"} {
		if strings.Contains(txt, bad) {
			t.Errorf("text %q says %q", txt, bad)
		}
	}
}
