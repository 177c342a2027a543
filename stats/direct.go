package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// PoissonCount returns the exact (Garwood) interval of the mean of a
// Poisson count k at confidence: [χ²(α/2; 2k)/2, χ²(1−α/2; 2k+2)/2], the
// lower bound 0 when k is 0. Center is k. A negative k or a confidence
// outside (0, 1) gives NaN bounds. Hand-worked: k = 0 at 95 % gives
// [0, 3.689]; k = 10 gives [4.795, 18.390].
func PoissonCount(k int, confidence float64) Estimate {
	e := Estimate{Center: float64(k), Lo: math.NaN(), Hi: math.NaN(), Confidence: confidence}
	if k < 0 || !(confidence > 0 && confidence < 1) {
		return e
	}
	a := 1 - confidence
	e.Lo = 0
	if k > 0 {
		e.Lo = distuv.ChiSquared{K: float64(2 * k)}.Quantile(a/2) / 2
	}
	e.Hi = distuv.ChiSquared{K: float64(2*k + 2)}.Quantile(1-a/2) / 2
	return e
}

// ScaleEstimate returns e with its center and bounds multiplied by f
// (f ≥ 0; a negative f swaps the bounds so Lo ≤ Hi stays true).
func ScaleEstimate(e Estimate, f float64) Estimate {
	lo, hi := e.Lo*f, e.Hi*f
	if f < 0 {
		lo, hi = hi, lo
	}
	return Estimate{Center: e.Center * f, Lo: lo, Hi: hi, Confidence: e.Confidence}
}

// SubEstimates returns a − b for independent estimates, each side of the
// interval combined in quadrature as SumEstimates does: a's lower
// half-width with b's upper one, and the reverse. Hand-worked: 10 [7, 14]
// − 2 [1, 6] = 8 [8 − √(9+16), 8 + √(16+1)] = [3, 12.12].
func SubEstimates(a, b Estimate) Estimate {
	c := a.Center - b.Center
	lo := math.Hypot(a.Center-a.Lo, b.Hi-b.Center)
	hi := math.Hypot(a.Hi-a.Center, b.Center-b.Lo)
	conf := a.Confidence
	if conf == 0 {
		conf = b.Confidence
	}
	return Estimate{Center: c, Lo: c - lo, Hi: c + hi, Confidence: conf}
}

// DirectTime is the time a command spends inside seccomp per run,
// estimated from CPU samples: a sampled cell's count of samples in
// seccomp (a Poisson count) times the sampling period, over the runs
// sampled, for the stacked cell minus the baseline cell (which is not 0
// when the measuring process itself runs under a filter).
type DirectTime struct {
	// Stacked and Baseline are each cell's seccomp time per run, in ns,
	// with the Garwood interval of its count scaled.
	Stacked, Baseline Estimate
	// Direct is Stacked − Baseline (SubEstimates), in ns per run.
	Direct Estimate
}

// EstimateDirect returns the direct time per run from the seccomp samples
// kx of the stacked cell over rx runs and kb of the baseline cell over rb
// runs, each sample standing for periodNs of CPU time. Errors: rx or rb
// not positive, a negative count, periodNs not positive. Hand-worked: 10
// samples at 10 ms over 100 runs, 0 in the baseline over 100 runs: 1 ms
// [0.48, 1.84] per run, minus 0 [0, 0.37], so Direct is 1 ms
// [1 − √(0.52² + 0.37²), 1 + √(0.84² + 0)] = [0.36, 1.84].
func EstimateDirect(kx, rx, kb, rb int, periodNs, confidence float64) (DirectTime, error) {
	if rx <= 0 || rb <= 0 || kx < 0 || kb < 0 || !(periodNs > 0) {
		return DirectTime{}, fmt.Errorf("direct time: %d and %d samples in seccomp over %d and %d runs at a %g ns period: want counts ≥ 0, runs and period > 0", kx, kb, rx, rb, periodNs)
	}
	x := ScaleEstimate(PoissonCount(kx, confidence), periodNs/float64(rx))
	b := ScaleEstimate(PoissonCount(kb, confidence), periodNs/float64(rb))
	return DirectTime{Stacked: x, Baseline: b, Direct: SubEstimates(x, b)}, nil
}

// AddedSplit is what a policy adds to a run of a command cut into three
// parts, each in ns per run with its interval: Direct (CPU time inside
// seccomp, from samples), Process (what the stack adds to a process that
// makes almost no syscall: /bin/true) and Indirect, the rest of the
// measured total: the program's own work slowed by what the filters left
// behind (evicted caches, branch state).
type AddedSplit struct {
	Total, Direct, Process, Indirect Estimate
	// Resolved reports that the indirect part's interval excludes 0 and is
	// no wider than |Total.Center|: only then do the data support a
	// statement about it. Why says why not as a code (SplitNoInterval,
	// SplitSpansZero, SplitWide), "" when resolved.
	Resolved bool
	Why      string
}

// Codes of AddedSplit.Why: why the indirect part is not resolved.
const (
	SplitNoInterval = "no-interval" // an interval is missing
	SplitSpansZero  = "spans-zero"  // its interval spans zero
	SplitWide       = "wide"        // its interval is wider than the measured total
)

// SplitAdded computes Indirect = total − direct − process, the three
// measured independently (the A/B difference of whole runs, the samples,
// the /bin/true probe), each side of its interval in quadrature
// (SubEstimates). A zero process Estimate (not measured) subtracts
// nothing. Hand-worked: total 10 [8, 12], direct 3 [2.5, 3.5], process 1
// [0.5, 1.5] give indirect 6 [6 − √(4+0.25+0.25), 6 + √(4+0.25+0.25)] =
// [3.88, 8.12], resolved.
func SplitAdded(total, direct, process Estimate) AddedSplit {
	s := AddedSplit{Total: total, Direct: direct, Process: process}
	s.Indirect = SubEstimates(total, direct)
	if process != (Estimate{}) {
		s.Indirect = SubEstimates(s.Indirect, process)
	}
	ind := s.Indirect
	switch {
	case math.IsNaN(ind.Lo) || math.IsNaN(ind.Hi):
		s.Why = SplitNoInterval
	case ind.Lo <= 0 && ind.Hi >= 0:
		s.Why = SplitSpansZero
	case ind.Hi-ind.Lo > math.Abs(total.Center):
		s.Why = SplitWide
	default:
		s.Resolved = true
	}
	return s
}
