package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestAccuracyBand(t *testing.T) {
	for _, c := range []struct{ pred, band, lo, hi float64 }{
		{10, 0.25, 8, 40.0 / 3},
		{-10, 0.25, -40.0 / 3, -8},
		{0, 0.25, 0, 0},
		{10, 1, 5, math.Inf(1)},
		{-10, 1, math.Inf(-1), -5},
	} {
		lo, hi := AccuracyBand(c.pred, c.band)
		if math.Abs(lo-c.lo) > 1e-12 && lo != c.lo || math.Abs(hi-c.hi) > 1e-12 && hi != c.hi {
			t.Errorf("AccuracyBand(%g, %g) = [%g, %g], want [%g, %g]", c.pred, c.band, lo, hi, c.lo, c.hi)
		}
		// Every T inside the band is one the prediction is within the
		// band of, and the ends are exactly on it.
		if !math.IsInf(hi, 0) && !math.IsInf(lo, 0) && c.pred != 0 {
			for _, T := range []float64{lo, (lo + hi) / 2, hi} {
				if math.Abs(c.pred-T) > c.band*math.Abs(T)+1e-9 {
					t.Errorf("pred %g, T %g in band but error %g > %g", c.pred, T, math.Abs(c.pred-T), c.band*math.Abs(T))
				}
			}
		}
	}
}

func TestJudge(t *testing.T) {
	for _, c := range []struct {
		name string
		pred float64
		meas Estimate
		want Accuracy
	}{
		// find under docker-default x16 defeated (docs/estimate.md):
		// predicted 31.8 ms CPU, measured [32.15, 40.97]: inside [25.4, 42.4].
		{"inside", 31.8, Estimate{Center: 36.56, Lo: 32.15, Hi: 40.97}, AccuracyWithin},
		// python3 -c pass as installed: predicted 0.146, measured [0.38, 0.70].
		{"outside above", 0.146, Estimate{Center: 0.54, Lo: 0.38, Hi: 0.70}, AccuracyOutside},
		{"outside below", 10, Estimate{Center: 5, Lo: 4, Hi: 7}, AccuracyOutside},
		// git status defeated: predicted 1.93, measured [2.29, 2.79]: the
		// band [1.54, 2.57] holds part of it.
		{"straddles", 1.93, Estimate{Center: 2.54, Lo: 2.29, Hi: 2.79}, AccuracyUndecided},
		// A centre 24 % off but an interval far wider than the band.
		{"wide", 1, Estimate{Center: 1.3, Lo: 0.2, Hi: 2.4}, AccuracyUndecided},
		{"nan", 1, Estimate{Center: 1, Lo: math.NaN(), Hi: 2}, AccuracyUndecided},
		{"zero prediction, interval off zero", 0, Estimate{Center: 1, Lo: 0.5, Hi: 1.5}, AccuracyOutside},
		{"zero prediction, interval holds zero", 0, Estimate{Center: 0.1, Lo: -0.5, Hi: 0.7}, AccuracyUndecided},
	} {
		if got := Judge(c.pred, c.meas, 0.25); got != c.want {
			t.Errorf("%s: Judge(%g, [%g, %g]) = %s, want %s", c.name, c.pred, c.meas.Lo, c.meas.Hi, got, c.want)
		}
	}
}

func TestTimeToHalfWidth(t *testing.T) {
	if f := TimeToHalfWidth(4, 1); f != 16 {
		t.Errorf("4× too wide: factor %g, want 16", f)
	}
	if f := TimeToHalfWidth(0.5, 1); f != 0.25 {
		t.Errorf("met: factor %g, want 0.25", f)
	}
	if f := TimeToHalfWidth(1, 0); !math.IsInf(f, 1) {
		t.Errorf("target 0: %g, want +Inf", f)
	}
	if f := TimeToHalfWidth(math.NaN(), 1); !math.IsNaN(f) {
		t.Errorf("NaN: %g", f)
	}
}

// TestTimeToHalfWidthProjects checks the projection against what more
// units do: the t half-width of the mean of n normal draws, projected
// from n = 10 to the target, is met (within sampling noise) at the
// projected n.
func TestTimeToHalfWidthProjects(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 0))
	draw := func(n int) float64 {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = r.NormFloat64()
		}
		e := Normal(xs, 0.95)
		return (e.Hi - e.Lo) / 2
	}
	var hw10 float64
	for range 200 {
		hw10 += draw(10) / 200
	}
	target := hw10 / 3
	n := int(math.Ceil(10 * TimeToHalfWidth(hw10, target)))
	var hwn float64
	for range 200 {
		hwn += draw(n) / 200
	}
	if hwn > target*1.02 {
		t.Errorf("projected n %d gave mean half-width %.4f, above the target %.4f", n, hwn, target)
	}
	if hwn < target*0.8 {
		t.Errorf("projected n %d gave mean half-width %.4f, far below the target %.4f: the projection overshoots", n, hwn, target)
	}
}
