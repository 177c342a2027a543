package stats

import (
	"math"
	"strings"
	"testing"
)

// Student's sleep data (Cushny & Peebles 1905, as analysed by Student 1908;
// R's datasets::sleep): extra hours of sleep of 10 patients under two drugs.
var (
	sleep1 = []float64{0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0}
	sleep2 = []float64{1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4}
	// sleepDiff = sleep2 - sleep1 per patient.
	sleepDiff = []float64{1.2, 2.4, 1.3, 1.3, 0.0, 1.0, 1.8, 0.8, 4.6, 1.4}
)

func near(got, want, tol float64) bool {
	if math.IsNaN(want) {
		return math.IsNaN(got)
	}
	return math.Abs(got-want) <= tol
}

func hasWarning(ws []string, sub string) bool {
	for _, w := range ws {
		if strings.Contains(w, sub) {
			return true
		}
	}
	return false
}

func TestNormal(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name                     string
		xs                       []float64
		conf                     float64
		mean, median, sd, lo, hi float64
		warn                     string // substring of an expected warning, "" for none
	}{
		{
			// Sleep differences: Σ = 15.8, mean 1.58, s = 1.2299955,
			// s/√10 = 0.3889587, t(0.975, 9) = 2.262157 (t table), so
			// 1.58 ± 0.879886 = [0.7001142, 2.4598858]: R's paired t.test
			// on datasets::sleep prints exactly this interval.
			name: "sleep differences 95%", xs: sleepDiff, conf: 0.95,
			mean: 1.58, median: 1.3, sd: 1.2299955, lo: 0.7001142, hi: 2.4598858,
		},
		{
			// 1..5: mean 3, s = √2.5 = 1.5811388, t(0.95, 4) = 2.131847,
			// half-width 2.131847·1.5811388/√5 = 1.5074435.
			name: "one to five 90%", xs: []float64{1, 2, 3, 4, 5}, conf: 0.90,
			mean: 3, median: 3, sd: 1.5811388, lo: 1.4925565, hi: 4.5074435,
		},
		{
			name: "constant", xs: []float64{7, 7, 7, 7}, conf: 0.95,
			mean: 7, median: 7, sd: 0, lo: 7, hi: 7, warn: "zero width",
		},
		{
			name: "two samples", xs: []float64{1, 3}, conf: 0.95,
			// t(0.975, 1) = 12.706205; s = √2; half = 12.706205·√2/√2.
			mean: 2, median: 2, sd: math.Sqrt2, lo: 2 - 12.706205, hi: 2 + 12.706205, warn: "need at least 3",
		},
		{
			name: "one sample", xs: []float64{5}, conf: 0.95,
			mean: 5, median: 5, sd: nan, lo: nan, hi: nan, warn: "need at least 3",
		},
		{
			name: "empty", xs: nil, conf: 0.95,
			mean: nan, median: nan, sd: nan, lo: nan, hi: nan, warn: "no samples",
		},
		{
			name: "confidence 1 rejected", xs: sleepDiff, conf: 1,
			mean: 1.58, median: 1.3, sd: 1.2299955, lo: nan, hi: nan, warn: "confidence outside",
		},
		{
			name: "confidence 95 rejected", xs: sleepDiff, conf: 95,
			mean: 1.58, median: 1.3, sd: 1.2299955, lo: nan, hi: nan, warn: "confidence outside",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Normal(tt.xs, tt.conf)
			if got.N != len(tt.xs) || got.Confidence != tt.conf {
				t.Errorf("N, Confidence = %d, %v; want %d, %v", got.N, got.Confidence, len(tt.xs), tt.conf)
			}
			for _, c := range []struct {
				name      string
				got, want float64
			}{
				{"Mean", got.Mean, tt.mean}, {"Center", got.Center, tt.mean}, {"Median", got.Median, tt.median},
				{"StdDev", got.StdDev, tt.sd}, {"Lo", got.Lo, tt.lo}, {"Hi", got.Hi, tt.hi},
			} {
				if !near(c.got, c.want, 1e-6) {
					t.Errorf("%s = %.9g; want %.9g", c.name, c.got, c.want)
				}
			}
			if tt.warn == "" && len(got.Warnings) > 0 {
				t.Errorf("Warnings = %q; want none", got.Warnings)
			}
			if tt.warn != "" && !hasWarning(got.Warnings, tt.warn) {
				t.Errorf("Warnings = %q; want one containing %q", got.Warnings, tt.warn)
			}
		})
	}
}

func TestWelch(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name                      string
		base, x                   []float64
		conf                      float64
		delta, lo, hi, p, df, pct float64
		warn                      string
	}{
		{
			// Sleep data, x = group 1, base = group 2. By hand:
			// means 0.75 and 2.33, variances 3.2005556 and 4.009;
			// s²/n = 0.32005556 and 0.4009, SE = √0.72095556 = 0.8490910;
			// ν = 0.72095556² / (0.32005556²/9 + 0.4009²/9) = 17.776474;
			// t = -1.58/0.8490910 = -1.8608. R's default
			// t.test(extra ~ group, data = sleep) prints t = -1.8608,
			// df = 17.776, p-value = 0.07939, 95 % CI [-3.3654832, 0.2054832].
			name: "sleep", base: sleep2, x: sleep1, conf: 0.95,
			delta: -1.58, lo: -3.3654832, hi: 0.2054832, p: 0.07939, df: 17.776474,
			pct: -100 * 1.58 / 2.33,
		},
		{
			// Mirror image: swapping the samples flips the signs.
			name: "sleep swapped", base: sleep1, x: sleep2, conf: 0.95,
			delta: 1.58, lo: -0.2054832, hi: 3.3654832, p: 0.07939, df: 17.776474,
			pct: 100 * 1.58 / 0.75,
		},
		{
			// {1,2,3} and {4,5,6}: equal variances s² = 1 and sizes, so
			// ν = 2(n-1) = 4; SE = √(1/3 + 1/3) = 0.8164966,
			// t(0.975, 4) = 2.776445 (t table), half-width 2.2669579;
			// t = 3/0.8164966 = 3.6742346, two-sided p = 0.021311.
			name: "equal spread", base: []float64{1, 2, 3}, x: []float64{4, 5, 6}, conf: 0.95,
			delta: 3, lo: 3 - 2.2669579, hi: 3 + 2.2669579, p: 0.021311, df: 4, pct: 150,
			warn: "",
		},
		{
			name: "both constant", base: []float64{10, 10, 10}, x: []float64{12, 12, 12}, conf: 0.95,
			delta: 2, lo: 2, hi: 2, p: 0, df: 4, pct: 20, warn: "constant",
		},
		{
			name: "one baseline sample", base: []float64{10}, x: []float64{12, 13, 14}, conf: 0.95,
			delta: 3, lo: nan, hi: nan, p: nan, df: nan, pct: 30, warn: "baseline has 1 samples",
		},
		{
			name: "bad confidence", base: sleep2, x: sleep1, conf: 0,
			delta: -1.58, lo: nan, hi: nan, p: nan, df: nan, pct: -100 * 1.58 / 2.33, warn: "confidence outside",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Welch(tt.base, tt.x, tt.conf)
			if got.N1 != len(tt.base) || got.N2 != len(tt.x) {
				t.Errorf("N1, N2 = %d, %d; want %d, %d", got.N1, got.N2, len(tt.base), len(tt.x))
			}
			for _, c := range []struct {
				name           string
				got, want, tol float64
			}{
				{"Delta", got.Delta, tt.delta, 1e-9}, {"Lo", got.Lo, tt.lo, 1e-6}, {"Hi", got.Hi, tt.hi, 1e-6},
				{"P", got.P, tt.p, 1e-5}, {"DF", got.DF, tt.df, 1e-5}, {"Pct", got.Pct, tt.pct, 1e-9},
			} {
				if !near(c.got, c.want, c.tol) {
					t.Errorf("%s = %.9g; want %.9g", c.name, c.got, c.want)
				}
			}
			if !math.IsNaN(tt.lo) {
				mb := mean(tt.base)
				if !near(got.PctLo, 100*tt.lo/mb, 1e-4) || !near(got.PctHi, 100*tt.hi/mb, 1e-4) {
					t.Errorf("PctLo, PctHi = %v, %v; want %v, %v", got.PctLo, got.PctHi, 100*tt.lo/mb, 100*tt.hi/mb)
				}
			}
			if tt.warn == "" && len(got.Warnings) > 0 {
				t.Errorf("Warnings = %q; want none", got.Warnings)
			}
			if tt.warn != "" && !hasWarning(got.Warnings, tt.warn) {
				t.Errorf("Warnings = %q; want one containing %q", got.Warnings, tt.warn)
			}
		})
	}
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func TestHalfWidth(t *testing.T) {
	s := Summary{Center: 100, Lo: 90, Hi: 110}
	if got, want := s.HalfWidth(), 10.0; got != want {
		t.Errorf("HalfWidth = %v; want %v", got, want)
	}
	if got, want := s.RelHalfWidth(), 0.1; !near(got, want, 1e-12) {
		t.Errorf("RelHalfWidth = %v; want %v", got, want)
	}
	d := Diff{Delta: 5, Lo: 1, Hi: 9}
	if got, want := d.HalfWidth(), 4.0; got != want {
		t.Errorf("Diff.HalfWidth = %v; want %v", got, want)
	}
	for _, tt := range []struct {
		d    Diff
		want bool
	}{{Diff{Lo: 1, Hi: 9}, true}, {Diff{Lo: -9, Hi: -1}, true}, {Diff{Lo: -1, Hi: 9}, false}, {Diff{Lo: math.NaN(), Hi: math.NaN()}, false}} {
		if got := tt.d.Significant(); got != tt.want {
			t.Errorf("Diff{Lo: %v, Hi: %v}.Significant() = %v; want %v", tt.d.Lo, tt.d.Hi, got, tt.want)
		}
	}
}

// TestUpperMedian: the element at n/2 of the sorted values, never an
// average, and the input stays as it was.
func TestUpperMedian(t *testing.T) {
	for _, tt := range []struct {
		in   []int64
		want int64
	}{
		{nil, 0},
		{[]int64{7}, 7},
		{[]int64{9, 1, 5}, 5},
		{[]int64{4, 10, 2, 8}, 8}, // 6 would be the averaged median
		{[]int64{3, 3, 1, 3}, 3},
	} {
		in := append([]int64(nil), tt.in...)
		if got := UpperMedian(tt.in); got != tt.want {
			t.Errorf("UpperMedian(%v) = %d, want %d", tt.in, got, tt.want)
		}
		for i := range in {
			if in[i] != tt.in[i] {
				t.Errorf("UpperMedian modified its input: %v, was %v", tt.in, in)
				break
			}
		}
	}
}
