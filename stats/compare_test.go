package stats

import (
	"math"
	"testing"
)

func TestCompareSamples(t *testing.T) {
	tests := []struct {
		name              string
		base, x           []float64
		known, significnt bool
	}{
		{"clear shift", []float64{100, 101, 99, 100, 100}, []float64{150, 151, 149, 150, 150}, true, true},
		{"same", []float64{100, 101, 99, 100, 100}, []float64{100, 99, 101, 100, 100}, true, false},
		{"too few", []float64{100}, []float64{150, 151}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CompareSamples(tt.base, tt.x, 0.95)
			if got.Known != tt.known || got.Significant != tt.significnt {
				t.Errorf("Known, Significant = %v, %v, want %v, %v (P %v)", got.Known, got.Significant, tt.known, tt.significnt, got.P)
			}
			if math.Abs(got.Alpha-0.05) > 1e-12 {
				t.Errorf("Alpha = %v, want 0.05", got.Alpha)
			}
			if w := Welch(tt.base, tt.x, 0.95); got.N1 != w.N1 || got.N2 != w.N2 || !sameFloat(got.P, w.P) {
				t.Errorf("Diff = %+v, want Welch's %+v", got.Diff, w)
			}
		})
	}
}

func TestCompareEstimates(t *testing.T) {
	b := Estimate{Center: 10, Lo: 9, Hi: 11, Confidence: 0.95}
	x := Estimate{Center: 20, Lo: 19, Hi: 21, Confidence: 0.95}
	if got := CompareEstimates(b, x, 0.95); !got.Significant || got.Delta != 10 {
		t.Errorf("CompareEstimates = %+v, want significant delta 10", got)
	}
	if got := CompareEstimates(b, Estimate{Center: 20, Lo: math.NaN(), Hi: math.NaN(), Confidence: 0.95}, 0.95); got.Known || got.Significant {
		t.Errorf("CompareEstimates with a missing interval = %+v, want unknown", got)
	}
}

func TestMargins(t *testing.T) {
	m := DefaultMargins()
	tests := []struct {
		name      string
		got, want float64
	}{
		{"per-filter floor", m.PerFilter(100), 2},
		{"per-filter fraction", m.PerFilter(5000), 10},
		{"entry floor", m.Entry(100), 5},
		{"entry fraction", m.Entry(5000), 25},
		{"zero value is default", Margins{}.PerFilter(100), 2},
		{"control", Margins{}.Control(), 15},
		{"override", Margins{EntryFloorNs: 7}.Entry(100), 7},
	}
	for _, tt := range tests {
		if math.Abs(tt.got-tt.want) > 1e-9 {
			t.Errorf("%s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
	if got := m.ConcludePerFilter(0.5, -1, 1.5, 100).Verdict; got != Negligible {
		t.Errorf("ConcludePerFilter within ±2 = %v, want negligible", got)
	}
	if got := m.ConcludeEntry(30, 20, 40, 100).Verdict; got != Positive {
		t.Errorf("ConcludeEntry above 5 = %v, want positive", got)
	}
	if !m.LowFit(0.05) || m.LowFit(0.5) {
		t.Errorf("LowFit(0.05), LowFit(0.5) = %v, %v, want true, false", m.LowFit(0.05), m.LowFit(0.5))
	}
}
