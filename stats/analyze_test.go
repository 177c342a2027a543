package stats

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// twoVariants simulates a run in randomized blocks over both variants: every
// block holds each (variant, count) cell once, shuffled, Seq counting across
// the whole run.
func twoVariants(blocks int, on, defeat truth, seed uint64) []Observation {
	r := rand.New(rand.NewPCG(seed, 0))
	type cell struct {
		v  string
		n  int
		tr truth
	}
	var cells []cell
	for _, n := range stdCounts {
		cells = append(cells, cell{"on", n, on}, cell{"defeat", n, defeat})
	}
	var obs []Observation
	seq := 0
	for b := range blocks {
		r.Shuffle(len(cells), func(i, j int) { cells[i], cells[j] = cells[j], cells[i] })
		for _, c := range cells {
			obs = append(obs, Observation{Variant: c.v, Filters: c.n, Block: b, Seq: seq, NsPerOp: c.tr.cost(c.n, seq, r)})
			seq++
		}
	}
	return obs
}

var (
	cachedTruth   = truth{base: 1000, noise: 10}
	defeatedTruth = truth{base: 1000, entry: 200, slope: 20, noise: 10}
)

func TestAnalyze(t *testing.T) {
	obs := twoVariants(8, cachedTruth, defeatedTruth, 1)
	res, err := Analyze(obs, Options{Variants: []string{"on", "defeat"}, Seed: 9})
	if err != nil {
		t.Fatalf("Analyze: %v", err)
	}
	if res.Confidence != DefaultConfidence || res.Robust {
		t.Errorf("Confidence, Robust = %v, %v; want %v, false", res.Confidence, res.Robust, DefaultConfidence)
	}
	if got, want := len(res.Cells), 2*len(stdCounts); got != want {
		t.Fatalf("%d cells; want %d", got, want)
	}
	for i, c := range res.Cells {
		wantV, wantN := "on", stdCounts[i%len(stdCounts)]
		if i >= len(stdCounts) {
			wantV = "defeat"
		}
		if c.Variant != wantV || c.Filters != wantN {
			t.Errorf("cell %d = (%q, %d); want (%q, %d)", i, c.Variant, c.Filters, wantV, wantN)
		}
		if c.Summary.N != 8 || len(c.Samples) != 8 {
			t.Errorf("cell %d: N = %d, %d samples; want 8", i, c.Summary.N, len(c.Samples))
		}
		if c.Summary.Center != c.Summary.Mean {
			t.Errorf("cell %d: Center %v != Mean %v", i, c.Summary.Center, c.Summary.Mean)
		}
		tr := cachedTruth
		if c.Variant == "defeat" {
			tr = defeatedTruth
		}
		wantDelta := tr.slope * float64(c.Filters)
		if c.Filters > 0 {
			wantDelta += tr.entry
		}
		// Each mean has SE 10/√8 = 3.5 ns; the overhead SE is 5 ns.
		if !near(c.Overhead.Delta, wantDelta, 20) {
			t.Errorf("cell (%q, %d): overhead %v; want %v ± 20", c.Variant, c.Filters, c.Overhead.Delta, wantDelta)
		}
		if c.Filters == 0 && (c.Overhead.Delta != 0 || c.Overhead.Lo != 0 || c.Overhead.Hi != 0 || c.Overhead.P != 1) {
			t.Errorf("baseline cell %q overhead = %+v; want zero with P = 1", c.Variant, c.Overhead)
		}
		if c.Variant == "defeat" && c.Filters > 0 && !c.Overhead.Significant() {
			t.Errorf("cell (defeat, %d): overhead [%v, %v] not significant", c.Filters, c.Overhead.Lo, c.Overhead.Hi)
		}
	}
	// Samples are in run order.
	var last int = -1
	for _, o := range obs {
		if o.Variant == "defeat" && o.Filters == 32 {
			if o.NsPerOp != res.Cells[len(res.Cells)-1].Samples[last+1] {
				t.Errorf("samples of (defeat, 32) not in Seq order")
			}
			last++
		}
	}

	if len(res.Fits) != 2 || res.Fits[0].Variant != "on" || res.Fits[1].Variant != "defeat" {
		t.Fatalf("Fits = %d fits; want on then defeat", len(res.Fits))
	}
	on, _ := res.Fit("on")
	def, ok := res.Fit("defeat")
	if !ok {
		t.Fatal(`Fit("defeat") missing`)
	}
	if !near(on.PerFilter, 0, 0.5) || !near(on.Entry, 0, 15) {
		t.Errorf("on: PerFilter, Entry = %v, %v; want 0 ± 0.5, 0 ± 15", on.PerFilter, on.Entry)
	}
	if !near(def.PerFilter, 20, 0.5) || !near(def.Entry, 200, 15) || !near(def.Baseline, 1000, 10) {
		t.Errorf("defeat: PerFilter, Entry, Baseline = %v, %v, %v; want 20, 200, 1000", def.PerFilter, def.Entry, def.Baseline)
	}
	// The defeat fit uses its own cells plus its own N = 0 cell: 7 × 8.
	if def.N != 56 {
		t.Errorf("defeat fit N = %d; want 56", def.N)
	}
	if _, ok := res.Fit("missing"); ok {
		t.Error(`Fit("missing") found`)
	}
	// With 8 normal samples per cell the MAD is itself noisy, so the
	// outlier rule may flag a value now and then; 8 blocks are too few
	// for time segments (segments.go), said once for the run; nothing
	// else may warn.
	short := 0
	for _, w := range res.AllWarnings() {
		switch {
		case strings.Contains(w, "8 blocks: too few for 3 time segments"):
			short++
		case !strings.Contains(w, "outliers by the median/MAD rule"):
			t.Errorf("warning %q; want none but outlier reports and the short-run one", w)
		}
	}
	if short != 1 || def.Segments != 0 || !math.IsNaN(def.SegmentSD) {
		t.Errorf("8 blocks: short-run warning %d times, Segments %d, SegmentSD %v; want once, 0, NaN", short, def.Segments, def.SegmentSD)
	}
}

func TestAnalyzeWarnings(t *testing.T) {
	var pooled []Observation // defeat has no N = 0 cell of its own
	for _, o := range twoVariants(6, cachedTruth, defeatedTruth, 2) {
		if !(o.Variant == "defeat" && o.Filters == 0) {
			pooled = append(pooled, o)
		}
	}
	var single []Observation // defeat measured at one count only
	for _, o := range twoVariants(6, cachedTruth, defeatedTruth, 3) {
		if o.Variant == "on" || o.Filters == 0 || o.Filters == 8 {
			single = append(single, o)
		}
	}
	drifting := twoVariants(6, truth{base: 1000, noise: 5, drift: 2}, truth{base: 1000, entry: 200, slope: 20, noise: 5, drift: 2}, 4)
	withOutlier := twoVariants(10, cachedTruth, defeatedTruth, 5)
	for i := range withOutlier {
		if withOutlier[i].Variant == "on" && withOutlier[i].Filters == 4 && withOutlier[i].Block == 3 {
			withOutlier[i].NsPerOp += 5000
		}
	}
	tests := []struct {
		name string
		obs  []Observation
		opt  Options
		warn string // substring of one of AllWarnings
		fits int
	}{
		{name: "pooled baseline", obs: pooled, warn: "all variants pooled", fits: 2},
		{name: "single count", obs: single, warn: `variant "defeat": no per-filter fit`, fits: 1},
		{name: "drift", obs: drifting, warn: "machine drifted", fits: 2},
		{name: "few samples", obs: twoVariants(2, cachedTruth, defeatedTruth, 6), warn: "only 2 samples; need at least 3", fits: 2},
		{name: "outlier", obs: withOutlier, warn: `variant "on", 4 filters: 1 of 10 samples are outliers`, fits: 2},
		{name: "robust few samples", obs: twoVariants(5, cachedTruth, defeatedTruth, 7), opt: Options{Robust: true}, warn: "needs at least 10", fits: 2},
		{name: "custom threshold", obs: twoVariants(5, cachedTruth, defeatedTruth, 8), opt: Options{Thresholds: Thresholds{MinSamples: 6}}, warn: "need at least 6", fits: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Analyze(tt.obs, tt.opt)
			if err != nil {
				t.Fatalf("Analyze: %v", err)
			}
			if ws := res.AllWarnings(); !hasWarning(ws, tt.warn) {
				t.Errorf("AllWarnings = %q; want one containing %q", ws, tt.warn)
			}
			if len(res.Fits) != tt.fits {
				t.Errorf("%d fits; want %d", len(res.Fits), tt.fits)
			}
		})
	}
}

func TestAnalyzeOutlierKept(t *testing.T) {
	obs := twoVariants(10, cachedTruth, defeatedTruth, 5)
	for i := range obs {
		if obs[i].Variant == "on" && obs[i].Filters == 4 && obs[i].Block == 3 {
			obs[i].NsPerOp += 5000
		}
	}
	res, err := Analyze(obs, Options{Variants: []string{"on"}})
	if err != nil {
		t.Fatalf("Analyze: %v", err)
	}
	for _, c := range res.Cells {
		if c.Variant != "on" || c.Filters != 4 {
			continue
		}
		if c.Outliers != 1 || len(c.OutlierIndex) != 1 || c.Samples[c.OutlierIndex[0]] < 5000 {
			t.Errorf("Outliers = %d at %v; want the planted one", c.Outliers, c.OutlierIndex)
		}
		if c.Summary.N != 10 || c.Summary.Mean < 1400 {
			t.Errorf("N, Mean = %d, %v; want 10 samples with the outlier kept (mean > 1400)", c.Summary.N, c.Summary.Mean)
		}
	}
}

func TestAnalyzeRobust(t *testing.T) {
	obs := twoVariants(12, cachedTruth, defeatedTruth, 10)
	a, err := Analyze(obs, Options{Robust: true, Seed: 5})
	if err != nil {
		t.Fatalf("Analyze: %v", err)
	}
	b, _ := Analyze(obs, Options{Robust: true, Seed: 5})
	if !a.Robust {
		t.Error("Robust = false; want true")
	}
	for i, c := range a.Cells {
		if c.Summary.Center != c.Summary.Median {
			t.Errorf("cell %d: Center %v; want the median %v", i, c.Summary.Center, c.Summary.Median)
		}
		if c.Summary.Lo != b.Cells[i].Summary.Lo || c.Overhead.Hi != b.Cells[i].Overhead.Hi {
			t.Errorf("cell %d: intervals differ between runs with the same seed", i)
		}
		if c.Filters > 0 && !math.IsNaN(c.Overhead.DF) {
			t.Errorf("cell %d: overhead DF = %v; want NaN (bootstrap)", i, c.Overhead.DF)
		}
	}
	// Variants default to lexical order.
	if a.Cells[0].Variant != "defeat" {
		t.Errorf("first cell variant %q; want defeat (lexical order)", a.Cells[0].Variant)
	}
}

func TestAnalyzeErrors(t *testing.T) {
	good := twoVariants(3, cachedTruth, defeatedTruth, 11)
	withNaN := append(append([]Observation(nil), good...), Observation{Variant: "on", Filters: 1, NsPerOp: math.Inf(1)})
	tests := []struct {
		name string
		obs  []Observation
		opt  Options
		want error
	}{
		{name: "confidence percent", obs: good, opt: Options{Confidence: 95}, want: ErrConfidence},
		{name: "confidence negative", obs: good, opt: Options{Confidence: -0.9}, want: ErrConfidence},
		{name: "empty", obs: nil, want: ErrNoObservations},
		{name: "infinite value", obs: withNaN, want: ErrBadValue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Analyze(tt.obs, tt.opt)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Analyze error = %v; want %v", err, tt.want)
			}
		})
	}
	_, err := Analyze(withNaN, Options{})
	var oe *ObservationError
	if !errors.As(err, &oe) || oe.Index != len(good) {
		t.Errorf("Analyze error = %v; want *ObservationError at index %d", err, len(good))
	}
}

// TestDriftWarningCountsChildren: the warning names the children the drift
// spans (SeqSpan + 1, first to last inclusive), not "runs".
func TestDriftWarningCountsChildren(t *testing.T) {
	f := Fit{Drift: 1, DriftLo: 0.5, DriftHi: 1.5, Baseline: 100, SeqSpan: 9}
	got := driftWarning(f, Thresholds{DriftFraction: 0.01})
	if want := "machine drifted by 9.0 ns/op (9.0 % of the baseline) over 10 children (first to last child of the variant, all variants counted)"; !strings.HasPrefix(got, want) {
		t.Errorf("driftWarning = %q, want it to start with %q", got, want)
	}
}
