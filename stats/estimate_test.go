package stats

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func est(v, hw float64) Estimate { return Estimate{Center: v, Lo: v - hw, Hi: v + hw} }

func nearEst(got, want Estimate, tol float64) bool {
	eq := func(a, b float64) bool { return (math.IsNaN(a) && math.IsNaN(b)) || math.Abs(a-b) <= tol }
	return eq(got.Center, want.Center) && eq(got.Lo, want.Lo) && eq(got.Hi, want.Hi)
}

// TestFitCostModelTwoPoints checks the two-point calibration against a hand
// computation: per-filter 20±2 ns at 10 instructions per filter and 60±4 ns
// at 210 give PerInsn = 40/200 = 0.2 ns, Var = (2²+4²)/200² = 0.0005;
// PerFilter = 20 − 0.2·10 = 18 ns, Var = 4 + 10²·0.0005 + 2·10·4/200 = 4.45;
// Cov = −4/200 − 10·0.0005 = −0.025. Entries 30±10 and 40±20 combine with
// weights 1/100 and 1/400 to 32 ± 1/√0.0125.
func TestFitCostModelTwoPoints(t *testing.T) {
	m, warns, err := FitCostModel([]CalibrationPoint{
		{Entry: est(30, 10), PerFilter: est(20, 2), InsnsPerFilter: 10},
		{Entry: est(40, 20), PerFilter: est(60, 4), InsnsPerFilter: 210},
	}, Estimate{}, 0.95)
	if err != nil || len(warns) != 0 {
		t.Fatalf("err %v, warnings %q", err, warns)
	}
	checks := []struct {
		name      string
		got, want Estimate
	}{
		{"Entry", m.Entry, est(32, 1/math.Sqrt(0.0125))},
		{"PerInsn", m.PerInsn, est(0.2, math.Sqrt(0.0005))},
		{"PerFilter", m.PerFilter, est(18, math.Sqrt(4.45))},
	}
	for _, c := range checks {
		if !nearEst(c.got, c.want, 1e-9) {
			t.Errorf("%s = %+v, want %+v", c.name, c.got, c.want)
		}
	}
	if want := -0.025 / math.Sqrt(4.45*0.0005); math.Abs(m.Corr-want) > 1e-9 {
		t.Errorf("Corr = %v, want %v", m.Corr, want)
	}
}

func TestFitCostModelOnePoint(t *testing.T) {
	m, warns, err := FitCostModel([]CalibrationPoint{{Entry: est(100, 20), PerFilter: est(30, 6), InsnsPerFilter: 60}}, Estimate{}, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if !nearEst(m.PerInsn, est(0.5, 0.1), 1e-12) || !nearEst(m.PerFilter, est(0, 0), 0) || !nearEst(m.Entry, est(100, 20), 1e-12) {
		t.Errorf("got %+v", m)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "one instruction count") {
		t.Errorf("warnings %q, want one about the single instruction count", warns)
	}
}

func TestFitCostModelThreePointsScatter(t *testing.T) {
	// Three points off a line by far more than their ±1 intervals: the
	// covariance is inflated by χ²/(m−2).
	pts := []CalibrationPoint{
		{Entry: est(10, 1), PerFilter: est(10, 1), InsnsPerFilter: 0.5},
		{Entry: est(10, 1), PerFilter: est(30, 1), InsnsPerFilter: 1},
		{Entry: est(10, 1), PerFilter: est(30, 1), InsnsPerFilter: 2},
	}
	m, warns, err := FitCostModel(pts, Estimate{}, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	// Equal weights: the fit is ordinary least squares, and with m−2 = 1
	// the covariance scale is the residual sum of squares.
	xs, ys := []float64{0.5, 1, 2}, []float64{10, 30, 30}
	var sx, sy, sxx, sxy float64
	for i := range xs {
		sx += xs[i]
		sy += ys[i]
		sxx += xs[i] * xs[i]
		sxy += xs[i] * ys[i]
	}
	n := 3.0
	k := (n*sxy - sx*sy) / (n*sxx - sx*sx)
	f := (sy - k*sx) / n
	var chi2 float64
	for i := range xs {
		r := ys[i] - f - k*xs[i]
		chi2 += r * r
	}
	vk := n / (n*sxx - sx*sx) * chi2 // chi2/(m-2) with m-2 = 1
	if math.Abs(m.PerInsn.Center-k) > 1e-9 || math.Abs(m.PerFilter.Center-f) > 1e-9 || math.Abs(halfWidth(m.PerInsn)-math.Sqrt(vk)) > 1e-9 {
		t.Errorf("got PerInsn %+v PerFilter %+v; want %v±%v and %v", m.PerInsn, m.PerFilter, k, math.Sqrt(vk), f)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "scatter") {
		t.Errorf("warnings %q", warns)
	}
}

func TestFitCostModelErrors(t *testing.T) {
	if _, _, err := FitCostModel(nil, Estimate{}, 0.95); !errors.Is(err, ErrNoCalibration) {
		t.Errorf("no points: got %v", err)
	}
	if _, _, err := FitCostModel([]CalibrationPoint{{PerFilter: est(1, 1)}}, Estimate{}, 0.95); !errors.Is(err, ErrNoInstructions) {
		t.Errorf("0 instructions: got %v", err)
	}
	if _, _, err := FitCostModel([]CalibrationPoint{{PerFilter: est(1, 1), InsnsPerFilter: 1}}, Estimate{}, 1.5); !errors.Is(err, ErrConfidence) {
		t.Errorf("confidence 1.5: got %v", err)
	}
}

// TestPredictHandComputed checks Predict against numbers worked out by hand:
// Entry 100±20, PerFilter 10±2 (n = 4 filters), PerInsn 0.5±0.1, Corr −0.5,
// Cached 2±1 (ns).
// A: 1000 uncached calls, 40 instructions: 100 + 40 + 20 = 160 ns per call,
// half-width √(20² + 8² + 4² + 2·(−0.5)·8·4) = √448;
// B: 500 cached calls: 2±1; C: 10 uncached calls, 0 instructions: 140 ±
// √(20² + 8²) = √464.
// Total = 1000·160 + 500·2 + 10·140 = 162400 ns, weights a = 1010 calls,
// f = 4040 filter runs, b = 40000 instructions, c = 500 cached calls:
// half-width √((1010·20)² + (4040·2)² + (40000·0.1)² + 2·(−0.5)·8080·4000 + (500·1)²).
func TestPredictHandComputed(t *testing.T) {
	m := CostModel{Entry: est(100, 20), PerFilter: est(10, 2), PerInsn: est(0.5, 0.1), Corr: -0.5, Cached: est(2, 1), Confidence: 0.95}
	per, total := m.Predict([]CostItem{
		{Calls: 1000, Filters: 4, Instructions: 40},
		{Calls: 500, Cached: true, Filters: 4, Instructions: 99},
		{Calls: 10, Filters: 4},
	})
	wantPer := []CostPrediction{
		{PerCall: est(160, math.Sqrt(448)), Total: est(160000, 1000*math.Sqrt(448))},
		{PerCall: est(2, 1), Total: est(1000, 500)},
		{PerCall: est(140, math.Sqrt(464)), Total: est(1400, 10*math.Sqrt(464))},
	}
	for i, w := range wantPer {
		if !nearEst(per[i].PerCall, w.PerCall, 1e-9) || !nearEst(per[i].Total, w.Total, 1e-6) {
			t.Errorf("item %d: got %+v, want %+v", i, per[i], w)
		}
	}
	hw := math.Sqrt(1010*20*1010*20 + 4040*2*4040*2 + 4000*4000 - 8080*4000 + 500*500)
	if want := est(162400, hw); !nearEst(total, want, 1e-6) {
		t.Errorf("total = %+v, want %+v", total, want)
	}
}

func TestPredictNaNIntervals(t *testing.T) {
	nan := math.NaN()
	m := CostModel{Entry: est(100, 20), PerInsn: est(0.5, 0.1), Cached: Estimate{Center: 0, Lo: nan, Hi: nan}}
	// No cached syscall: the cached cost's missing interval does not matter.
	_, total := m.Predict([]CostItem{{Calls: 2, Filters: 1, Instructions: 10}})
	if want := est(210, math.Sqrt(40*40+2*2)); !nearEst(total, want, 1e-9) {
		t.Errorf("total = %+v, want %+v", total, want)
	}
	_, total = m.Predict([]CostItem{{Calls: 2, Filters: 1, Instructions: 10}, {Calls: 1, Cached: true}})
	if !math.IsNaN(total.Lo) || total.Center != 210 {
		t.Errorf("with a cached call of unknown uncertainty: total = %+v, want 210 with NaN bounds", total)
	}
}

func TestScaleEstimate(t *testing.T) {
	if got, want := scaleEstimate(est(10, 2), -2), (Estimate{Center: -20, Lo: -24, Hi: -16}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

// TestReanchorCostModel: the re-anchored model reproduces the stack's
// measured per-filter cost at the loop's path length, keeps the chain's
// per-instruction slope, and propagates both intervals (hand-computed).
func TestReanchorCostModel(t *testing.T) {
	chain := CostModel{
		Entry:      Estimate{Center: 60, Lo: 50, Hi: 70},
		PerFilter:  Estimate{Center: 40, Lo: 38, Hi: 42},
		PerInsn:    Estimate{Center: 0.2, Lo: 0.15, Hi: 0.25},
		Cached:     Estimate{Center: 15, Lo: 10, Hi: 20},
		Confidence: 0.95,
	}
	got := ReanchorCostModel(chain, Estimate{Center: 100, Lo: 90, Hi: 110}, Estimate{Center: 55, Lo: 52, Hi: 58}, 16)
	// PerFilter = 55 - 0.2·16 = 51.8; half-width √(3² + 16²·0.05²) = √(9 + 0.64).
	hw := math.Sqrt(9.64)
	if math.Abs(got.PerFilter.Center-51.8) > 1e-9 || math.Abs(halfWidth(got.PerFilter)-hw) > 1e-9 {
		t.Errorf("PerFilter = %+v, want 51.8 ± %.4f", got.PerFilter, hw)
	}
	if got.Entry.Center != 100 || got.Entry.Lo != 90 || got.PerInsn != chain.PerInsn || got.Cached != chain.Cached {
		t.Errorf("Entry %+v, PerInsn %+v, Cached %+v: want the stack's entry and the chain's slope and cached cost", got.Entry, got.PerInsn, got.Cached)
	}
	if want := -16 * 0.05 / hw; math.Abs(got.Corr-want) > 1e-9 {
		t.Errorf("Corr = %v, want %v", got.Corr, want)
	}
	// A syscall at the loop's own path length (16 per filter) under 8
	// filters costs entry + 8·55 = 540, the stack's measurement.
	_, total := got.Predict([]CostItem{{Calls: 1, Filters: 8, Instructions: 8 * 16}})
	if math.Abs(total.Center-540) > 1e-9 {
		t.Errorf("predicted %v ns at the loop's path, want 540", total.Center)
	}
}
