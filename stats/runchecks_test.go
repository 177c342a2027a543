package stats

import (
	"math"
	"testing"
)

func TestDepthLinearity(t *testing.T) {
	cell := func(n int, center float64) CellResult {
		// Four children spread ±1 around center.
		return CellResult{Variant: "defeat", Filters: n, Samples: []float64{center - 1, center - 0.5, center + 0.5, center + 1}}
	}
	tests := []struct {
		name            string
		cells           []CellResult
		wantLow, wantHi float64
		differs         bool
	}{
		{"linear", []CellResult{cell(1, 120), cell(2, 140), cell(16, 420), cell(32, 740)}, 20, 20, false},
		{"grows with depth", []CellResult{cell(1, 120), cell(2, 140), cell(16, 500), cell(32, 1140)}, 20, 40, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := DepthLinearity(Result{Cells: tt.cells}, []string{"defeat"}, 0.95)
			if len(got) != 1 {
				t.Fatalf("got %v", got)
			}
			l := got[0]
			if math.Abs(l.LowNs-tt.wantLow) > 1e-9 || math.Abs(l.HighNs-tt.wantHi) > 1e-9 || l.DiffersFromFit != tt.differs ||
				l.LowFrom != 1 || l.LowTo != 2 || l.HighFrom != 16 || l.HighTo != 32 {
				t.Errorf("got %+v, want low %v high %v differs %v", l, tt.wantLow, tt.wantHi, tt.differs)
			}
		})
	}
}

// PreciseEnough stops a run once every variant's per-filter half-width
// reaches the target: synthetic children with known spread.
func TestPreciseEnough(t *testing.T) {
	mk := func(blocks int, noise float64) []Observation {
		var out []Observation
		seq := 0
		for b := 0; b < blocks; b++ {
			for _, n := range []int{0, 1, 2, 4, 8} {
				// Alternate ±noise so the spread is known and symmetric.
				e := noise
				if (b+n)%2 == 0 {
					e = -noise
				}
				out = append(out, Observation{Variant: "defeat", Filters: n, Block: b, Seq: seq,
					NsPerOp: 100 + 30*float64(min(n, 1)) + 20*float64(n) + e})
				seq++
			}
		}
		return out
	}
	tests := []struct {
		name   string
		obs    []Observation
		target float64
		rel    bool
		want   bool
	}{
		{"quiet, 10 blocks, 1 ns", mk(10, 0.5), 1, false, true},
		{"noisy, 3 blocks, 1 ns", mk(3, 20), 1, false, false},
		{"noisy, 3 blocks, 50%", mk(3, 20), 0.5, true, true},
		{"too few counts", mk(10, 0.5)[:2], 1, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PreciseEnough(tt.obs, []string{"defeat"}, 0.95, Target{CI: tt.target, Rel: tt.rel}); got != tt.want {
				t.Errorf("preciseEnough = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSetupCost(t *testing.T) {
	tests := []struct {
		name      string
		obs       []Observation
		wantOK    bool
		wantMean  float64
		wantStack float64
		wantDepth int
	}{
		{"none", nil, false, 0, 0, 0},
		{"one call", []Observation{{Filters: 1, InstallNs: []int64{500}}}, false, 0, 0, 0},
		{"two depths", []Observation{
			{Filters: 0},
			{Filters: 1, InstallNs: []int64{100}},
			{Filters: 2, InstallNs: []int64{100, 300}},
			{Filters: 2, InstallNs: []int64{200, 200}},
		}, true, 180, 400, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := SetupCost(tt.obs, 0.95)
			if ok != tt.wantOK {
				t.Fatalf("ok = %v, want %v", ok, tt.wantOK)
			}
			if !ok {
				return
			}
			if got.PerFilterNs != tt.wantMean || got.StackNs != tt.wantStack || got.StackFilter != tt.wantDepth || !(got.PerFilterCILowNs < got.PerFilterNs && got.PerFilterNs < got.PerFilterCIHiNs) {
				t.Errorf("got %+v, want mean %v, stack %v ns at %d filters, mean inside its CI", got, tt.wantMean, tt.wantStack, tt.wantDepth)
			}
		})
	}
}

func TestControlSlowdown(t *testing.T) {
	var obs []Observation
	for i := 0; i < 4; i++ {
		d := float64(i%2) * 0.02
		obs = append(obs,
			Observation{Variant: "on", Filters: 1, ControlBeforeNs: 2 + d, ControlAfterNs: 2.2 + d},
			Observation{Variant: "on", Filters: 0, ControlBeforeNs: 9, ControlAfterNs: 9},     // no filter: ignored
			Observation{Variant: "defeat", Filters: 1, ControlBeforeNs: 0, ControlAfterNs: 5}, // not measured: ignored
		)
	}
	got := ControlSlowdown(obs, []string{"on", "defeat"}, 0.95)
	if len(got) != 1 || got[0].Variant != "on" {
		t.Fatalf("got %+v, want only variant on", got)
	}
	c := got[0]
	if math.Abs(c.BeforeNs-2.01) > 1e-9 || math.Abs(c.AfterNs-2.21) > 1e-9 || !(c.SlowdownPctLow < c.SlowdownPct && c.SlowdownPct < c.SlowdownPctHigh) || math.Abs(c.SlowdownPct-100*0.2/2.01) > 1e-9 {
		t.Errorf("got %+v, want 2.01 → 2.21 ns, +%.3f%% inside its CI", c, 100*0.2/2.01)
	}
}

func TestDriftByVariant(t *testing.T) {
	var obs []Observation
	for seq := 0; seq < 40; seq++ {
		e := float64(seq%3) - 1
		obs = append(obs,
			Observation{Variant: "on", Filters: seq % 2 * 4, Seq: seq, Block: seq / 4, NsPerOp: 100 + 0.5*float64(seq) + e},
		)
	}
	obs = append(obs, Observation{Variant: "defeat", Filters: 0, Seq: 40, NsPerOp: 100}) // one child: no interval
	got := DriftByVariant(obs, []string{"on", "defeat"}, 0.95)
	if len(got) != 1 || got[0].Variant != "on" {
		t.Fatalf("got %+v, want only variant on", got)
	}
	tr := got[0]
	if math.Abs(tr.Slope-0.5) > 0.05 || !(tr.SlopeLo < tr.Slope && tr.Slope < tr.SlopeHi) || tr.SeqSpan != 38 || tr.OverRun() != tr.Slope*38 {
		t.Errorf("got %+v (over run %v), want slope ≈ 0.5 ns per child over 38 children", tr, tr.OverRun())
	}
}

func TestOutlierCount(t *testing.T) {
	r := Result{Cells: []CellResult{{Outliers: 1, Summary: Summary{N: 10}}, {Outliers: 2, Summary: Summary{N: 5}}}}
	if out, n := r.OutlierCount(); out != 3 || n != 15 {
		t.Errorf("OutlierCount() = %d, %d; want 3, 15", out, n)
	}
}

func TestTargetMetBy(t *testing.T) {
	tests := []struct {
		name   string
		target Target
		fit    Fit
		want   bool
	}{
		{"absolute met", Target{CI: 1}, Fit{PerFilter: 20, PerFilterLo: 19.5, PerFilterHi: 20.5}, true},
		{"absolute missed", Target{CI: 1}, Fit{PerFilter: 20, PerFilterLo: 18, PerFilterHi: 22}, false},
		{"relative met", Target{CI: 0.1, Rel: true}, Fit{PerFilter: 20, PerFilterLo: 19, PerFilterHi: 21}, true},
		{"relative missed", Target{CI: 0.01, Rel: true}, Fit{PerFilter: 20, PerFilterLo: 19, PerFilterHi: 21}, false},
		// Per-filter cost indistinguishable from 0: 5% of 1% of a 100 ns
		// baseline is ±0.05 ns.
		{"relative near 0, met", Target{CI: 0.05, Rel: true}, Fit{PerFilter: 0, PerFilterLo: -0.04, PerFilterHi: 0.04, Baseline: 100}, true},
		{"relative near 0, missed", Target{CI: 0.05, Rel: true}, Fit{PerFilter: 0, PerFilterLo: -0.1, PerFilterHi: 0.1, Baseline: 100}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.target.MetBy(tt.fit); got != tt.want {
				t.Errorf("MetBy = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestInverseVarianceMean(t *testing.T) {
	tests := []struct {
		name         string
		in           []Estimate
		wantC, wantH float64 // center and half-width; NaN half-width: no interval
	}{
		{"none", nil, 0, 0},
		{"one", []Estimate{{Center: 5, Lo: 4, Hi: 6}}, 5, 1},
		// weights 1 and 4: (1·1 + 4·3)/5 = 2.6, half-width 1/√5.
		{"weighted", []Estimate{{Center: 1, Lo: 0, Hi: 2}, {Center: 3, Lo: 2.5, Hi: 3.5}}, 2.6, 1 / math.Sqrt(5)},
		{"no interval: plain mean", []Estimate{{Center: 1, Lo: 0, Hi: 2}, {Center: 3, Lo: math.NaN(), Hi: math.NaN()}}, 2, math.NaN()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := InverseVarianceMean(tt.in)
			hw := (got.Hi - got.Lo) / 2
			if math.Abs(got.Center-tt.wantC) > 1e-12 || math.IsNaN(tt.wantH) != math.IsNaN(hw) || !math.IsNaN(hw) && math.Abs(hw-tt.wantH) > 1e-12 {
				t.Errorf("got %+v (half-width %v), want center %v, half-width %v", got, hw, tt.wantC, tt.wantH)
			}
		})
	}
}

func TestAtDepth(t *testing.T) {
	// 5±1 + 7·(0.5±0.5): 8.5 ± √(1 + 3.5²).
	got := AtDepth(Estimate{Center: 5, Lo: 4, Hi: 6}, Estimate{Center: 0.5, Lo: 0, Hi: 1}, 7)
	hw := math.Sqrt(1 + 3.5*3.5)
	if math.Abs(got.Center-8.5) > 1e-12 || math.Abs(got.Lo-(8.5-hw)) > 1e-12 || math.Abs(got.Hi-(8.5+hw)) > 1e-12 {
		t.Errorf("got %+v, want 8.5 ± %v", got, hw)
	}
}
