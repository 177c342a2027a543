package stats

import (
	"math"
	"testing"
)

func TestConclude(t *testing.T) {
	tests := []struct {
		name               string
		center, lo, hi, m  float64
		want               Verdict
		wantNeed, wantMult float64
	}{
		// issue 17: control loop CI [−59 %, +81 %] against the ±15 % noise band.
		{"control loop wide", 11, -59, 81, 15, Inconclusive, 11, math.Pow(70.0/11, 2)},
		{"within margin", 0.3, -0.5, 1.1, 2, Negligible, 0.8, 1},
		{"positive", 20, 18, 22, 2, Positive, 2, 1},
		{"positive but small and outside margin", 1.5, 0.5, 2.5, 2, Positive, 1, 1},
		// issue 17: a negative entry (−70 ns) cannot be a cost.
		{"negative", -70, -120, -20, 2, Negative, 50, 1},
		// centered near 0: shrink to fit the margin (2-0.5) beats
		// excluding 0 (0.5).
		{"near zero wide", 0.5, -4.5, 5.5, 2, Inconclusive, 1.5, math.Pow(5/1.5, 2)},
		{"zero center no margin", 0, -1, 1, 0, Inconclusive, 0, math.Inf(1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Conclude(tt.center, tt.lo, tt.hi, tt.m)
			if got.Verdict != tt.want || !closeTo(got.NeedHalfWidth, tt.wantNeed) || !closeTo(got.TrialsFactor, tt.wantMult) {
				t.Errorf("got %v need %v trials x%v, want %v need %v trials x%v", got.Verdict, got.NeedHalfWidth, got.TrialsFactor, tt.want, tt.wantNeed, tt.wantMult)
			}
		})
	}
	if got := Conclude(math.NaN(), 0, 1, 1); got.Verdict != Inconclusive || !math.IsInf(got.TrialsFactor, 1) {
		t.Errorf("NaN center: got %+v", got)
	}
}

func closeTo(a, b float64) bool {
	if math.IsInf(a, 1) || math.IsInf(b, 1) {
		return a == b
	}
	return math.Abs(a-b) < 1e-9*math.Max(1, math.Abs(b))
}
