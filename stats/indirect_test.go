package stats

import (
	"errors"
	"math"
	"testing"
)

func nearly(a, b float64) bool { return math.Abs(a-b) < 1e-9*math.Max(1, math.Abs(b)) }

// probeData is synthetic probe data: direct 100 [94, 106] ns at 0 KiB
// (200 ns per iteration), 150 [142, 158] at 16 KiB (1000 ns), 130 [118,
// 142] at 256 KiB (5000 ns).
func probeData() ([]int, []float64, []Estimate) {
	return []int{0, 16, 256}, []float64{200, 1000, 5000}, []Estimate{
		{Center: 100, Lo: 94, Hi: 106, Confidence: 0.95},
		{Center: 150, Lo: 142, Hi: 158, Confidence: 0.95},
		{Center: 130, Lo: 118, Hi: 142, Confidence: 0.95}}
}

// TestIndirectPoints checks the points by hand: at 16 KiB indirect 50
// with half-widths √(8² + 6²) = 10 each side, ratio 0.5 with half-width
// √(10² + (0.5·6)²) / 100 = √109 / 100; at 0 KiB indirect and ratio 0
// exactly.
func TestIndirectPoints(t *testing.T) {
	pts, err := IndirectPoints(probeData())
	if err != nil {
		t.Fatal(err)
	}
	p := pts[1]
	if !nearly(p.Indirect.Center, 50) || !nearly(p.Indirect.Lo, 40) || !nearly(p.Indirect.Hi, 60) {
		t.Errorf("indirect at 16 KiB = %+v, want 50 [40, 60]", p.Indirect)
	}
	hw := math.Sqrt(109) / 100
	if !nearly(p.Ratio.Center, 0.5) || !nearly(p.Ratio.Lo, 0.5-hw) || !nearly(p.Ratio.Hi, 0.5+hw) {
		t.Errorf("ratio at 16 KiB = %+v, want 0.5 ± %.5f", p.Ratio, hw)
	}
	if z := pts[0]; z.Indirect != (Estimate{Confidence: 0.95}) || z.Ratio.Center != 0 || z.Ratio.Lo != 0 || z.Ratio.Hi != 0 {
		t.Errorf("point at 0 KiB = %+v, want indirect and ratio 0 exactly", z)
	}
	// 256 KiB: indirect 30, lower √(12² + 6²), ratio 0.3.
	if q := pts[2]; !nearly(q.Indirect.Lo, 30-math.Sqrt(180)) || !nearly(q.Ratio.Center, 0.3) {
		t.Errorf("point at 256 KiB = %+v", q)
	}
}

func TestIndirectPointsErrors(t *testing.T) {
	kib, gaps, added := probeData()
	for name, f := range map[string]func() error{
		"lengths":     func() error { _, err := IndirectPoints(kib, gaps[:2], added); return err },
		"first not 0": func() error { _, err := IndirectPoints([]int{4, 16, 256}, gaps, added); return err },
		"no direct cost": func() error {
			a := append([]Estimate{{Center: 0, Lo: -3, Hi: 3}}, added[1:]...)
			_, err := IndirectPoints(kib, gaps, a)
			return err
		},
		"same gap": func() error {
			pts, _ := IndirectPoints(kib, []float64{200, 1000, 1000}, added)
			_, err := NewIndirectCurve(pts)
			return err
		},
		"no points": func() error { _, err := NewIndirectCurve(nil); return err },
	} {
		if err := f(); !errors.Is(err, ErrIndirectPoints) {
			t.Errorf("%s: err = %v, want ErrIndirectPoints", name, err)
		}
	}
}

// TestIndirectCurve: at the geometric mean of two points' gaps the ratio
// is half-way between theirs (linear in ln gap), bounds too; outside the
// points it is held at the nearest and the range says so; the points'
// order does not matter.
func TestIndirectCurve(t *testing.T) {
	pts, err := IndirectPoints(probeData())
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewIndirectCurve([]IndirectPoint{pts[2], pts[0], pts[1]})
	if err != nil {
		t.Fatal(err)
	}
	r, where := c.At(math.Sqrt(1000 * 5000))
	if where != IndirectInside || !nearly(r.Center, 0.4) || !nearly(r.Lo, (pts[1].Ratio.Lo+pts[2].Ratio.Lo)/2) || !nearly(r.Hi, (pts[1].Ratio.Hi+pts[2].Ratio.Hi)/2) {
		t.Errorf("At(√(1000·5000)) = %+v %v, want 0.4, bounds half-way, inside", r, where)
	}
	if r, where := c.At(50); where != IndirectBelow || r.Center != 0 {
		t.Errorf("At(50) = %+v %v, want the 0 KiB point, below", r, where)
	}
	if r, where := c.At(1e6); where != IndirectAbove || !nearly(r.Center, 0.3) {
		t.Errorf("At(1e6) = %+v %v, want the 256 KiB point, above", r, where)
	}
	if r, where := c.At(1000); where != IndirectInside || !nearly(r.Center, 0.5) {
		t.Errorf("At(1000) = %+v %v, want the 16 KiB point exactly", r, where)
	}
}

// TestPredictIndirect: 2 ms [1.8, 2.2] of direct cost at ratio 0.5
// [0.4, 0.7]: 1 ms, lower √(0.5·0.2)² + (2·0.1)²) = √0.05, upper
// √((0.5·0.2)² + (2·0.2)²) = √0.17.
func TestPredictIndirect(t *testing.T) {
	got := PredictIndirect(Estimate{Center: 2, Lo: 1.8, Hi: 2.2}, Estimate{Center: 0.5, Lo: 0.4, Hi: 0.7})
	if !nearly(got.Center, 1) || !nearly(got.Lo, 1-math.Sqrt(0.05)) || !nearly(got.Hi, 1+math.Sqrt(0.17)) {
		t.Errorf("PredictIndirect = %+v, want 1 [1−√0.05, 1+√0.17]", got)
	}
}
