package stats

import (
	"cmp"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
)

// CellResult is the analysis of one cell: one variant at one filter count.
type CellResult struct {
	// Variant, Loader and Filters identify the cell (Filters = N, 0 =
	// baseline; Loader "" when the run did not record one).
	Variant string
	Loader  string
	Filters int
	// Summary is [Normal] or, with [Options].Robust, [Robust] of Samples.
	Summary Summary
	// Overhead compares the cell with its variant's N = 0 baseline ([Welch],
	// or [RobustDiff] with Options.Robust). For the baseline cell itself it
	// is zero by definition: Delta, Lo, Hi and the percentages are 0, P is 1.
	Overhead Diff
	// Samples are the cell's ns/op values in run (Seq) order.
	Samples []float64
	// Pads are the samples' pads (Observation.Pad), aligned with Samples.
	Pads []int
	// Outliers is the number of samples flagged by [Outliers]; they are
	// kept in every estimate. OutlierIndex holds their indices in Samples.
	Outliers     int
	OutlierIndex []int
}

// Result is the analysis of one run.
type Result struct {
	// Cells are ordered by variant (see [Options].Variants), then by
	// ascending filter count.
	Cells []CellResult
	// Fits holds one [FitStack] result per variant and loader that has at
	// least two filter counts ≥ 1, in the order of Cells; each carries its
	// Variant and Loader. A slice rather than a map keeps the order
	// deterministic.
	Fits []Fit
	// LoaderDiffs compares, per variant measured with more than one
	// loader, the per-filter cost of the first loader (Options.Loaders
	// order) with each other one ([DiffFits]).
	LoaderDiffs []FitDiff
	// Confidence is the confidence level of every interval in the result.
	Confidence float64
	// Robust reports whether cells use median/bootstrap (true) or mean/t.
	Robust bool
	// Warnings concern the run as a whole (missing fits, drift); cell and
	// fit warnings stay with their cell or fit (see [Result.AllWarnings]).
	Warnings []string
}

// Fit returns the first fit for variant (of any loader) and whether there
// is one; see [Result.FitFor] when a run measured several loaders.
func (r Result) Fit(variant string) (Fit, bool) {
	for _, f := range r.Fits {
		if f.Variant == variant {
			return f, true
		}
	}
	return Fit{}, false
}

// FitFor returns the fit for variant and loader and whether there is one.
func (r Result) FitFor(variant, loader string) (Fit, bool) {
	for _, f := range r.Fits {
		if f.Variant == variant && f.Loader == loader {
			return f, true
		}
	}
	return Fit{}, false
}

// where names a variant and loader in warnings: `variant "on"` or
// `variant "on", loader "privileged"`.
func where(variant, loader string) string {
	if loader == "" {
		return fmt.Sprintf("variant %q", variant)
	}
	return fmt.Sprintf("variant %q, loader %q", variant, loader)
}

// AllWarnings returns the run's warnings followed by every fit's and cell's,
// each prefixed with where it comes from, e.g. `variant "on", 4 filters: …`.
func (r Result) AllWarnings() []string {
	out := slices.Clone(r.Warnings)
	for _, f := range r.Fits {
		for _, w := range f.Warnings {
			out = append(out, fmt.Sprintf("%s, stack fit: %s", where(f.Variant, f.Loader), w))
		}
	}
	for _, d := range r.LoaderDiffs {
		for _, w := range d.Warnings {
			out = append(out, fmt.Sprintf("variant %q, loader difference: %s", d.Variant, w))
		}
	}
	for _, c := range r.Cells {
		where := fmt.Sprintf("%s, %d filters", where(c.Variant, c.Loader), c.Filters)
		for _, w := range c.Summary.Warnings {
			out = append(out, where+": "+w)
		}
		for _, w := range c.Overhead.Warnings {
			out = append(out, where+", overhead: "+w)
		}
	}
	return out
}

type cellKey struct {
	variant string
	loader  string
	filters int
}

// groupKey is one fit's observations: a variant and a loader.
type groupKey struct {
	variant string
	loader  string
}

// Analyze groups obs into cells (variant × filter count), summarizes each
// cell, compares it with its variant's N = 0 baseline, flags outliers, and
// fits the stack model ([FitStack]) per variant. A variant without its own
// N = 0 cell is compared with, and fitted against, the N = 0 observations of
// all variants pooled (no filter means the variant does not matter). A
// variant with at least one count ≥ 1 but no usable fit (e.g. a single
// count) gets a warning, not an error; so do significant drift (its interval
// excludes 0 and it moves the baseline by more than
// Thresholds.DriftFraction over the run), too few samples and outliers.
//
// Errors wrap [ErrConfidence], [ErrNoObservations], or [ErrBadValue] or
// [ErrNegativeFilters] (as *[ObservationError]).
func Analyze(obs []Observation, opt Options) (Result, error) {
	conf := opt.Confidence
	if conf == 0 {
		conf = DefaultConfidence
	}
	if err := CheckConfidence(conf); err != nil {
		return Result{}, fmt.Errorf("analyze: %w", err)
	}
	if err := checkObservations(obs); err != nil {
		return Result{}, fmt.Errorf("analyze: %w", err)
	}
	th := opt.Thresholds.withDefaults()
	res := Result{Confidence: conf, Robust: opt.Robust}

	p := partitionObservations(obs, opt)
	for _, k := range p.keys {
		base, own := p.baseOf(groupKey{k.variant, k.loader})
		res.Cells = append(res.Cells, analyzeCell(k, p.cells[k], base, own, conf, opt, th))
	}
	if err := p.fitGroups(&res, conf, th); err != nil {
		return Result{}, err
	}
	if w := shortRunWarning(res.Fits); w != "" {
		res.Warnings = append(res.Warnings, w)
	}
	res.LoaderDiffs = loaderDiffs(res.Fits, p.variants)
	return res, nil
}

// partition is the observations of one analysis sorted by Seq and grouped
// by cell and by (variant, loader) group, with the cells and groups in
// report order.
type partition struct {
	cells      map[cellKey][]Observation
	byGroup    map[groupKey][]Observation
	pooledBase []Observation // the N = 0 observations of all variants
	variants   []string      // in Options.Variants order, then first seen
	keys       []cellKey     // by variant, loader, then filter count
	groups     []groupKey    // by variant, then loader
}

// partitionObservations sorts obs by Seq (stably) and groups them into
// cells and (variant, loader) groups, ordered by opt.Variants and
// opt.Loaders and then by first appearance.
func partitionObservations(obs []Observation, opt Options) partition {
	sorted := slices.Clone(obs)
	slices.SortStableFunc(sorted, func(a, b Observation) int { return cmp.Compare(a.Seq, b.Seq) })
	p := partition{cells: map[cellKey][]Observation{}, byGroup: map[groupKey][]Observation{}}
	byVariant := map[string][]Observation{}
	byLoader := map[string][]Observation{}
	for _, o := range sorted {
		k := cellKey{o.Variant, o.Loader, max(o.Filters, 0)}
		p.cells[k] = append(p.cells[k], o)
		byVariant[o.Variant] = append(byVariant[o.Variant], o)
		byLoader[o.Loader] = append(byLoader[o.Loader], o)
		g := groupKey{o.Variant, o.Loader}
		p.byGroup[g] = append(p.byGroup[g], o)
		if k.filters == 0 {
			p.pooledBase = append(p.pooledBase, o)
		}
	}
	p.variants = orderVariants(byVariant, opt.Variants)
	loaders := orderVariants(byLoader, opt.Loaders)
	rank, lrank := map[string]int{}, map[string]int{}
	for i, v := range p.variants {
		rank[v] = i
	}
	for i, l := range loaders {
		lrank[l] = i
	}

	p.keys = make([]cellKey, 0, len(p.cells))
	for k := range p.cells {
		p.keys = append(p.keys, k)
	}
	slices.SortFunc(p.keys, func(a, b cellKey) int {
		return cmp.Or(cmp.Compare(rank[a.variant], rank[b.variant]), cmp.Compare(lrank[a.loader], lrank[b.loader]), cmp.Compare(a.filters, b.filters))
	})
	p.groups = make([]groupKey, 0, len(p.byGroup))
	for g := range p.byGroup {
		p.groups = append(p.groups, g)
	}
	slices.SortFunc(p.groups, func(a, b groupKey) int {
		return cmp.Or(cmp.Compare(rank[a.variant], rank[b.variant]), cmp.Compare(lrank[a.loader], lrank[b.loader]))
	})
	return p
}

// baseOf returns group g's N = 0 observations and true, or the pooled
// N = 0 observations of all variants and false when g has none of its own.
func (p partition) baseOf(g groupKey) ([]Observation, bool) {
	if b, ok := p.cells[cellKey{g.variant, g.loader, 0}]; ok {
		return b, true
	}
	return p.pooledBase, false
}

// fitGroups fits the per-filter line of every group with a stack (N > 0)
// against its base, appending the fits and their drift warnings to res; a
// group whose fit is not identifiable gets a warning instead. Other fit
// errors are returned.
func (p partition) fitGroups(res *Result, conf float64, th Thresholds) error {
	for _, g := range p.groups {
		hasStack := slices.ContainsFunc(p.byGroup[g], func(o Observation) bool { return o.Filters > 0 })
		if !hasStack {
			continue
		}
		fitObs := slices.DeleteFunc(slices.Clone(p.byGroup[g]), func(o Observation) bool { return o.Filters <= 0 })
		base, _ := p.baseOf(g)
		fitObs = append(fitObs, base...)
		f, err := FitStack(fitObs, conf)
		if err != nil {
			if errors.Is(err, ErrNotIdentifiable) {
				res.Warnings = append(res.Warnings, fmt.Sprintf("%s: no per-filter fit: %v", where(g.variant, g.loader), err))
				continue
			}
			return fmt.Errorf("analyze %s: %w", where(g.variant, g.loader), err)
		}
		f.Variant, f.Loader = g.variant, g.loader
		if w := driftWarning(f, th); w != "" {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s: %s", where(g.variant, g.loader), w))
		}
		res.Fits = append(res.Fits, f)
	}
	return nil
}

// loaderDiffs compares, for each variant in order, the fit of its first
// loader with the fit of each other loader.
func loaderDiffs(fits []Fit, variants []string) []FitDiff {
	var out []FitDiff
	for _, v := range variants {
		var fs []Fit
		for _, f := range fits {
			if f.Variant == v {
				fs = append(fs, f)
			}
		}
		for _, f := range fs[min(1, len(fs)):] {
			out = append(out, DiffFits(fs[0], f))
		}
	}
	return out
}

// analyzeCell summarizes one cell's observations obs, flags its outliers
// and compares it with base, its group's N = 0 observations (own false
// when they are the pooled ones of all variants).
func analyzeCell(k cellKey, obs, base []Observation, own bool, conf float64, opt Options, th Thresholds) CellResult {
	xs := values(obs)
	seed := cellSeed(opt.Seed, k)
	c := CellResult{Variant: k.variant, Loader: k.loader, Filters: k.filters, Samples: xs, Pads: pads(obs)}
	if opt.Robust {
		c.Summary = robust(xs, conf, seed, th)
	} else {
		c.Summary = normal(xs, conf, th)
	}
	c.OutlierIndex = Outliers(xs, th.OutlierK)
	c.Outliers = len(c.OutlierIndex)
	if c.Outliers > 0 {
		c.Summary.Warnings = append(c.Summary.Warnings, fmt.Sprintf(
			"%d of %d samples are outliers by the median/MAD rule (|modified z| > %g); kept in every estimate",
			c.Outliers, len(xs), th.OutlierK))
	}
	switch {
	case k.filters == 0:
		c.Overhead = Diff{Confidence: conf, N1: len(xs), N2: len(xs), P: 1, DF: math.NaN()}
	case len(base) == 0:
		c.Overhead = Diff{Confidence: conf, N2: len(xs)}
		nan := math.NaN()
		c.Overhead.Delta, c.Overhead.Lo, c.Overhead.Hi, c.Overhead.P, c.Overhead.DF = nan, nan, nan, nan, nan
		c.Overhead.Pct, c.Overhead.PctLo, c.Overhead.PctHi = nan, nan, nan
		c.Overhead.Warnings = []string{"no N = 0 baseline observations; measure filter count 0"}
	default:
		bs := values(base)
		if opt.Robust {
			c.Overhead = robustDiff(bs, xs, conf, seed^0x5bd1e995, th)
		} else {
			c.Overhead = welch(bs, xs, conf, th)
		}
		if !own {
			c.Overhead.Warnings = append(c.Overhead.Warnings, "compared with the N = 0 observations of all variants pooled")
		}
	}
	return c
}

// pads returns the Pad of obs in order.
func pads(obs []Observation) []int {
	ps := make([]int, len(obs))
	for i, o := range obs {
		ps[i] = o.Pad
	}
	return ps
}

// driftWarning returns a warning if the fitted drift is significant and moves
// the baseline by more than th.DriftFraction over the run.
func driftWarning(f Fit, th Thresholds) string {
	if !(f.DriftLo > 0 || f.DriftHi < 0) || !(f.Baseline > 0) {
		return ""
	}
	total := f.Drift * float64(f.SeqSpan)
	if math.Abs(total) <= th.DriftFraction*f.Baseline {
		return ""
	}
	// SeqSpan steps of Seq: the children from the variant's first to its
	// last, inclusive, every variant's counted (they share one run order).
	return fmt.Sprintf("machine drifted by %.1f ns/op (%.1f %% of the baseline) over %d children (first to last child of the variant, all variants counted); the fit corrects for linear drift, but check the machine is quiet",
		total, 100*total/f.Baseline, f.SeqSpan+1)
}

// orderVariants lists the variants of byVariant: those in want first, in
// that order, then the rest lexically.
func orderVariants(byVariant map[string][]Observation, want []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, v := range want {
		if _, ok := byVariant[v]; ok && !seen[v] {
			out = append(out, v)
			seen[v] = true
		}
	}
	var rest []string
	for v := range byVariant {
		if !seen[v] {
			rest = append(rest, v)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

// values returns the NsPerOp of obs in order.
func values(obs []Observation) []float64 {
	xs := make([]float64, len(obs))
	for i, o := range obs {
		xs[i] = o.NsPerOp
	}
	return xs
}

// cellSeed derives a per-cell bootstrap seed from the run seed, so a cell's
// interval does not depend on which other cells exist.
func cellSeed(seed uint64, k cellKey) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%d", k.variant, k.filters)
	if k.loader != "" {
		fmt.Fprintf(h, "\x00%s", k.loader)
	}
	return seed ^ h.Sum64()
}
