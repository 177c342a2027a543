package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestSegmentCount(t *testing.T) {
	for _, tt := range []struct{ blocks, want int }{
		{0, 0}, {1, 0}, {14, 0}, {15, 3}, {20, 4}, {24, 4}, {25, 5}, {40, 6}, {63, 7}, {64, 8}, {160, 8}, {200, 8},
	} {
		if got := segmentCount(tt.blocks); got != tt.want {
			t.Errorf("segmentCount(%d) = %d, want %d", tt.blocks, got, tt.want)
		}
	}
}

// TestSegmentsOf: the blocks are cut in time order into near-equal
// contiguous runs, whatever their numbering, and every observation lands
// in its block's segment.
func TestSegmentsOf(t *testing.T) {
	var obs []Observation
	for _, b := range []int{7, 3, 12, 3, 5, 9, 7, 12, 20, 15} {
		obs = append(obs, Observation{Block: b})
	}
	segs := segmentsOf(obs, distinctBlocks(obs), 3) // blocks 3 5 7 | 9 12 | 15 20 (7 blocks: 3, 2, 2)
	want := [][]int{{7, 3, 3, 5, 7}, {12, 9, 12}, {20, 15}}
	for i, seg := range segs {
		var got []int
		for _, o := range seg {
			got = append(got, o.Block)
		}
		if len(got) != len(want[i]) {
			t.Fatalf("segment %d: blocks %v, want %v", i, got, want[i])
		}
		for j := range got {
			if got[j] != want[i][j] {
				t.Fatalf("segment %d: blocks %v, want %v", i, got, want[i])
			}
		}
	}
}

// TestSegmentsCoverTimeCorrelatedNoise is the simulation behind the time
// segments (segments.go): paired runs of 20 blocks whose per-filter cost
// wanders as an AR(1) series over the blocks (SD 4 ns on 27 ns, lag-1
// correlation 0.7: 160-block runs on this project's AMD host gave 0.38
// and 0.54 for the estimated block slopes, whose own noise dilutes the
// series' correlation), on top of a run-level random effect on the bare op, a
// multiplicative host-speed factor per run, block and child, and
// placement. Without segments (fitStack(…, false)) the interval covers
// the run's expected per-filter cost in well under 95 % of runs and the
// spread of the errors is far above the stated SE; with them coverage is
// about nominal and the spread is within the stated SE. Without the
// wander the segments cost little: coverage stays nominal and the mean
// half-width grows by at most a quarter. The seed is fixed.
func TestSegmentsCoverTimeCorrelatedNoise(t *testing.T) {
	const reps = 400
	tests := []struct {
		name string
		sim  pairedSim
		// bounds on the coverage with segments, and the most the
		// interval without them may cover (so that the case exercises
		// the wander)
		lo, hi, withoutBelow float64
		// the most the mean half-width may grow by segments
		maxWiden float64
	}{
		{"per-filter cost wanders over blocks",
			pairedSim{base: 1000, entry: 150, perFilter: 27, runSpeed: 0.02, blockSpeed: 0.01, child: 0.01,
				runEffect: 10, placement: 2, noise: 5, slopeSD: 4, slopeRho: 0.7, blocks: 20},
			0.90, 0.99, 0.85, math.Inf(1)},
		{"no wander",
			pairedSim{base: 1000, entry: 150, perFilter: 27, runSpeed: 0.02, blockSpeed: 0.01, child: 0.01,
				runEffect: 10, placement: 2, noise: 5, blocks: 20},
			0.92, 0.99, 1, 1.25},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(23, 3))
			var hits, hitsWithout, relHits int
			var errs, ses, sesWithout, hw, hwWithout []float64
			for range reps {
				obs, relTruth, nsTruth, _ := tt.sim.run(rng)
				f, err := FitStack(obs, 0.95)
				if err != nil {
					t.Fatal(err)
				}
				g, err := fitStack(obs, 0.95, false)
				if err != nil {
					t.Fatal(err)
				}
				if f.Segments != 4 || math.IsNaN(f.SegmentSD) || g.Segments != 0 {
					t.Fatalf("20 blocks: Segments %d (SD %v), without %d; want 4, a number, 0", f.Segments, f.SegmentSD, g.Segments)
				}
				if f.PerFilter != g.PerFilter {
					t.Fatalf("segments moved the estimate: %v, without %v", f.PerFilter, g.PerFilter)
				}
				if f.PerFilterLo <= nsTruth && nsTruth <= f.PerFilterHi {
					hits++
				}
				if g.PerFilterLo <= nsTruth && nsTruth <= g.PerFilterHi {
					hitsWithout++
				}
				if f.PerFilterRelLo <= relTruth && relTruth <= f.PerFilterRelHi {
					relHits++
				}
				errs = append(errs, f.PerFilter-nsTruth)
				ses = append(ses, f.PerFilterHalfWidth()/1.96)
				sesWithout = append(sesWithout, g.PerFilterHalfWidth()/1.96)
				hw = append(hw, f.PerFilterHalfWidth())
				hwWithout = append(hwWithout, g.PerFilterHalfWidth())
			}
			mean := func(xs []float64) float64 {
				var s float64
				for _, x := range xs {
					s += x
				}
				return s / float64(len(xs))
			}
			cover, without, rel := float64(hits)/reps, float64(hitsWithout)/reps, float64(relHits)/reps
			ratio, ratioWithout := sdOf(errs)/mean(ses), sdOf(errs)/mean(sesWithout)
			widen := mean(hw) / mean(hwWithout)
			t.Logf("coverage %.3f with segments (relative %.3f), %.3f without; SD of errors / mean stated SE %.2f with, %.2f without; half-width ×%.2f",
				cover, rel, without, ratio, ratioWithout, widen)
			if cover < tt.lo || cover > tt.hi {
				t.Errorf("coverage with segments %.3f, want within [%.2f, %.2f]", cover, tt.lo, tt.hi)
			}
			if rel < tt.lo || rel > tt.hi {
				t.Errorf("relative coverage with segments %.3f, want within [%.2f, %.2f]", rel, tt.lo, tt.hi)
			}
			if without > tt.withoutBelow {
				t.Errorf("coverage without segments %.3f, expected at most %.2f: the case does not exercise the wander", without, tt.withoutBelow)
			}
			if ratio > 1 {
				t.Errorf("SD of errors %.2f × the mean stated SE (half-width / 1.96) with segments, want at most 1", ratio)
			}
			if widen > tt.maxWiden {
				t.Errorf("segments widen the mean half-width ×%.2f, want at most ×%.2f", widen, tt.maxWiden)
			}
		})
	}
}
