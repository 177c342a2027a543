package stats

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// ErrNotIdentifiable is returned (wrapped) by [FitStack] and [DriftEstimate]
// when the observations cannot separate the model's parameters, e.g. only one
// filter count ≥ 1 was measured, or Seq never changes.
var ErrNotIdentifiable = errors.New("model not identifiable")

// ErrMixedVariants is returned (wrapped) by [FitStack] when its observations
// with Filters ≥ 1 belong to more than one variant.
var ErrMixedVariants = errors.New("observations of more than one variant")

// maxCond is the largest condition number of the design matrix accepted
// before a column is considered collinear with the others.
const maxCond = 1e10

// Fit is the per-variant stack model
//
//	y = Baseline + Entry·[N ≥ 1] + PerFilter·N + Drift·(Seq - mean Seq) + ε
//
// fitted by ordinary least squares over every child of the variant,
// including the N = 0 baseline children. All coefficients are ns/op; Drift
// is ns/op per step of Seq (one child run). Intervals are coefficient ±
// t(1-α/2, DF)·SE from the residual variance, widened where the
// placement (pads) or time-order (blocks) terms say so (placement.go).
//
// A paired fit (every child has its own baseline, Observation.BaselineNs)
// adds each child's baseline as a covariate that also scales the entry
// and per-filter columns, so the coefficients are the costs at the mean
// baseline of the run's children (BareNs), and states them also as
// fractions of it (PerFilterRel, EntryRel); the time-order uncertainty of
// that mean enters the ns intervals (paired.go).
type Fit struct {
	// Variant is the variant of the N ≥ 1 observations.
	Variant string
	// Loader is the loader of the N ≥ 1 observations ([Analyze] sets it).
	Loader string
	// PerFilter is the cost of each filter in ns/op; PerFilterLo and
	// PerFilterHi bound its interval.
	PerFilter, PerFilterLo, PerFilterHi float64
	// Entry is the step from N = 0 to N = 1 beyond one PerFilter (the cost
	// of entering seccomp filtering at all); NaN when there was no N = 0
	// observation.
	Entry, EntryLo, EntryHi float64
	// Baseline is the fitted ns/op at N = 0 at the mean Seq; NaN without an
	// N = 0 observation.
	Baseline float64
	// Drift is the fitted linear drift in ns/op per run (Seq step); 0 with
	// NaN bounds when Seq does not vary independently and the drift term
	// was left out (a warning says so).
	Drift, DriftLo, DriftHi float64
	// PerFilterP and EntryP are two-sided p-values for "coefficient is 0".
	PerFilterP, EntryP float64
	// R2 is the coefficient of determination of the whole model.
	R2 float64
	// DF is the residual degrees of freedom, n - parameters.
	DF float64
	// Confidence is the nominal confidence level of the intervals.
	Confidence float64
	// N is the number of observations fitted.
	N int
	// SeqSpan is max(Seq) - min(Seq) over the observations, so that
	// Drift·SeqSpan is the modeled drift over the run in ns/op.
	SeqSpan int
	// PerFilterSE is the standard error of PerFilter and PerFilterDF the
	// degrees of freedom of its interval, which is PerFilter ±
	// t(1-α/2, PerFilterDF)·PerFilterSE. With several pads they come from
	// the placement-aware (cluster-robust) variance when that is the
	// larger; see placement.go.
	PerFilterSE, PerFilterDF float64
	// PlacementSD is the between-placement standard deviation of the
	// per-filter cost in ns/op per filter (σ_p of the random-slope model
	// in placement.go): how far one program size's per-filter cost
	// typically lies from the average over sizes. NaN when the
	// observations have fewer than two pads (fixed placement).
	PlacementSD float64
	// Pads is the number of distinct pads among the N ≥ 1 observations.
	Pads int
	// BlockSD is the between-block standard deviation of the per-filter
	// cost in ns/op per filter: how far the per-filter cost of one part
	// of the run (one randomized block) typically lies from the run's,
	// by the same random-slope moments as PlacementSD with blocks as the
	// clusters. NaN with fewer than two blocks.
	BlockSD float64
	// Blocks is the number of distinct blocks among the N ≥ 1
	// observations.
	Blocks int
	// Segments is the number K of contiguous time segments (of whole
	// blocks) the run was split into and fitted in separately, and
	// SegmentSD the standard deviation of their per-filter estimates in
	// ns/op per filter. When sd/√K with t(K−1) quantiles gives wider
	// intervals than the ones above, the per-filter, entry and relative
	// intervals are those (PerFilterSE and PerFilterDF then say so): the
	// host's speed for the filters wanders over seconds, which blocks
	// treated as independent do not show (segments.go). 0 and NaN for a
	// run of fewer than 15 blocks (a warning says so).
	Segments  int
	SegmentSD float64
	// Paired reports a paired fit: every observation had its own
	// baseline (Observation.BaselineNs > 0).
	Paired bool
	// PerFilterRel is the per-filter cost as a fraction of the bare op
	// measured in the same children (0.35: each filter adds 0.35 times
	// what the syscall costs without filters), with its interval; EntryRel
	// likewise for the entry cost. NaN in an unpaired fit.
	PerFilterRel, PerFilterRelLo, PerFilterRelHi float64
	EntryRel, EntryRelLo, EntryRelHi             float64
	// BareNs is the mean of the children's own baselines, in ns/op: the
	// bare op the relative figures are fractions of. BareSegmentSD is the
	// standard deviation of its block means as a fraction of BareNs: how
	// much the host's speed moved between parts of the run. NaN in an
	// unpaired fit (BareSegmentSD also with fewer than two blocks).
	BareNs, BareSegmentSD float64
	// Warnings explain reduced models and missing intervals.
	Warnings []string
}

// PerFilterHalfWidth returns half the width of the per-filter interval in
// ns/op (NaN if there is none), for adaptive stopping.
func (f Fit) PerFilterHalfWidth() float64 { return (f.PerFilterHi - f.PerFilterLo) / 2 }

// EntryHalfWidth returns half the width of the entry interval in ns/op.
func (f Fit) EntryHalfWidth() float64 { return (f.EntryHi - f.EntryLo) / 2 }

// PreciseTo reports whether the per-filter interval's half-width is at most
// max(absNs, rel·|PerFilter|): absNs in ns/op guards the case where the
// per-filter cost is near zero (cached filters), rel is a fraction. It is
// false when there is no interval.
func (f Fit) PreciseTo(absNs, rel float64) bool {
	hw := f.PerFilterHalfWidth()
	return !math.IsNaN(hw) && hw <= max(absNs, rel*math.Abs(f.PerFilter))
}

// FitStack fits the stack model of [Fit] to obs, which should be every child
// of one variant plus the N = 0 baseline children (those may carry any
// variant name, so variants can share one baseline). Seq is a covariate, so
// a linear drift over the run does not bias PerFilter or Entry even when
// the run order is correlated with N; randomized blocks make that
// correlation small in the first place.
//
// Identifiability: PerFilter needs at least two distinct counts ≥ 1, and
// Entry and Baseline need N = 0 observations. Without N = 0, FitStack fits
// y = c + PerFilter·N + Drift·Seq, sets Entry and Baseline to NaN and warns.
// With fewer than two counts ≥ 1 it returns an error wrapping
// [ErrNotIdentifiable]. If Seq is constant or collinear with the other
// columns, the drift term is left out with a warning. With no residual
// degrees of freedom the coefficients are exact and every interval is NaN
// (a warning says how many observations are needed).
//
// Errors wrap [ErrConfidence], [ErrNoObservations], [ErrBadValue] or
// [ErrNegativeFilters] (as *[ObservationError]), [ErrMixedVariants] or
// [ErrNotIdentifiable].
func FitStack(obs []Observation, confidence float64) (Fit, error) {
	return fitStack(obs, confidence, true)
}

// fitStack is FitStack; withSegments adds the between-segment term
// (segments.go), which fits each time segment with fitStack(…, false).
func fitStack(obs []Observation, confidence float64, withSegments bool) (Fit, error) {
	f := Fit{Confidence: confidence, N: len(obs)}
	nan := math.NaN()
	if err := CheckConfidence(confidence); err != nil {
		return f, fmt.Errorf("fit stack: %w", err)
	}
	if err := checkObservations(obs); err != nil {
		return f, fmt.Errorf("fit stack: %w", err)
	}
	hasBase, err := f.scanStack(obs)
	if err != nil {
		return f, err
	}

	y := make([]float64, len(obs))
	for i, o := range obs {
		y[i] = o.NsPerOp
	}
	x, names, res, err := f.solveStack(obs, y, hasBase, confidence)
	if err != nil {
		return f, fmt.Errorf("fit stack: %w", err)
	}
	f.DF, f.R2 = res.df, res.r2
	f.Baseline, f.Entry, f.EntryLo, f.EntryHi, f.EntryP = nan, nan, nan, nan, nan
	f.DriftLo, f.DriftHi = nan, nan
	f.PlacementSD, f.BlockSD = nan, nan
	f.PerFilterRel, f.PerFilterRelLo, f.PerFilterRelHi = nan, nan, nan
	f.EntryRel, f.EntryRelLo, f.EntryRelHi = nan, nan, nan
	f.BareNs, f.BareSegmentSD = nan, nan
	entrySE := nan
	for i, name := range names {
		c, lo, hi, p := res.coef[i], res.lo[i], res.hi[i], res.p[i]
		switch name {
		case "baseline":
			if hasBase {
				f.Baseline = c
			}
		case "entry":
			f.Entry, f.EntryLo, f.EntryHi, f.EntryP = c, lo, hi, p
			entrySE = res.se[i]
		case "per_filter":
			f.PerFilter, f.PerFilterLo, f.PerFilterHi, f.PerFilterP = c, lo, hi, p
			f.PerFilterSE, f.PerFilterDF = res.se[i], res.df
			if res.df >= 1 {
				f.applyPlacement(x, y, obs, i, confidence)
				f.applyTimeOrder(x, y, obs, i, confidence)
			}
		case "drift":
			f.Drift, f.DriftLo, f.DriftHi = c, lo, hi
		}
	}
	if f.Paired {
		f.relative(obs, entrySE, res.df, confidence)
	}
	f.SegmentSD = nan
	if withSegments && res.df >= 1 {
		f.applySegments(obs, confidence)
	}
	if !hasBase {
		f.Warnings = append(f.Warnings, "no N = 0 observations: entry cost and baseline cannot be separated; per-filter slope only")
	}
	if res.df < 1 {
		f.Warnings = append(f.Warnings, fmt.Sprintf("%d observations for %d parameters: no intervals; need at least %d", len(obs), len(names), len(names)+1))
	}
	return f, nil
}

// scanStack sets f.Variant and f.SeqSpan from obs and reports whether obs
// has N = 0 observations. It fails when obs mixes variants (wrapping
// ErrMixedVariants) or has fewer than two distinct filter counts ≥ 1
// (wrapping ErrNotIdentifiable).
func (f *Fit) scanStack(obs []Observation) (hasBase bool, err error) {
	counts := map[int]bool{}
	variants := map[string]bool{}
	minSeq, maxSeq := obs[0].Seq, obs[0].Seq
	for _, o := range obs {
		if o.Filters <= 0 {
			hasBase = true
		} else {
			counts[o.Filters] = true
			variants[o.Variant] = true
			f.Variant = o.Variant
		}
		minSeq, maxSeq = min(minSeq, o.Seq), max(maxSeq, o.Seq)
	}
	f.SeqSpan = maxSeq - minSeq
	if len(variants) > 1 {
		names := make([]string, 0, len(variants))
		for v := range variants {
			names = append(names, v)
		}
		slices.Sort(names)
		return hasBase, fmt.Errorf("fit stack: %w: %q (fit each variant separately)", ErrMixedVariants, names)
	}
	if len(counts) < 2 {
		return hasBase, fmt.Errorf("fit stack: %w: %d distinct filter count(s) ≥ 1, need at least 2 to separate per-filter cost from entry cost (measure e.g. 0,1,2,4,8,16,32)", ErrNotIdentifiable, len(counts))
	}
	return hasBase, nil
}

// solveStack fits y (ns per op) by least squares on the richest design
// that is identifiable: drift and the children's own baselines first,
// then without the baselines, then without drift, each fallback adding a
// warning to f. It sets f.Paired and returns the design matrix, its column
// names and the fit.
func (f *Fit) solveStack(obs []Observation, y []float64, hasBase bool, confidence float64) (*mat.Dense, []string, olsResult, error) {
	dsg := newDesign(obs, hasBase)
	build := dsg.matrix
	withSpeed := dsg.bareMean > 0
	x, names := build(true, withSpeed)
	res, err := ols(x, y, confidence)
	if errors.Is(err, ErrNotIdentifiable) && withSpeed {
		// The children's baselines are all equal, or collinear with
		// the design: nothing to adjust by.
		withSpeed = false
		f.Warnings = append(f.Warnings, "the children's own baselines do not vary independently of the design; the fit does not adjust for them")
		x, names = build(true, false)
		res, err = ols(x, y, confidence)
	}
	if errors.Is(err, ErrNotIdentifiable) {
		f.Warnings = append(f.Warnings, "Seq is constant or collinear with the filter counts; drift is not modeled and may bias the estimates")
		x, names = build(false, withSpeed)
		res, err = ols(x, y, confidence)
	}
	f.Paired = withSpeed
	return x, names, res, err
}

// design builds FitStack's design matrices for one set of observations.
type design struct {
	obs     []Observation
	hasBase bool
	// seqMean centers the drift column; bareMean is the mean of the
	// children's own baselines (0 unless paired), by which each child's
	// δ = b/b̄ − 1 is scaled (paired.go).
	seqMean, bareMean float64
}

// newDesign computes the column centers of obs.
func newDesign(obs []Observation, hasBase bool) design {
	d := design{obs: obs, hasBase: hasBase}
	for _, o := range obs {
		d.seqMean += float64(o.Seq)
	}
	d.seqMean /= float64(len(obs))
	// Paired children: each one's own baseline relative to their mean,
	// δ = b/b̄ − 1, enters as a covariate and scales the entry and
	// per-filter columns (paired.go).
	if paired(obs) {
		for _, o := range obs {
			d.bareMean += o.BaselineNs
		}
		d.bareMean /= float64(len(obs))
	}
	return d
}

// matrix returns the design matrix and its column names: intercept,
// [entry indicator], N, [centered Seq], [speed terms].
func (d design) matrix(withDrift, withSpeed bool) (*mat.Dense, []string) {
	names := []string{"baseline"}
	if d.hasBase {
		names = append(names, "entry")
	}
	names = append(names, "per_filter")
	if withDrift {
		names = append(names, "drift")
	}
	if withSpeed {
		names = append(names, "speed")
		if d.hasBase {
			names = append(names, "speed_entry")
		}
		names = append(names, "speed_filter")
	}
	x := mat.NewDense(len(d.obs), len(names), nil)
	for i, o := range d.obs {
		c := 0
		x.Set(i, c, 1)
		c++
		if d.hasBase {
			if o.Filters > 0 {
				x.Set(i, c, 1)
			}
			c++
		}
		x.Set(i, c, float64(max(o.Filters, 0)))
		c++
		if withDrift {
			x.Set(i, c, float64(o.Seq)-d.seqMean)
			c++
		}
		if withSpeed {
			s := o.BaselineNs/d.bareMean - 1
			x.Set(i, c, s)
			c++
			if d.hasBase {
				if o.Filters > 0 {
					x.Set(i, c, s)
				}
				c++
			}
			x.Set(i, c, s*float64(max(o.Filters, 0)))
		}
	}
	return x, names
}

// applyPlacement estimates the between-placement SD from the pads of obs
// and widens the per-filter interval to the placement-aware one when that
// is wider (placement.go). col is the per-filter column of x.
func (f *Fit) applyPlacement(x *mat.Dense, y []float64, obs []Observation, col int, confidence float64) {
	pr := placementFit(x, y, filtersOf(obs), clustersOf(obs, func(o Observation) int { return o.Pad }), col)
	f.Pads = max(pr.clusters, 1)
	f.PlacementSD = pr.sd
	f.widen(pr, confidence)
}

// applyTimeOrder adds a time-order term to the per-filter variance: the
// same random-slope moments as applyPlacement with the randomized blocks
// as the clusters, for what changes over the run (the host's speed, a
// neighbour's load) and moves the per-filter cost of a whole block
// together, which children treated as independent do not show. Its
// variance share σ̂_b²·Σ_b (Σ_{i∈b} N_i·(Xw)_i)² is added to the current
// per-filter variance (OLS or placement-aware), with the current degrees
// of freedom; when σ̂_b is 0 nothing changes. A cluster-robust variance
// by blocks is not used: with the few blocks of a short run it is too
// noisy to take the larger of (3 blocks covered 100 % in simulation).
func (f *Fit) applyTimeOrder(x *mat.Dense, y []float64, obs []Observation, col int, confidence float64) {
	pr := placementFit(x, y, filtersOf(obs), clustersOf(obs, func(o Observation) int { return o.Block }), col)
	f.Blocks = max(pr.clusters, 1)
	f.BlockSD = pr.sd
	if !(pr.extra > 0) || math.IsNaN(f.PerFilterSE) || !(f.PerFilterDF >= 1) {
		return
	}
	f.PerFilterSE = math.Sqrt(f.PerFilterSE*f.PerFilterSE + pr.extra)
	hw := tQuantile(confidence, f.PerFilterDF) * f.PerFilterSE
	f.PerFilterLo, f.PerFilterHi = f.PerFilter-hw, f.PerFilter+hw
	if f.PerFilterSE > 0 {
		f.PerFilterP = tTwoSidedP(f.PerFilter/f.PerFilterSE, f.PerFilterDF)
	}
}

// widen replaces the per-filter interval by the clustered one of pr when
// that is wider.
func (f *Fit) widen(pr placementResult, confidence float64) {
	if math.IsNaN(pr.se) || pr.df < 1 {
		return
	}
	curHalf := tQuantile(confidence, f.PerFilterDF) * f.PerFilterSE
	crHalf := tQuantile(confidence, pr.df) * pr.se
	if !(crHalf > curHalf) {
		return
	}
	f.PerFilterSE, f.PerFilterDF = pr.se, pr.df
	f.PerFilterLo, f.PerFilterHi = f.PerFilter-crHalf, f.PerFilter+crHalf
	if pr.se > 0 {
		f.PerFilterP = tTwoSidedP(f.PerFilter/pr.se, pr.df)
	}
}

// filtersOf returns max(Filters, 0) of each observation.
func filtersOf(obs []Observation) []int {
	out := make([]int, len(obs))
	for i, o := range obs {
		out[i] = max(o.Filters, 0)
	}
	return out
}

// clustersOf returns key(o) of each observation.
func clustersOf(obs []Observation, key func(Observation) int) []int {
	out := make([]int, len(obs))
	for i, o := range obs {
		out[i] = key(o)
	}
	return out
}

// Trend is a straight line y = Intercept + Slope·Seq fitted by least
// squares, in ns/op and ns/op per run.
type Trend struct {
	// Variant is the variant of the first observation.
	Variant string
	// Slope is the drift in ns/op per step of Seq; SlopeLo and SlopeHi bound
	// its interval and P is the two-sided p-value of "no drift".
	Slope, SlopeLo, SlopeHi, P float64
	// Intercept is the fitted ns/op at Seq = 0.
	Intercept float64
	// SeqSpan is max(Seq) - min(Seq); Slope·SeqSpan is the drift over the run.
	SeqSpan int
	// Confidence is the nominal confidence level of the interval.
	Confidence float64
	// N is the number of observations.
	N int
	// Warnings explain a missing interval.
	Warnings []string
}

// DriftEstimate fits ns/op against Seq for baseline, which should be the
// N = 0 children repeated through a run (every observation given is used).
// A slope whose interval excludes zero means the machine drifted. With only
// two observations the slope is exact and its interval NaN, with a warning.
// Errors wrap [ErrConfidence], [ErrNoObservations], [ErrBadValue] or
// [ErrNegativeFilters] (as *[ObservationError]), or [ErrNotIdentifiable]
// (all Seq equal).
func DriftEstimate(baseline []Observation, confidence float64) (Trend, error) {
	t := Trend{Confidence: confidence, N: len(baseline)}
	if err := CheckConfidence(confidence); err != nil {
		return t, fmt.Errorf("estimate drift: %w", err)
	}
	if err := checkObservations(baseline); err != nil {
		return t, fmt.Errorf("estimate drift: %w", err)
	}
	t.Variant = baseline[0].Variant
	x := mat.NewDense(len(baseline), 2, nil)
	y := make([]float64, len(baseline))
	minSeq, maxSeq := baseline[0].Seq, baseline[0].Seq
	for i, o := range baseline {
		x.Set(i, 0, 1)
		x.Set(i, 1, float64(o.Seq))
		y[i] = o.NsPerOp
		minSeq, maxSeq = min(minSeq, o.Seq), max(maxSeq, o.Seq)
	}
	t.SeqSpan = maxSeq - minSeq
	if t.SeqSpan == 0 {
		return t, fmt.Errorf("estimate drift: %w: all %d observations have Seq %d", ErrNotIdentifiable, len(baseline), minSeq)
	}
	res, err := ols(x, y, confidence)
	if err != nil {
		return t, fmt.Errorf("estimate drift: %w", err)
	}
	t.Intercept = res.coef[0]
	t.Slope, t.SlopeLo, t.SlopeHi, t.P = res.coef[1], res.lo[1], res.hi[1], res.p[1]
	if res.df < 1 {
		t.Warnings = append(t.Warnings, fmt.Sprintf("%d observations: no interval; need at least 3", len(baseline)))
	}
	return t, nil
}

// olsResult holds least-squares coefficients with t intervals.
type olsResult struct {
	coef, se, lo, hi, p []float64
	df, r2              float64
}

// ols solves min ‖y - Xβ‖ by QR and returns β with intervals
// β ± t(1-α/2, n-p)·σ̂·√((XᵀX)⁻¹)ᵢᵢ, where (XᵀX)⁻¹ = R⁻¹R⁻ᵀ. It returns
// ErrNotIdentifiable if X is (numerically) rank-deficient. With n = p the
// intervals and p-values are NaN.
func ols(x *mat.Dense, y []float64, confidence float64) (olsResult, error) {
	n, p := x.Dims()
	if n < p {
		return olsResult{}, fmt.Errorf("%w: %d observations for %d parameters", ErrNotIdentifiable, n, p)
	}
	var qr mat.QR
	qr.Factorize(x)
	if c := qr.Cond(); math.IsInf(c, 0) || math.IsNaN(c) || c > maxCond {
		return olsResult{}, fmt.Errorf("%w: design matrix is rank-deficient (condition number %.3g)", ErrNotIdentifiable, c)
	}
	var beta mat.Dense
	if err := qr.SolveTo(&beta, false, mat.NewDense(n, 1, slices.Clone(y))); err != nil {
		return olsResult{}, fmt.Errorf("%w: %w", ErrNotIdentifiable, err)
	}
	res := olsResult{
		coef: make([]float64, p), se: make([]float64, p),
		lo: make([]float64, p), hi: make([]float64, p), p: make([]float64, p),
		df: float64(n - p),
	}
	for j := range p {
		res.coef[j] = beta.At(j, 0)
	}
	var ssr float64
	ssr, res.r2 = residuals(x, y, res.coef)
	nan := math.NaN()
	if res.df < 1 {
		for j := range p {
			res.se[j], res.lo[j], res.hi[j], res.p[j] = nan, nan, nan, nan
		}
		return res, nil
	}
	if err := res.intervals(&qr, ssr, confidence); err != nil {
		return olsResult{}, err
	}
	return res, nil
}

// residuals returns the residual sum of squares of y about Xβ and the
// coefficient of determination R² (1 for an exact fit of constant y, NaN
// for an inexact one).
func residuals(x *mat.Dense, y, beta []float64) (ssr, r2 float64) {
	n, p := x.Dims()
	var ymean float64
	for _, v := range y {
		ymean += v
	}
	ymean /= float64(n)
	var sst float64
	for i := range n {
		fit := 0.0
		for j := range p {
			fit += x.At(i, j) * beta[j]
		}
		ssr += (y[i] - fit) * (y[i] - fit)
		sst += (y[i] - ymean) * (y[i] - ymean)
	}
	switch {
	case sst > 0:
		r2 = 1 - ssr/sst
	case ssr == 0:
		r2 = 1
	default:
		r2 = math.NaN()
	}
	return ssr, r2
}

// intervals sets res's standard errors, t intervals at confidence and
// two-sided p-values from the QR factorization qr of the design and the
// residual sum of squares ssr; res.df must be ≥ 1.
func (res *olsResult) intervals(qr *mat.QR, ssr, confidence float64) error {
	p := len(res.coef)
	// (XᵀX)⁻¹ = R⁻¹ R⁻ᵀ with R the p×p upper triangle of the QR factorization.
	var r mat.Dense
	qr.RTo(&r)
	rp := mat.NewTriDense(p, mat.Upper, nil)
	for i := range p {
		for j := i; j < p; j++ {
			rp.SetTri(i, j, r.At(i, j))
		}
	}
	var rinv mat.TriDense
	if err := rinv.InverseTri(rp); err != nil {
		return fmt.Errorf("%w: %w", ErrNotIdentifiable, err)
	}
	sigma2 := ssr / res.df
	tq := tQuantile(confidence, res.df)
	for j := range p {
		var v float64
		for k := j; k < p; k++ { // row j of R⁻¹ is zero left of the diagonal
			v += rinv.At(j, k) * rinv.At(j, k)
		}
		se := math.Sqrt(sigma2 * v)
		res.se[j] = se
		res.lo[j], res.hi[j] = res.coef[j]-tq*se, res.coef[j]+tq*se
		switch {
		case se > 0:
			res.p[j] = tTwoSidedP(res.coef[j]/se, res.df)
		case res.coef[j] == 0:
			res.p[j] = 1
		default:
			res.p[j] = 0
		}
	}
	return nil
}
