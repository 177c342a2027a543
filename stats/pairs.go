package stats

import (
	"fmt"
	"math"
	"slices"
)

// Interleaved pairs (the command workload's "pairs" and "duet" designs):
// every child makes runs of a program without and with a seccomp stack in
// pairs, the order within each pair drawn at random, and d_i = x_i − b_i
// is pair i's added time. Whatever disturbs the host for longer than a
// pair (the program's own drift, a slow period, the file cache) moves
// both runs and cancels in d_i; that is what the difference of medians
// over whole children (RobustDiff) cannot do.
//
// Within a child, a disturbance shorter than a pair (a preemption, a
// page-cache miss) lands on the filtered or the unfiltered run with equal
// probability because the order is random, so the distribution of d_i is
// symmetric about the added time when the runs are otherwise
// exchangeable. The Hodges–Lehmann estimator (the median of the Walsh
// averages (d_i + d_j)/2, i ≤ j; Hodges & Lehmann 1963) estimates the
// centre of a symmetric distribution with 95 % of the mean's efficiency
// under normal noise and a 29 % breakdown point, where the mean is moved
// by one preempted run and the median of d_i has 64 % efficiency.
//
// Across children: every child draws its own JIT placement (runner
// Placement), so the added time itself varies from child to child, and
// pairs of one child share it. Pooling every pair as independent would
// leave that variation out of the interval. PairedShift therefore takes
// one Hodges–Lehmann centre per child and states the mean of those with
// a Student-t interval on k − 1 degrees of freedom (Normal): the child
// stays the unit of replication, as everywhere in this package, and each
// unit is far less noisy than a child's median run.

// PairedEstimate is the added time of a stack estimated from interleaved
// pairs (PairedShift), in ns per run.
type PairedEstimate struct {
	// Estimate is the mean over children of each child's centre, with
	// its Student-t interval.
	Estimate
	// Children are each child's Hodges–Lehmann centre of its pair
	// differences, in input order (NaN for a child without pairs).
	Children []float64
	// Pairs is the number of pairs over all children.
	Pairs int
	// Warnings say why the interval may be unreliable or absent.
	Warnings []string
}

// HalfWidth returns half the width of the interval in ns per run, NaN
// without one.
func (p PairedEstimate) HalfWidth() float64 { return (p.Hi - p.Lo) / 2 }

// PairDiffs returns x[i] − base[i] for each pair, in ns per run. x and
// base must have the same length; extra values of the longer one are
// ignored.
func PairDiffs(base, x []float64) []float64 {
	n := min(len(base), len(x))
	d := make([]float64, n)
	for i := range d {
		d[i] = x[i] - base[i]
	}
	return d
}

// HodgesLehmann returns the Hodges–Lehmann estimate of the centre of d:
// the median of the n(n+1)/2 Walsh averages (d_i + d_j)/2, i ≤ j. NaN for
// an empty d. It sorts n(n+1)/2 values: 500,500 for the command
// workload's largest child (1000 pairs).
func HodgesLehmann(d []float64) float64 {
	n := len(d)
	if n == 0 {
		return math.NaN()
	}
	w := make([]float64, 0, n*(n+1)/2)
	for i := range d {
		for j := i; j < n; j++ {
			w = append(w, (d[i]+d[j])/2)
		}
	}
	slices.Sort(w)
	return medianSorted(w)
}

// PairedShift estimates the added time from each child's pair differences
// (children[c] = PairDiffs of child c; see the comment above): the
// Hodges–Lehmann centre per child, and their mean with a Student-t
// interval at confidence (Normal). Fewer than 2 children with pairs, or
// an invalid confidence, give NaN bounds with a warning; fewer than 3 a
// warning (a t interval on one degree of freedom is very wide).
func PairedShift(children [][]float64, confidence float64) PairedEstimate {
	p := PairedEstimate{Estimate: Estimate{Center: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Confidence: confidence}}
	var centres []float64
	for _, d := range children {
		c := HodgesLehmann(d)
		p.Children = append(p.Children, c)
		p.Pairs += len(d)
		if !math.IsNaN(c) {
			centres = append(centres, c)
		}
	}
	if len(centres) < len(children) {
		p.Warnings = append(p.Warnings, fmt.Sprintf("%d of %d children have no pairs", len(children)-len(centres), len(children)))
	}
	s := Normal(centres, confidence)
	p.Center, p.Lo, p.Hi = s.Center, s.Lo, s.Hi
	p.Warnings = append(p.Warnings, s.Warnings...)
	if len(centres) < 3 && len(centres) >= 2 {
		p.Warnings = append(p.Warnings, fmt.Sprintf("only %d children; the interval of their mean needs at least 3", len(centres)))
	}
	return p
}
