package stats

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

var stdCounts = []int{0, 1, 2, 4, 8, 16, 32}

// truth is the synthetic cost model: ns/op = base + entry·[N≥1] +
// slope·N + drift·Seq + Normal(0, noise).
type truth struct {
	base, entry, slope, drift, noise float64
}

func (tr truth) cost(n, seq int, r *rand.Rand) float64 {
	y := tr.base + tr.slope*float64(n) + tr.drift*float64(seq) + tr.noise*r.NormFloat64()
	if n > 0 {
		y += tr.entry
	}
	return y
}

// simulate runs `blocks` trials of every count of one variant. Randomized:
// each block holds every count once in shuffled order (as the runner does).
// Ordered: all trials of count 0 first, then count 1, and so on, so Seq
// rises with N and a drift masquerades as per-filter cost.
func simulate(tr truth, variant string, counts []int, blocks int, randomized bool, r *rand.Rand) []Observation {
	var obs []Observation
	seq := 0
	add := func(n, b int) {
		obs = append(obs, Observation{Variant: variant, Filters: n, Block: b, Seq: seq, NsPerOp: tr.cost(n, seq, r)})
		seq++
	}
	if randomized {
		order := append([]int(nil), counts...)
		for b := range blocks {
			r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
			for _, n := range order {
				add(n, b)
			}
		}
		return obs
	}
	for _, n := range counts {
		for b := range blocks {
			add(n, b)
		}
	}
	return obs
}

// withoutSeq returns obs with every Seq set to 0, which makes FitStack drop
// the drift covariate: the naive model y = b0 + entry·[N≥1] + slope·N.
func withoutSeq(obs []Observation) []Observation {
	out := append([]Observation(nil), obs...)
	for i := range out {
		out[i].Seq = 0
	}
	return out
}

func TestFitStackExact(t *testing.T) {
	// No noise, no drift: the fit is exact and R² = 1.
	tr := truth{base: 1000, entry: 180, slope: 20}
	obs := simulate(tr, "defeat", stdCounts, 3, true, rand.New(rand.NewPCG(1, 1)))
	f, err := FitStack(obs, 0.95)
	if err != nil {
		t.Fatalf("FitStack: %v", err)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"PerFilter", f.PerFilter, 20}, {"Entry", f.Entry, 180}, {"Baseline", f.Baseline, 1000},
		{"Drift", f.Drift, 0}, {"R2", f.R2, 1}, {"DF", f.DF, float64(len(obs) - 4)},
	} {
		if !near(c.got, c.want, 1e-7) {
			t.Errorf("%s = %v; want %v", c.name, c.got, c.want)
		}
	}
	if f.Variant != "defeat" || f.N != 21 || f.SeqSpan != 20 || f.Confidence != 0.95 {
		t.Errorf("Variant, N, SeqSpan, Confidence = %q, %d, %d, %v; want defeat, 21, 20, 0.95", f.Variant, f.N, f.SeqSpan, f.Confidence)
	}
	if len(f.Warnings) != 0 {
		t.Errorf("Warnings = %q; want none", f.Warnings)
	}
}

func TestFitStackDriftRobust(t *testing.T) {
	// Strong drift: 3 ns/op per child over 70 children moves the baseline by
	// 210 ns, as much as the entry cost and a third of 32 filters.
	tr := truth{base: 1000, entry: 200, slope: 20, drift: 3, noise: 5}
	tests := []struct {
		name       string
		randomized bool
		seed       uint64
	}{
		{"randomized blocks", true, 11},
		{"cells in order", false, 12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obs := simulate(tr, "defeat", stdCounts, 10, tt.randomized, rand.New(rand.NewPCG(tt.seed, 0)))
			f, err := FitStack(obs, 0.95)
			if err != nil {
				t.Fatalf("FitStack: %v", err)
			}
			// The slope's standard error here is about 0.1 ns; 0.5 ns is ~5 SE.
			if !near(f.PerFilter, tr.slope, 0.5) {
				t.Errorf("PerFilter = %.3f; want %v ± 0.5", f.PerFilter, tr.slope)
			}
			if !near(f.Entry, tr.entry, 6) {
				t.Errorf("Entry = %.3f; want %v ± 6", f.Entry, tr.entry)
			}
			if !near(f.Drift, tr.drift, 0.1) {
				t.Errorf("Drift = %.4f; want %v ± 0.1", f.Drift, tr.drift)
			}
			if !(f.PerFilterLo <= tr.slope && tr.slope <= f.PerFilterHi) {
				t.Errorf("PerFilter interval [%.3f, %.3f] misses %v", f.PerFilterLo, f.PerFilterHi, tr.slope)
			}
			if !(f.DriftLo > 0) {
				t.Errorf("Drift interval [%.4f, %.4f]; want it to exclude 0", f.DriftLo, f.DriftHi)
			}

			naive, err := FitStack(withoutSeq(obs), 0.95)
			if err != nil {
				t.Fatalf("FitStack without Seq: %v", err)
			}
			if !hasWarning(naive.Warnings, "drift is not modeled") {
				t.Errorf("naive Warnings = %q; want the drift-not-modeled warning", naive.Warnings)
			}
			bias := naive.PerFilter - tr.slope
			t.Logf("per-filter: with Seq %.3f, without Seq %.3f (bias %+.3f ns)", f.PerFilter, naive.PerFilter, bias)
			switch {
			case !tt.randomized && math.Abs(bias) < 2:
				// Proves the scenario is hard: without the covariate the
				// ordered run is biased far outside its own interval, so
				// the check on f above can only pass because FitStack
				// models drift.
				t.Errorf("naive per-filter bias = %.3f ns; want > 2 ns in an ordered run", bias)
			case tt.randomized && math.Abs(bias) > 1:
				// Randomized blocks alone decorrelate drift from N.
				t.Errorf("naive per-filter bias = %.3f ns; want < 1 ns with randomized blocks", bias)
			}
		})
	}
}

func TestFitStackCases(t *testing.T) {
	tr := truth{base: 1000, entry: 200, slope: 20, drift: 0.5, noise: 3}
	r := rand.New(rand.NewPCG(21, 0))
	full := simulate(tr, "defeat", stdCounts, 4, true, r)
	var noBase, single, mixed []Observation
	for _, o := range full {
		if o.Filters > 0 {
			noBase = append(noBase, o)
		}
		if o.Filters == 0 || o.Filters == 8 {
			single = append(single, o)
		}
		m := o
		if o.Filters == 16 {
			m.Variant = "on"
		}
		mixed = append(mixed, m)
	}
	// Baseline children of another variant may serve as the shared baseline.
	sharedBase := append([]Observation(nil), full...)
	for i := range sharedBase {
		if sharedBase[i].Filters == 0 {
			sharedBase[i].Variant = "on"
		}
	}
	// Exactly as many observations as parameters (4): no residual df.
	exact := []Observation{
		{Filters: 0, Seq: 0, NsPerOp: 1000}, {Filters: 1, Seq: 1, NsPerOp: 1220},
		{Filters: 2, Seq: 2, NsPerOp: 1240}, {Filters: 4, Seq: 3, NsPerOp: 1280},
	}
	nan := math.NaN()
	tests := []struct {
		name    string
		obs     []Observation
		conf    float64
		wantErr error
		entry   float64 // NaN: want NaN; else tolerance-checked
		warn    string
		noCI    bool
	}{
		{name: "full", obs: full, conf: 0.95, entry: 200},
		{name: "shared baseline", obs: sharedBase, conf: 0.95, entry: 200},
		{name: "no baseline", obs: noBase, conf: 0.95, entry: nan, warn: "no N = 0"},
		{name: "one count", obs: single, conf: 0.95, wantErr: ErrNotIdentifiable},
		{name: "mixed variants", obs: mixed, conf: 0.95, wantErr: ErrMixedVariants},
		{name: "no residual df", obs: exact, conf: 0.95, entry: 200, warn: "need at least 5", noCI: true},
		{name: "confidence 0", obs: full, conf: 0, wantErr: ErrConfidence},
		{name: "empty", obs: nil, conf: 0.95, wantErr: ErrNoObservations},
		{name: "NaN value", obs: append(append([]Observation(nil), full...), Observation{Filters: 2, NsPerOp: nan}), conf: 0.95, wantErr: ErrBadValue},
		{name: "negative count", obs: append(append([]Observation(nil), full...), Observation{Filters: -1, NsPerOp: 1}), conf: 0.95, wantErr: ErrNegativeFilters},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := FitStack(tt.obs, tt.conf)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("FitStack error = %v; want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("FitStack: %v", err)
			}
			if !near(f.PerFilter, 20, 1) {
				t.Errorf("PerFilter = %v; want 20 ± 1", f.PerFilter)
			}
			if math.IsNaN(tt.entry) {
				if !math.IsNaN(f.Entry) || !math.IsNaN(f.Baseline) {
					t.Errorf("Entry, Baseline = %v, %v; want NaN", f.Entry, f.Baseline)
				}
			} else if !near(f.Entry, tt.entry, 10) {
				t.Errorf("Entry = %v; want %v ± 10", f.Entry, tt.entry)
			}
			if tt.warn == "" && len(f.Warnings) > 0 {
				t.Errorf("Warnings = %q; want none", f.Warnings)
			}
			if tt.warn != "" && !hasWarning(f.Warnings, tt.warn) {
				t.Errorf("Warnings = %q; want one containing %q", f.Warnings, tt.warn)
			}
			if gotNoCI := math.IsNaN(f.PerFilterLo); gotNoCI != tt.noCI {
				t.Errorf("PerFilter interval [%v, %v]; want NaN: %v", f.PerFilterLo, f.PerFilterHi, tt.noCI)
			}
		})
	}
}

func TestPreciseTo(t *testing.T) {
	tests := []struct {
		name     string
		f        Fit
		abs, rel float64
		want     bool
	}{
		{"relative met", Fit{PerFilter: 20, PerFilterLo: 19.5, PerFilterHi: 20.5}, 0, 0.05, true},
		{"relative missed", Fit{PerFilter: 20, PerFilterLo: 18, PerFilterHi: 22}, 0, 0.05, false},
		{"zero slope uses absolute floor", Fit{PerFilter: 0.1, PerFilterLo: -0.4, PerFilterHi: 0.6}, 1, 0.05, true},
		{"no interval", Fit{PerFilter: 20, PerFilterLo: math.NaN(), PerFilterHi: math.NaN()}, 100, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.f.PreciseTo(tt.abs, tt.rel); got != tt.want {
				t.Errorf("PreciseTo(%v, %v) = %v; want %v", tt.abs, tt.rel, got, tt.want)
			}
		})
	}
}

func TestDriftEstimate(t *testing.T) {
	line := func(n int, a, b float64) []Observation {
		obs := make([]Observation, n)
		for i := range obs {
			obs[i] = Observation{Variant: "on", Seq: 7 * i, NsPerOp: a + b*float64(7*i)}
		}
		return obs
	}
	r := rand.New(rand.NewPCG(31, 0))
	noisy := line(20, 1000, 0.8)
	for i := range noisy {
		noisy[i].NsPerOp += 10 * r.NormFloat64()
	}
	flat := line(20, 1000, 0)
	for i := range flat {
		flat[i].NsPerOp += 10 * r.NormFloat64()
	}
	sameSeq := line(5, 1000, 0)
	for i := range sameSeq {
		sameSeq[i].Seq = 3
	}
	tests := []struct {
		name        string
		obs         []Observation
		wantErr     error
		slope, tol  float64
		significant bool
		warn        string
	}{
		{name: "exact line", obs: line(5, 1000, 2), slope: 2, tol: 1e-9, significant: true},
		{name: "noisy drift", obs: noisy, slope: 0.8, tol: 0.15, significant: true},
		{name: "no drift", obs: flat, slope: 0, tol: 0.15},
		{name: "two points", obs: line(2, 1000, 2), slope: 2, tol: 1e-9, warn: "need at least 3"},
		{name: "constant seq", obs: sameSeq, wantErr: ErrNotIdentifiable},
		{name: "empty", obs: nil, wantErr: ErrNoObservations},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DriftEstimate(tt.obs, 0.95)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("DriftEstimate error = %v; want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("DriftEstimate: %v", err)
			}
			if !near(got.Slope, tt.slope, tt.tol) {
				t.Errorf("Slope = %v; want %v ± %v", got.Slope, tt.slope, tt.tol)
			}
			if sig := got.SlopeLo > 0 || got.SlopeHi < 0; sig != tt.significant {
				t.Errorf("interval [%v, %v] excludes 0: %v; want %v", got.SlopeLo, got.SlopeHi, sig, tt.significant)
			}
			if tt.warn != "" && !hasWarning(got.Warnings, tt.warn) {
				t.Errorf("Warnings = %q; want one containing %q", got.Warnings, tt.warn)
			}
			if got.Variant != "on" || got.SeqSpan != 7*(len(tt.obs)-1) {
				t.Errorf("Variant, SeqSpan = %q, %d; want on, %d", got.Variant, got.SeqSpan, 7*(len(tt.obs)-1))
			}
		})
	}
	if _, err := DriftEstimate(flat, 1.5); !errors.Is(err, ErrConfidence) {
		t.Errorf("DriftEstimate(confidence 1.5) error = %v; want ErrConfidence", err)
	}
}
