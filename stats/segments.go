package stats

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// Time segments: the host's speed for the filters (not only for the bare
// op, which the paired children remove) wanders over seconds, so the
// per-filter cost of successive randomized blocks is positively
// correlated. Measured on this project's AMD EPYC host (160-block runs of
// the 2-instruction uncacheable filter under getpid): the per-block
// per-filter slopes have lag-1 autocorrelation 0.4–0.5 that decays over
// about five blocks (2–3 s), and 20-block stretches of one run differ by
// 1.8–2.6 times the standard error that independent blocks give. The
// random-slope block term (applyTimeOrder) treats blocks as independent,
// so it cannot see this, and one run's interval was too narrow for the
// next run by about 2× (docs/methodology-variation.md, "Time segments").
//
// The run is therefore also split into K contiguous time segments of whole
// blocks, the stack model is fitted in each segment on its own, and the
// spread of the K segment estimates gives a between-segment standard error
// sd(β̂_k)/√K with t(K−1) quantiles: the group-estimate t interval of
// Ibragimov and Müller (2010, "t-statistic based correlation and
// heterogeneity robust inference", J. Bus. Econ. Stat. 28(4)), valid for a
// few groups whatever the correlation inside a group, as long as the
// groups themselves are close to independent. Segments of at least
// minSegmentBlocks blocks keep adjacent segments nearly independent at the
// correlation length measured; at most maxSegments keep each segment long
// in a long run. The interval stays centred on the whole run's estimate
// and becomes the between-segment one when that is wider. Variation
// slower than the run itself cannot show in any one run: docs/methodology-variation.md
// states what repeating the run showed.

// minSegmentBlocks is the least number of blocks in one time segment; a
// run with fewer than minSegments·minSegmentBlocks blocks gets no segment
// term (and a warning saying so).
const minSegmentBlocks = 5

// minSegments and maxSegments bound the number of time segments K.
const (
	minSegments = 3
	maxSegments = 8
)

// segmentCount returns the number of time segments for a run of the given
// number of blocks: about √blocks (so both the number of segments and
// their length grow with the run: 4 of 5 blocks at 20, 6 of 6–7 at 40, 8
// of 20 at 160), at most maxSegments and at most blocks/minSegmentBlocks,
// and 0 when that is below minSegments. Segments that stayed 5 blocks
// long as K grew covered less at 40 blocks than at 20 in simulation
// (88.0 % against 92.0 % with lag-1 correlation 0.7): the wander is
// slower than 5 blocks, and only longer segments see more of it.
func segmentCount(blocks int) int {
	k := min(int(math.Sqrt(float64(blocks))), blocks/minSegmentBlocks, maxSegments)
	if k < minSegments {
		return 0
	}
	return k
}

// distinctBlocks returns the blocks of obs, ascending (time order).
func distinctBlocks(obs []Observation) []int {
	var blocks []int
	seen := map[int]bool{}
	for _, o := range obs {
		if !seen[o.Block] {
			seen[o.Block] = true
			blocks = append(blocks, o.Block)
		}
	}
	slices.Sort(blocks)
	return blocks
}

// segmentsOf splits obs into k contiguous time segments by block: blocks,
// the distinct blocks of obs in time order, are cut into k runs of
// near-equal length, and each observation goes to its block's segment.
func segmentsOf(obs []Observation, blocks []int, k int) [][]Observation {
	segOf := make(map[int]int, len(blocks))
	for i, b := range blocks {
		segOf[b] = i * k / len(blocks)
	}
	out := make([][]Observation, k)
	for _, o := range obs {
		s := segOf[o.Block]
		out[s] = append(out[s], o)
	}
	return out
}

// applySegments widens the per-filter, entry and relative intervals of f
// to the between-segment ones when those are wider (see the comment at the
// top of this file). It sets Segments and SegmentSD; a run too short for
// segments keeps its intervals with Segments 0 ([Analyze] warns once per
// run), and one whose segments cannot each be fitted keeps them with a
// warning.
func (f *Fit) applySegments(obs []Observation, confidence float64) {
	f.SegmentSD = math.NaN()
	blocks := distinctBlocks(obs)
	k := segmentCount(len(blocks))
	if k == 0 {
		return
	}
	var perFilter, entry, perFilterRel, entryRel []float64
	for i, seg := range segmentsOf(obs, blocks, k) {
		g, err := fitStack(seg, confidence, false)
		if err != nil || math.IsNaN(g.PerFilter) {
			f.Warnings = append(f.Warnings, fmt.Sprintf("time segment %d of %d cannot be fitted on its own (%v): the interval does not include the between-segment term", i+1, k, err))
			return
		}
		perFilter = append(perFilter, g.PerFilter)
		entry = append(entry, g.Entry)
		perFilterRel = append(perFilterRel, g.PerFilterRel)
		entryRel = append(entryRel, g.EntryRel)
	}
	f.Segments = k
	f.SegmentSD = stat.StdDev(perFilter, nil)
	df := float64(k - 1)
	tq := tQuantile(confidence, df)
	// widen replaces (lo, hi) around v by v ± t·sd(xs)/√K when wider and
	// reports whether it did.
	widen := func(v float64, lo, hi *float64, xs []float64) (se float64, wider bool) {
		sd := stat.StdDev(xs, nil) // NaN with fewer than 2 or a non-finite value
		if math.IsNaN(v) || math.IsNaN(sd) || len(xs) != k {
			return math.NaN(), false
		}
		se = sd / math.Sqrt(float64(k))
		hw := tq * se
		if cur := (*hi - *lo) / 2; !(hw > cur) && !math.IsNaN(cur) {
			return se, false
		}
		*lo, *hi = v-hw, v+hw
		return se, true
	}
	if se, ok := widen(f.PerFilter, &f.PerFilterLo, &f.PerFilterHi, perFilter); ok {
		f.PerFilterSE, f.PerFilterDF = se, df
		if se > 0 {
			f.PerFilterP = tTwoSidedP(f.PerFilter/se, df)
		}
	}
	if se, ok := widen(f.Entry, &f.EntryLo, &f.EntryHi, entry); ok && !math.IsNaN(f.EntryP) && se > 0 {
		f.EntryP = tTwoSidedP(f.Entry/se, df)
	}
	if f.Paired {
		widen(f.PerFilterRel, &f.PerFilterRelLo, &f.PerFilterRelHi, perFilterRel)
		widen(f.EntryRel, &f.EntryRelLo, &f.EntryRelHi, entryRel)
	}
}

// shortRunWarning returns the run's warning when a fit of fits has blocks
// but too few for time segments, "" otherwise.
func shortRunWarning(fits []Fit) string {
	for _, f := range fits {
		if f.Segments == 0 && f.Blocks >= 2 {
			return fmt.Sprintf("%d blocks: too few for %d time segments of %d blocks, so the intervals cannot include the host's speed wandering over seconds and may be too narrow for the next run (run at least %d trials)", f.Blocks, minSegments, minSegmentBlocks, minSegments*minSegmentBlocks)
		}
	}
	return ""
}
