package stats

import (
	"errors"
	"math"
	"testing"
)

func est(v, hw float64) Estimate { return Estimate{Center: v, Lo: v - hw, Hi: v + hw} }

var zero = Estimate{}

func nearEst(got, want Estimate, tol float64) bool {
	eq := func(a, b float64) bool { return (math.IsNaN(a) && math.IsNaN(b)) || math.Abs(a-b) <= tol }
	return eq(got.Center, want.Center) && eq(got.Lo, want.Lo) && eq(got.Hi, want.Hi)
}

func TestNewCostModel(t *testing.T) {
	m, err := NewCostModel(est(100, 20), est(30, 6), 60, zero, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if want := est(0.5, 0.1); !nearEst(m.PerInsn, want, 1e-12) {
		t.Errorf("PerInsn = %+v, want %+v", m.PerInsn, want)
	}
	if _, err := NewCostModel(est(1, 1), est(1, 1), 0, zero, 0.95); !errors.Is(err, ErrNoInstructions) {
		t.Errorf("0 instructions: got %v, want ErrNoInstructions", err)
	}
	if _, err := NewCostModel(est(1, 1), est(1, 1), 1, zero, 1.5); !errors.Is(err, ErrConfidence) {
		t.Errorf("confidence 1.5: got %v, want ErrConfidence", err)
	}
}

// TestPredictHandComputed checks Predict against numbers worked out by hand:
// Entry 100±20 ns, PerInsn 0.5±0.1 ns, Cached 2±1 ns;
// A: 1000 uncached calls with 40 instructions → 100+0.5·40 = 120 ns per
// call, ±√(20² + (40·0.1)²) = ±√416; B: 500 cached calls → 2±1 ns;
// C: 10 uncached calls with 0 instructions → 100±20.
// Total = 1000·120 + 500·2 + 10·100 = 122000 ns,
// ± √((1010·20)² + (40000·0.1)² + (500·1)²) = ± √424290000.
func TestPredictHandComputed(t *testing.T) {
	m := CostModel{Entry: est(100, 20), PerInsn: est(0.5, 0.1), Cached: est(2, 1), Confidence: 0.95}
	per, total := m.Predict([]CostItem{
		{Calls: 1000, Instructions: 40},
		{Calls: 500, Cached: true, Instructions: 99},
		{Calls: 10},
	})
	wantPer := []CostPrediction{
		{PerCall: est(120, math.Sqrt(416)), Total: est(120000, 1000*math.Sqrt(416))},
		{PerCall: est(2, 1), Total: est(1000, 500)},
		{PerCall: est(100, 20), Total: est(1000, 200)},
	}
	for i, w := range wantPer {
		if !nearEst(per[i].PerCall, w.PerCall, 1e-9) || !nearEst(per[i].Total, w.Total, 1e-6) {
			t.Errorf("item %d: got %+v, want %+v", i, per[i], w)
		}
	}
	if want := est(122000, math.Sqrt(424290000)); !nearEst(total, want, 1e-6) {
		t.Errorf("total = %+v, want %+v", total, want)
	}
}

func TestPredictNaNIntervals(t *testing.T) {
	nan := math.NaN()
	m := CostModel{Entry: est(100, 20), PerInsn: est(0.5, 0.1), Cached: Estimate{Center: 0, Lo: nan, Hi: nan}}
	// No cached syscall: the cached cost's missing interval does not matter.
	_, total := m.Predict([]CostItem{{Calls: 2, Instructions: 10}})
	if want := est(210, math.Sqrt(40*40+2*2)); !nearEst(total, want, 1e-9) {
		t.Errorf("total = %+v, want %+v", total, want)
	}
	_, total = m.Predict([]CostItem{{Calls: 2, Instructions: 10}, {Calls: 1, Cached: true}})
	if !math.IsNaN(total.Lo) || total.Center != 210 {
		t.Errorf("with a cached call of unknown uncertainty: total = %+v, want 210 with NaN bounds", total)
	}
}

func TestScaleEstimate(t *testing.T) {
	if got, want := scaleEstimate(est(10, 2), -2), (Estimate{Center: -20, Lo: -24, Hi: -16}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}
