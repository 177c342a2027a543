package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestPoissonCount(t *testing.T) {
	for _, tc := range []struct {
		k      int
		lo, hi float64
	}{
		{0, 0, 3.6889},
		{10, 4.7954, 18.3904},
		{1, 0.0253, 5.5716},
	} {
		e := PoissonCount(tc.k, 0.95)
		if e.Center != float64(tc.k) || !near(e.Lo, tc.lo, 1e-3) || !near(e.Hi, tc.hi, 1e-3) {
			t.Errorf("PoissonCount(%d) = %+v, want [%v, %v]", tc.k, e, tc.lo, tc.hi)
		}
	}
	if e := PoissonCount(-1, 0.95); !math.IsNaN(e.Lo) || !math.IsNaN(e.Hi) {
		t.Errorf("PoissonCount(-1) = %+v, want NaN bounds", e)
	}
	if e := PoissonCount(3, 1); !math.IsNaN(e.Lo) {
		t.Errorf("PoissonCount at confidence 1 = %+v, want NaN bounds", e)
	}
}

// TestPoissonCountCoverage draws Poisson counts and checks the interval
// holds the mean at least as often as stated (Garwood is conservative).
func TestPoissonCountCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 0))
	for _, mean := range []float64{0.5, 3, 20} {
		hit := 0
		const n = 2000
		for range n {
			k := poissonDraw(rng.Float64, mean)
			if e := PoissonCount(k, 0.9); e.Lo <= mean && mean <= e.Hi {
				hit++
			}
		}
		if float64(hit)/n < 0.88 {
			t.Errorf("mean %v: coverage %d/%d, want ≥ 0.88 at 90 %%", mean, hit, n)
		}
	}
}

// poissonDraw draws a Poisson count by inversion.
func poissonDraw(u func() float64, mean float64) int {
	x, p := 0, math.Exp(-mean)
	s, v := p, u()
	for v > s {
		x++
		p *= mean / float64(x)
		s += p
	}
	return x
}

func TestSubEstimates(t *testing.T) {
	d := SubEstimates(Estimate{Center: 10, Lo: 7, Hi: 14, Confidence: 0.95}, Estimate{Center: 2, Lo: 1, Hi: 6})
	if d.Center != 8 || !near(d.Lo, 3, 1e-9) || !near(d.Hi, 8+math.Sqrt(17), 1e-9) || d.Confidence != 0.95 {
		t.Errorf("SubEstimates = %+v, want 8 [3, 12.12]", d)
	}
}

func TestEstimateDirect(t *testing.T) {
	d, err := EstimateDirect(10, 100, 0, 100, 10e6, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if !near(d.Stacked.Center, 1e6, 1e-6) || !near(d.Stacked.Lo, 0.4795e6, 100) || !near(d.Stacked.Hi, 1.8390e6, 100) {
		t.Errorf("Stacked = %+v", d.Stacked)
	}
	if d.Baseline.Center != 0 || !near(d.Baseline.Hi, 0.36889e6, 100) {
		t.Errorf("Baseline = %+v", d.Baseline)
	}
	wantLo := 1e6 - math.Hypot(1e6-0.4795e6, 0.36889e6)
	if !near(d.Direct.Center, 1e6, 1e-6) || !near(d.Direct.Lo, wantLo, 200) || !near(d.Direct.Hi, 1.8390e6, 100) {
		t.Errorf("Direct = %+v, want 1e6 [%v, 1.839e6]", d.Direct, wantLo)
	}
	// A baseline with seccomp samples of its own (a measuring process
	// under a filter) is subtracted.
	d, err = EstimateDirect(40, 20, 10, 10, 1e6, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if !near(d.Direct.Center, 1e6, 1e-6) {
		t.Errorf("Direct = %v, want 2e6 − 1e6", d.Direct.Center)
	}
	for _, bad := range [][4]int{{1, 0, 0, 1}, {1, 1, 0, 0}, {-1, 1, 0, 1}} {
		if _, err := EstimateDirect(bad[0], bad[1], bad[2], bad[3], 1e6, 0.95); err == nil {
			t.Errorf("EstimateDirect%v: no error", bad)
		}
	}
	if _, err := EstimateDirect(1, 1, 0, 1, 0, 0.95); err == nil {
		t.Error("period 0: no error")
	}
}

func TestSplitAdded(t *testing.T) {
	total := Estimate{Center: 10, Lo: 8, Hi: 12, Confidence: 0.95}
	s := SplitAdded(total, Estimate{Center: 3, Lo: 2.5, Hi: 3.5}, Estimate{Center: 1, Lo: 0.5, Hi: 1.5})
	hw := math.Sqrt(4 + 0.25 + 0.25)
	if !s.Resolved || s.Why != "" || s.Indirect.Center != 6 || !near(s.Indirect.Lo, 6-hw, 1e-9) || !near(s.Indirect.Hi, 6+hw, 1e-9) {
		t.Errorf("split = %+v, want indirect 6 ± %.3f resolved", s, hw)
	}
	// Spanning zero: not resolved.
	s = SplitAdded(Estimate{Center: 4, Lo: -1, Hi: 9}, Estimate{Center: 3, Lo: 2.5, Hi: 3.5}, Estimate{})
	if s.Resolved || s.Why != SplitSpansZero || s.Indirect.Center != 1 {
		t.Errorf("split = %+v, want unresolved (spans zero)", s)
	}
	// Excluding zero but wider than the total.
	s = SplitAdded(Estimate{Center: 4, Lo: 3.9, Hi: 30}, Estimate{Center: 0.5, Lo: 0.4, Hi: 0.6}, Estimate{})
	if s.Resolved || s.Why != SplitWide {
		t.Errorf("split = %+v, want unresolved (wider than the total)", s)
	}
	s = SplitAdded(Estimate{Center: 4, Lo: math.NaN(), Hi: 5}, Estimate{Center: 1, Lo: 0, Hi: 2}, Estimate{})
	if s.Resolved {
		t.Errorf("split with a NaN bound is resolved: %+v", s)
	}
}
