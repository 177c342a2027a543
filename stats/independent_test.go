package stats

import (
	"math"
	"testing"
)

func TestDiffIndependent(t *testing.T) {
	const z95 = 1.959963984540054
	tests := []struct {
		name           string
		base, x        Estimate
		conf           float64
		wantDelta      float64
		wantLo, wantHi float64
		wantP          float64
		wantWarn       bool
	}{
		{
			// SE 1 each: combined SE √2, half-width 1.96·√2; P of 10/√2.
			name: "equal levels", base: Estimate{20, 20 - z95, 20 + z95, 0.95}, x: Estimate{30, 30 - z95, 30 + z95, 0.95}, conf: 0.95,
			wantDelta: 10, wantLo: 10 - z95*math.Sqrt2, wantHi: 10 + z95*math.Sqrt2, wantP: 2 * 0.5 * math.Erfc(10/math.Sqrt2/math.Sqrt2),
		},
		{
			// Half-widths 3 and 4 at the same level combine to 5.
			name: "pythagoras", base: Estimate{0, -3, 3, 0.9}, x: Estimate{1, -3, 5, 0.9}, conf: 0.9,
			wantDelta: 1, wantLo: -4, wantHi: 6, wantP: 2 * 0.5 * math.Erfc((1/(5/1.6448536269514722))/math.Sqrt2),
		},
		{
			// A 99% interval of half-width 2.5758 has SE 1, as does a 90% one of 1.6449.
			name: "mixed levels", base: Estimate{5, 5 - 2.5758293035489, 5 + 2.5758293035489, 0.99}, x: Estimate{5, 5 - 1.6448536269514722, 5 + 1.6448536269514722, 0.90}, conf: 0.95,
			wantDelta: 0, wantLo: -z95 * math.Sqrt2, wantHi: z95 * math.Sqrt2, wantP: 1,
		},
		{
			name: "missing interval", base: Estimate{5, math.NaN(), math.NaN(), 0.95}, x: Estimate{6, 5, 7, 0.95}, conf: 0.95,
			wantDelta: 1, wantLo: math.NaN(), wantHi: math.NaN(), wantP: math.NaN(), wantWarn: true,
		},
		{
			name: "bad confidence", base: Estimate{5, 4, 6, 0.95}, x: Estimate{6, 5, 7, 95}, conf: 0.95,
			wantDelta: 1, wantLo: math.NaN(), wantHi: math.NaN(), wantP: math.NaN(), wantWarn: true,
		},
	}
	near := func(a, b float64) bool {
		if math.IsNaN(a) || math.IsNaN(b) {
			return math.IsNaN(a) && math.IsNaN(b)
		}
		return math.Abs(a-b) < 1e-6
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := DiffIndependent(tt.base, tt.x, tt.conf)
			if !near(got.Delta, tt.wantDelta) || !near(got.Lo, tt.wantLo) || !near(got.Hi, tt.wantHi) || !near(got.P, tt.wantP) {
				t.Errorf("got delta %g [%g, %g] p %g; want %g [%g, %g] p %g", got.Delta, got.Lo, got.Hi, got.P, tt.wantDelta, tt.wantLo, tt.wantHi, tt.wantP)
			}
			if (len(got.Warnings) > 0) != tt.wantWarn {
				t.Errorf("warnings = %q, want some: %v", got.Warnings, tt.wantWarn)
			}
		})
	}
}

// TestDiffIndependentCoverage checks the claim that t intervals read as
// normal ones give a conservative (at least nominal) difference interval:
// for two slopes estimated from small normal samples with t intervals, the
// 95% difference interval covers the true difference at least 95% of the
// time (deterministic generator, 4000 replications).
func TestDiffIndependentCoverage(t *testing.T) {
	r := newRand(7)
	const reps, n = 4000, 6
	covered := 0
	for i := 0; i < reps; i++ {
		mk := func(mu float64) Estimate {
			xs := make([]float64, n)
			for j := range xs {
				xs[j] = mu + r.NormFloat64()
			}
			s := Normal(xs, 0.95)
			return Estimate{s.Mean, s.Lo, s.Hi, 0.95}
		}
		d := DiffIndependent(mk(10), mk(13), 0.95)
		if d.Lo <= 3 && 3 <= d.Hi {
			covered++
		}
	}
	if got := float64(covered) / reps; got < 0.94 {
		t.Errorf("coverage = %.3f, want >= 0.95 (conservative) within Monte Carlo error", got)
	}
}
