package top

import (
	"math"
	"testing"

	"github.com/seccompbench/seccompbench/report/document"
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
