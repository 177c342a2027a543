package stats

import (
	"errors"
	"fmt"
	"math"
)

// Observation is one child process's result, the unit of replication.
type Observation struct {
	// Variant names how the stack was measured, e.g. "on" (action cache as
	// installed) or "defeat" (cache defeated).
	Variant string
	// Filters is the number of stacked filters N; 0 is the baseline.
	Filters int
	// Block is the randomized block index: each block holds every cell
	// (variant × count) once, in shuffled order.
	Block int
	// Seq is the global run order 0..n-1, used as a proxy for time when
	// modeling drift.
	Seq int
	// NsPerOp is the child's measured time in nanoseconds per op. It must be
	// finite and not negative.
	NsPerOp float64
	// BaselineNs is the child's own paired baseline: the same loop timed
	// on the same thread and CPU before the child installed its stack, in
	// ns per op. 0 when the child took none (an unpaired run). It must be
	// finite and not negative. When every observation given to [FitStack]
	// has one, the fit is paired (see [Fit].Paired).
	BaselineNs float64
	// Loader names who loaded the filters, e.g. "unprivileged" or
	// "privileged"; cells and fits are per (Variant, Loader). "" when the
	// run did not record it.
	Loader string
	// Pad is the number of never-executed instructions appended to every
	// filter of the child (its placement cluster; see [Fit].PlacementSD).
	Pad int
	// InstallNs is the duration of each seccomp(2) call of the child, in ns
	// ([SetupCost]); Analyze ignores it.
	InstallNs []int64
	// ControlBeforeNs and ControlAfterNs time the child's CPU-bound control
	// loop before and after installing its filters, in ns
	// ([ControlSlowdown]); 0 when not measured. Analyze ignores them.
	ControlBeforeNs, ControlAfterNs float64
}

// DefaultConfidence is the confidence level [Analyze] uses when
// [Options].Confidence is zero.
const DefaultConfidence = 0.95

// Thresholds holds the tunable limits of the analysis. A zero field means its
// default (see [DefaultThresholds]).
type Thresholds struct {
	// MinSamples is the number of children per cell below which a cell gets a
	// warning; at least 2 are needed for any interval. Default 3.
	MinSamples int
	// MinRobustSamples is the number of samples below which a percentile
	// bootstrap interval of the median gets a warning (it is then too
	// coarse to be trusted). Default 10.
	MinRobustSamples int
	// OutlierK is the cut-off on the absolute modified z-score of the
	// median/MAD outlier rule. Default 3.5 (Iglewicz & Hoaglin 1993).
	OutlierK float64
	// Resamples is the number of bootstrap resamples. Default 10000.
	Resamples int
	// DriftFraction is the fraction of the baseline by which the fitted
	// linear drift may move over the whole run before [Analyze] warns, if
	// the drift's interval also excludes zero. Default 0.05 (5 %).
	DriftFraction float64
}

// DefaultThresholds returns the default [Thresholds].
func DefaultThresholds() Thresholds {
	return Thresholds{
		MinSamples:       3,
		MinRobustSamples: 10,
		OutlierK:         3.5,
		Resamples:        10000,
		DriftFraction:    0.05,
	}
}

// withDefaults fills zero (or invalid) fields with their defaults.
func (t Thresholds) withDefaults() Thresholds {
	d := DefaultThresholds()
	if t.MinSamples <= 0 {
		t.MinSamples = d.MinSamples
	}
	if t.MinRobustSamples <= 0 {
		t.MinRobustSamples = d.MinRobustSamples
	}
	if !(t.OutlierK > 0) {
		t.OutlierK = d.OutlierK
	}
	if t.Resamples <= 0 {
		t.Resamples = d.Resamples
	}
	if !(t.DriftFraction > 0) {
		t.DriftFraction = d.DriftFraction
	}
	return t
}

// Options configures [Analyze].
type Options struct {
	// Confidence is the confidence level of every interval, a fraction in
	// (0, 1). Zero means [DefaultConfidence].
	Confidence float64
	// Robust selects the median with a percentile bootstrap interval for
	// cells and the difference of medians (bootstrap interval, Mann–Whitney
	// p) for overheads, instead of mean, t interval and Welch.
	Robust bool
	// Seed seeds the bootstrap; the same seed gives the same intervals.
	Seed uint64
	// Variants optionally fixes the order of variants in the result;
	// variants not listed follow in lexical order.
	Variants []string
	// Loaders optionally fixes the order of loaders within a variant, the
	// same way; the first is the reference of [Result].LoaderDiffs.
	Loaders []string
	// Thresholds tunes warnings, outlier detection and the bootstrap.
	Thresholds Thresholds
}

// ErrConfidence is returned (wrapped) by [CheckConfidence], [FitStack],
// [DriftEstimate] and [Analyze] when a confidence level is not a fraction
// strictly between 0 and 1.
var ErrConfidence = errors.New("confidence outside (0, 1)")

// ErrNoObservations is returned by [FitStack], [DriftEstimate] and [Analyze]
// when they are given no observations.
var ErrNoObservations = errors.New("no observations")

// ErrBadValue is the sentinel of [ObservationError]: an observation's NsPerOp
// or BaselineNs is NaN, infinite or negative.
var ErrBadValue = errors.New("ns/op or baseline not finite and non-negative")

// ErrNegativeFilters is the sentinel of [ObservationError] for an
// observation whose Filters is below 0.
var ErrNegativeFilters = errors.New("negative filter count")

// ObservationError reports an unusable observation. It matches
// [ErrBadValue] or [ErrNegativeFilters] through errors.Is.
type ObservationError struct {
	Index int         // index into the slice passed in
	Obs   Observation // the offending observation
	Err   error       // ErrBadValue or ErrNegativeFilters
}

// Error describes the observation and what is wrong with it.
func (e *ObservationError) Error() string {
	return fmt.Sprintf("observation %d (variant %q, %d filters, seq %d, %v ns/op, baseline %v ns/op): %v",
		e.Index, e.Obs.Variant, e.Obs.Filters, e.Obs.Seq, e.Obs.NsPerOp, e.Obs.BaselineNs, e.Err)
}

// Unwrap returns the underlying sentinel.
func (e *ObservationError) Unwrap() error { return e.Err }

// CheckConfidence returns nil if c is a fraction strictly between 0 and 1,
// else an error wrapping [ErrConfidence].
func CheckConfidence(c float64) error {
	if !(c > 0 && c < 1) {
		return fmt.Errorf("check confidence %v: %w (use e.g. 0.95)", c, ErrConfidence)
	}
	return nil
}

// checkObservations validates every NsPerOp and Filters and rejects an
// empty slice.
func checkObservations(obs []Observation) error {
	if len(obs) == 0 {
		return ErrNoObservations
	}
	for i, o := range obs {
		if math.IsNaN(o.NsPerOp) || math.IsInf(o.NsPerOp, 0) || o.NsPerOp < 0 ||
			math.IsNaN(o.BaselineNs) || math.IsInf(o.BaselineNs, 0) || o.BaselineNs < 0 {
			return &ObservationError{Index: i, Obs: o, Err: ErrBadValue}
		}
		if o.Filters < 0 {
			return &ObservationError{Index: i, Obs: o, Err: ErrNegativeFilters}
		}
	}
	return nil
}
