package stats

import (
	"math"
	"testing"
)

func TestCheckPrediction(t *testing.T) {
	tests := []struct {
		name             string
		pred, meas       Estimate
		ratio, errPct    float64
		covered, overlap bool
	}{
		// The example: predicted +39 ms [36, 42], measured +50 ms [36, 64].
		{"issue example", Estimate{Center: 39, Lo: 36, Hi: 42}, Estimate{Center: 50, Lo: 36, Hi: 64}, 0.78, -22, false, true},
		{"covered", Estimate{Center: 110, Lo: 90, Hi: 130}, Estimate{Center: 100, Lo: 95, Hi: 105}, 1.1, 10, true, true},
		{"apart", Estimate{Center: 10, Lo: 9, Hi: 11}, Estimate{Center: 20, Lo: 18, Hi: 22}, 0.5, -50, false, false},
		{"negative measured", Estimate{Center: 5, Lo: 0, Hi: 10}, Estimate{Center: -5, Lo: -8, Hi: -2}, -1, 200, false, false},
		{"zero measured", Estimate{Center: 5, Lo: 0, Hi: 10}, Estimate{Center: 0, Lo: -1, Hi: 1}, math.NaN(), math.NaN(), true, true},
		{"no interval", Estimate{Center: 5, Lo: math.NaN(), Hi: math.NaN()}, Estimate{Center: 5, Lo: 4, Hi: 6}, 1, 0, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CheckPrediction(tt.pred, tt.meas)
			if !sameFloat(got.Ratio, tt.ratio) || !sameFloat(got.ErrorPct, tt.errPct) || got.Covered != tt.covered || got.Overlap != tt.overlap {
				t.Errorf("got ratio %v error %v%% covered %v overlap %v, want %v %v%% %v %v",
					got.Ratio, got.ErrorPct, got.Covered, got.Overlap, tt.ratio, tt.errPct, tt.covered, tt.overlap)
			}
		})
	}
}

// sameFloat reports a ≈ b within 1e-9, NaN matching NaN.
func sameFloat(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) < 1e-9
}

func TestSplitCost(t *testing.T) {
	tests := []struct {
		name             string
		install, running Estimate
		share            float64
		dominant         string
		clear            bool
	}{
		// A 1 ms `true` under 16 filters: 16 µs of seccomp(2), ~1 µs running.
		{"short-lived", Estimate{Center: 16000, Lo: 15000, Hi: 17000}, Estimate{Center: 1000, Lo: 0, Hi: 2000}, 16000.0 / 17000, "install", true},
		{"long-running", Estimate{Center: 16000, Lo: 15000, Hi: 17000}, Estimate{Center: 5e7, Lo: 3.6e7, Hi: 6.4e7}, 16000 / (16000 + 5e7), "running", true},
		{"overlapping", Estimate{Center: 10, Lo: 8, Hi: 12}, Estimate{Center: 9, Lo: 0, Hi: 20}, 10.0 / 19, "install", false},
		{"nothing", Estimate{}, Estimate{}, math.NaN(), "running", false},
		{"negative running", Estimate{Center: 10, Lo: 9, Hi: 11}, Estimate{Center: -5, Lo: -20, Hi: 10}, 1, "install", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := SplitCost(tt.install, tt.running)
			if !sameFloat(got.InstallShare, tt.share) || got.Dominant != tt.dominant || got.Clear != tt.clear {
				t.Errorf("got share %v dominant %q clear %v, want %v %q %v", got.InstallShare, got.Dominant, got.Clear, tt.share, tt.dominant, tt.clear)
			}
		})
	}
}

func TestWithModelError(t *testing.T) {
	tests := []struct {
		name   string
		e      Estimate
		rel    float64
		lo, hi float64
	}{
		// hw 3 on each side, model 0.1·40 = 4: √(9+16) = 5.
		{"quadrature", Estimate{Center: 40, Lo: 37, Hi: 43}, 0.1, 35, 45},
		// Asymmetric: √(0+9) = 3 below, √(16+9) = 5 above.
		{"asymmetric", Estimate{Center: -30, Lo: -30, Hi: -26}, 0.1, -33, -25},
		{"none", Estimate{Center: 40, Lo: 37, Hi: 43}, 0, 37, 43},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := WithModelError(tt.e, tt.rel)
			if !sameFloat(got.Lo, tt.lo) || !sameFloat(got.Hi, tt.hi) || got.Center != tt.e.Center {
				t.Errorf("got %+v, want [%v, %v] around %v", got, tt.lo, tt.hi, tt.e.Center)
			}
		})
	}
}

// TestSumEstimates checks the worked example of SumEstimates's doc and
// that a zero Estimate adds nothing.
func TestSumEstimates(t *testing.T) {
	got := SumEstimates(Estimate{Center: 10, Lo: 7, Hi: 14}, Estimate{Center: 2, Lo: 1, Hi: 6})
	if got.Center != 12 || math.Abs(got.Lo-(12-math.Sqrt(10))) > 1e-12 || math.Abs(got.Hi-(12+math.Sqrt(32))) > 1e-12 {
		t.Errorf("SumEstimates = %+v, want 12 [%.4f, %.4f]", got, 12-math.Sqrt(10), 12+math.Sqrt(32))
	}
	a := Estimate{Center: 3, Lo: 1, Hi: 5}
	if got := SumEstimates(a, Estimate{}); got != a {
		t.Errorf("SumEstimates(a, zero) = %+v, want %+v", got, a)
	}
}
