package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// simulatePlacementRun returns the children of one synthetic run: counts ×
// trials children, each with a pad drawn uniformly from 0..16, measuring
//
//	y = base + entry·[N≥1] + N·(perFilter + u_pad) + ε
//
// with u_pad ~ N(0, sdPlacement²) drawn once per pad value for the run and
// ε ~ N(0, sdNoise²) per child.
func simulatePlacementRun(rng *rand.Rand, counts []int, trials int, perFilter, sdPlacement, sdNoise float64) []Observation {
	var u [17]float64
	for i := range u {
		u[i] = rng.NormFloat64() * sdPlacement
	}
	var obs []Observation
	seq := 0
	for b := range trials {
		for _, n := range counts {
			pad := rng.IntN(17)
			y := 1000 + rng.NormFloat64()*sdNoise
			if n > 0 {
				y += 100 + float64(n)*(perFilter+u[pad])
			}
			obs = append(obs, Observation{Variant: "defeat", Filters: n, Block: b, Seq: seq, NsPerOp: y, Pad: pad})
			seq++
		}
	}
	return obs
}

// TestPlacementSDAndCoverage: on synthetic runs with a known
// between-placement component, PlacementSD recovers it on average, and the
// per-filter interval covers the true per-filter cost at about the nominal
// 95 %, while the interval that ignores placement (plain OLS) falls short.
// The seed is fixed, so the test is deterministic; the tolerances are wide
// enough that a change in floating-point details cannot flip it.
func TestPlacementSDAndCoverage(t *testing.T) {
	counts := []int{0, 1, 2, 4, 8, 16, 32}
	const reps = 400
	tests := []struct {
		name                   string
		sdPlacement, sdNoise   float64
		minCover, maxCover     float64
		wantSDLo, wantSDHi     float64
		olsMustUndercoverBelow float64
	}{
		{"placement 10% of per-filter", 2, 10, 0.91, 0.99, 1.7, 2.3, 0.85},
		{"placement 25% of per-filter", 5, 10, 0.91, 0.99, 4.4, 5.6, 0.70},
		{"no placement effect", 0, 10, 0.92, 0.99, 0, 0.5, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			covered, olsCovered := 0, 0
			var sdSum float64
			for range reps {
				obs := simulatePlacementRun(rng, counts, 10, 20, tt.sdPlacement, tt.sdNoise)
				f, err := FitStack(obs, 0.95)
				if err != nil {
					t.Fatal(err)
				}
				if f.PerFilterLo <= 20 && 20 <= f.PerFilterHi {
					covered++
				}
				// The same fit without pads or blocks: one cluster
				// each, the OLS interval (the time-order term would
				// otherwise pick up part of the placement spread).
				plain := make([]Observation, len(obs))
				for i, o := range obs {
					o.Pad, o.Block = 0, 0
					plain[i] = o
				}
				g, err := FitStack(plain, 0.95)
				if err != nil {
					t.Fatal(err)
				}
				if g.PerFilterLo <= 20 && 20 <= g.PerFilterHi {
					olsCovered++
				}
				if !math.IsNaN(g.PlacementSD) || g.Pads != 1 {
					t.Fatalf("one pad: PlacementSD %v over %d pads, want NaN over 1", g.PlacementSD, g.Pads)
				}
				sdSum += f.PlacementSD
			}
			cover, olsCover, meanSD := float64(covered)/reps, float64(olsCovered)/reps, sdSum/reps
			t.Logf("coverage %.3f (OLS without pads %.3f), mean PlacementSD %.2f (true %.1f)", cover, olsCover, meanSD, tt.sdPlacement)
			if cover < tt.minCover || cover > tt.maxCover {
				t.Errorf("coverage %.3f, want within [%.2f, %.2f]", cover, tt.minCover, tt.maxCover)
			}
			if meanSD < tt.wantSDLo || meanSD > tt.wantSDHi {
				t.Errorf("mean PlacementSD %.2f, want within [%.1f, %.1f] (true %.1f)", meanSD, tt.wantSDLo, tt.wantSDHi, tt.sdPlacement)
			}
			if tt.olsMustUndercoverBelow < 1 && olsCover >= tt.olsMustUndercoverBelow {
				t.Errorf("OLS ignoring placement covers %.3f, expected below %.2f: the simulation does not exercise placement", olsCover, tt.olsMustUndercoverBelow)
			}
		})
	}
}

// TestAnalyzeLoaders: two loaders give two fits per variant, cells carry
// their loader and pads aligned with their samples, and the loader
// difference has an interval that covers the true difference (here the
// unprivileged loader's barrier costs 5 ns per filter) at about the nominal
// rate over many synthetic runs.
func TestAnalyzeLoaders(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	counts := []int{0, 1, 2, 4, 8, 16, 32}
	const reps, trueDiff = 200, 5.0
	covered := 0
	for rep := range reps {
		var obs []Observation
		for _, l := range []struct {
			name  string
			extra float64
		}{{"unprivileged", trueDiff}, {"privileged", 0}} {
			for _, o := range simulatePlacementRun(rng, counts, 8, 20+l.extra, 2, 10) {
				o.Loader = l.name
				o.Seq += 1000 * len(obs)
				obs = append(obs, o)
			}
		}
		res, err := Analyze(obs, Options{Loaders: []string{"unprivileged", "privileged"}})
		if err != nil {
			t.Fatal(err)
		}
		if rep == 0 {
			if len(res.Fits) != 2 || res.Fits[0].Loader != "unprivileged" || res.Fits[1].Loader != "privileged" {
				t.Fatalf("fits %+v, want unprivileged then privileged", res.Fits)
			}
			if _, ok := res.FitFor("defeat", "privileged"); !ok {
				t.Error("FitFor(defeat, privileged): none")
			}
			if len(res.Cells) != 14 {
				t.Fatalf("%d cells, want 14", len(res.Cells))
			}
			for _, c := range res.Cells {
				if len(c.Pads) != len(c.Samples) || c.Loader == "" {
					t.Errorf("cell %s/%s/%d: %d pads for %d samples", c.Variant, c.Loader, c.Filters, len(c.Pads), len(c.Samples))
				}
			}
			if len(res.LoaderDiffs) != 1 || res.LoaderDiffs[0].A != "unprivileged" || res.LoaderDiffs[0].B != "privileged" {
				t.Fatalf("loader diffs %+v", res.LoaderDiffs)
			}
		}
		d := res.LoaderDiffs[0]
		if d.Lo <= trueDiff && trueDiff <= d.Hi {
			covered++
		}
	}
	cover := float64(covered) / reps
	t.Logf("loader difference coverage %.3f", cover)
	if cover < 0.90 || cover > 0.995 {
		t.Errorf("loader difference interval covers %.3f of runs, want about 0.95", cover)
	}
}

// TestPlacementPerChildCoverage: when every child has its own placement
// (each load lands at its own random offset) instead of one per pad, the
// noise grows with N and is not shared within a pad; the per-filter
// interval must still cover at about the nominal rate.
func TestPlacementPerChildCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	counts := []int{0, 1, 2, 4, 8, 16, 32}
	const reps = 400
	covered := 0
	for range reps {
		var obs []Observation
		seq := 0
		for b := range 10 {
			for _, n := range counts {
				y := 1000 + rng.NormFloat64()*10
				if n > 0 {
					y += 100 + float64(n)*(20+rng.NormFloat64()*3)
				}
				obs = append(obs, Observation{Variant: "defeat", Filters: n, Block: b, Seq: seq, NsPerOp: y, Pad: rng.IntN(17)})
				seq++
			}
		}
		f, err := FitStack(obs, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		if f.PerFilterLo <= 20 && 20 <= f.PerFilterHi {
			covered++
		}
	}
	cover := float64(covered) / reps
	t.Logf("coverage %.3f", cover)
	if cover < 0.91 || cover > 0.995 {
		t.Errorf("coverage %.3f, want about 0.95", cover)
	}
}

// TestDiffFitsWithoutSE: a fit without a standard error gives a difference
// without an interval and a warning, never a false "significant".
func TestDiffFitsWithoutSE(t *testing.T) {
	a := Fit{Variant: "defeat", Loader: "unprivileged", PerFilter: 25, PerFilterSE: math.NaN(), Confidence: 0.95}
	b := Fit{Variant: "defeat", Loader: "privileged", PerFilter: 20, PerFilterSE: 1, PerFilterDF: 30, Confidence: 0.95}
	d := DiffFits(a, b)
	if d.Delta != 5 || !math.IsNaN(d.Lo) || d.Significant() || len(d.Warnings) == 0 {
		t.Errorf("DiffFits = %+v, want delta 5, NaN interval, a warning", d)
	}
	a.PerFilterSE, a.PerFilterDF = 1, 30
	d = DiffFits(a, b)
	if !d.Significant() || !(d.DF > 50 && d.DF <= 60) {
		t.Errorf("DiffFits = %+v, want significant with Welch–Satterthwaite DF 60", d)
	}
}
