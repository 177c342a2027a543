package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// seq returns from+shift, ..., to+shift in steps of 1.
func seq(from, to, shift float64) []float64 {
	var out []float64
	for x := from; x <= to; x++ {
		out = append(out, x+shift)
	}
	return out
}

func TestMannWhitney(t *testing.T) {
	tests := []struct {
		name string
		a, b []float64
		want float64
	}{
		{
			// Sleep data (ties: 0.8, -0.1, 3.4 each twice). Rank sum of
			// group 1 = 80.5, U = 25.5. The exact distribution of U given
			// the ties: 6080 of the C(20,10) = 184756 ways to split the
			// pooled values give U ≤ 25.5, p = 2·6080/184756 = 0.0658165
			// (counted by enumerating every split). R, which has no exact
			// test with ties, prints the normal approximation 0.06933.
			name: "sleep with ties", a: sleep1, b: sleep2, want: 0.0658165,
		},
		{
			// No ties: U = 0, exact p = 2/C(6,3) = 0.1
			// (R: wilcox.test(1:3, 4:6) gives p-value = 0.1).
			name: "separated", a: []float64{1, 2, 3}, b: []float64{4, 5, 6}, want: 0.1,
		},
		{name: "symmetric in order", a: []float64{4, 5, 6}, b: []float64{1, 2, 3}, want: 0.1},
		{
			// R: wilcox.test(1:5, 6:10) gives p-value = 0.007937 = 2/252.
			name: "separated, five each", a: []float64{1, 2, 3, 4, 5}, b: []float64{6, 7, 8, 9, 10}, want: 2.0 / 252,
		},
		{
			// Above 50 values per sample: the normal approximation,
			// U = 1540, z = (|1540 − 1800| − ½)/√(3600·121/12) = 1.362022,
			// p = 0.173191 (R: wilcox.test(1:60, 1:60 + 4.5, exact =
			// FALSE)).
			name: "large, normal approximation", a: seq(1, 60, 0), b: seq(1, 60, 4.5), want: 0.173191,
		},
		{name: "all equal", a: []float64{2, 2, 2}, b: []float64{2, 2}, want: 1},
		// Identical samples: |U - μ| = 0 < ½, continuity correction clamps z to 0.
		{name: "identical", a: []float64{1, 2, 3, 4}, b: []float64{1, 2, 3, 4}, want: 1},
		{name: "empty", a: nil, b: []float64{1}, want: math.NaN()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MannWhitney(tt.a, tt.b); !near(got, tt.want, 1e-6) {
				t.Errorf("MannWhitney = %.8f; want %.8f", got, tt.want)
			}
		})
	}
}

func TestRobust(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	xs := make([]float64, 25)
	for i := range xs {
		xs[i] = 1000 + 30*r.NormFloat64()
	}
	a := Robust(xs, 0.95, 42)
	b := Robust(xs, 0.95, 42)
	if a.Lo != b.Lo || a.Hi != b.Hi {
		t.Errorf("same seed: [%v, %v] then [%v, %v]; want identical", a.Lo, a.Hi, b.Lo, b.Hi)
	}
	// Bootstrap medians of 25 values take few distinct values, so with
	// 10000 resamples the percentiles land on the same order statistics for
	// most seeds. With 50 resamples they interpolate, and seeds must differ.
	few := Thresholds{Resamples: 50}.withDefaults()
	s1, s2 := robust(xs, 0.95, 1, few), robust(xs, 0.95, 2, few)
	if s1.Lo == s2.Lo && s1.Hi == s2.Hi {
		t.Errorf("seeds 1 and 2 gave the same 50-resample interval [%v, %v]; the seed is ignored", s1.Lo, s1.Hi)
	}
	if a.Center != a.Median || a.Median != Median(xs) {
		t.Errorf("Center = %v, Median = %v; want the median %v", a.Center, a.Median, Median(xs))
	}
	if !(a.Lo < a.Median && a.Median < a.Hi) {
		t.Errorf("interval [%v, %v] does not contain the median %v", a.Lo, a.Hi, a.Median)
	}
	// The interval must lie within the data range and be much narrower than
	// it: with n = 25 the median's standard error is about 1.25·30/5 = 7.5.
	if lo, hi := slices.Min(xs), slices.Max(xs); a.Lo < lo || a.Hi > hi || a.Hi-a.Lo > 60 {
		t.Errorf("interval [%v, %v]; want inside [%v, %v] and narrower than 60", a.Lo, a.Hi, lo, hi)
	}
	if len(a.Warnings) != 0 {
		t.Errorf("Warnings = %q; want none for 25 samples", a.Warnings)
	}
	wide := Robust(xs, 0.99, 42)
	if !(wide.Lo <= a.Lo && wide.Hi >= a.Hi) {
		t.Errorf("99%% interval [%v, %v] does not contain 95%% interval [%v, %v]", wide.Lo, wide.Hi, a.Lo, a.Hi)
	}

	tests := []struct {
		name string
		xs   []float64
		conf float64
		warn string
		nan  bool
	}{
		{name: "few samples", xs: []float64{1, 2, 3, 4, 5}, conf: 0.95, warn: "needs at least 10"},
		{name: "one sample", xs: []float64{1}, conf: 0.95, warn: "need at least 3", nan: true},
		{name: "bad confidence", xs: xs, conf: -0.5, warn: "confidence outside", nan: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Robust(tt.xs, tt.conf, 1)
			if !hasWarning(got.Warnings, tt.warn) {
				t.Errorf("Warnings = %q; want one containing %q", got.Warnings, tt.warn)
			}
			if gotNaN := math.IsNaN(got.Lo) || math.IsNaN(got.Hi); gotNaN != tt.nan {
				t.Errorf("interval [%v, %v]; want NaN bounds: %v", got.Lo, got.Hi, tt.nan)
			}
		})
	}
}

func TestRobustDiff(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	base, x := make([]float64, 20), make([]float64, 20)
	for i := range base {
		base[i] = 1000 + 20*r.NormFloat64()
		x[i] = 1300 + 20*r.NormFloat64()
	}
	d := RobustDiff(base, x, 0.95, 7)
	again := RobustDiff(base, x, 0.95, 7)
	if d.Lo != again.Lo || d.Hi != again.Hi {
		t.Errorf("same seed: [%v, %v] then [%v, %v]; want identical", d.Lo, d.Hi, again.Lo, again.Hi)
	}
	if want := Median(x) - Median(base); d.Delta != want {
		t.Errorf("Delta = %v; want %v", d.Delta, want)
	}
	if !(d.Lo < d.Delta && d.Delta < d.Hi) || !(d.Lo > 250 && d.Hi < 350) {
		t.Errorf("interval [%v, %v]; want around %v within (250, 350)", d.Lo, d.Hi, d.Delta)
	}
	if want := 100 * d.Delta / Median(base); !near(d.Pct, want, 1e-9) {
		t.Errorf("Pct = %v; want %v", d.Pct, want)
	}
	if want := MannWhitney(base, x); d.P != want || d.P > 1e-6 {
		t.Errorf("P = %v; want MannWhitney %v and < 1e-6", d.P, want)
	}
	if !math.IsNaN(d.DF) {
		t.Errorf("DF = %v; want NaN", d.DF)
	}
}

func TestOutliers(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	clean := make([]float64, 30)
	for i := range clean {
		clean[i] = 1000 + 10*r.NormFloat64()
	}
	planted := slices.Clone(clean)
	planted[4] = 5000 // a child that was descheduled
	planted[17] = 700 // implausibly fast
	planted[29] = 1100
	tests := []struct {
		name string
		xs   []float64
		k    float64
		want []int
	}{
		{name: "planted", xs: planted, k: 3.5, want: []int{4, 17, 29}},
		{name: "default k", xs: planted, k: 0, want: []int{4, 17, 29}},
		{name: "clean", xs: clean, k: 3.5, want: nil},
		// MAD = 0 (most values equal): falls back to the mean absolute
		// deviation. Median 10, deviations {0×7, 1, 50}: MeanAD = 51/9,
		// scale 1.253314·51/9 = 7.1021; z = 0.14 and 7.04.
		{name: "mad zero", xs: []float64{10, 10, 10, 10, 11, 10, 60, 10, 10}, k: 3.5, want: []int{6}},
		{name: "all equal", xs: []float64{3, 3, 3, 3}, k: 3.5, want: nil},
		{name: "too few", xs: []float64{1, 100}, k: 3.5, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Outliers(tt.xs, tt.k); !slices.Equal(got, tt.want) {
				t.Errorf("Outliers = %v; want %v", got, tt.want)
			}
		})
	}
}
