package stats

import (
	"math"
	"slices"
)

// This file holds the checks a run reports beside its estimates: what
// installing filters costs, whether installing them slowed unrelated code,
// machine drift, whether the per-filter cost is the same at every depth, and
// whether a run is precise enough to stop.

// Setup summarizes the seccomp(2) install times of a run.
type Setup struct {
	// PerFilterNs is the mean duration of one seccomp(2) call over every
	// call of every child, in ns, with its confidence interval.
	PerFilterNs      float64
	PerFilterCILowNs float64
	PerFilterCIHiNs  float64
	// StackNs is the mean time to install the deepest stack (StackFilter
	// filters), in ns; NaN when no child had a filter.
	StackNs     float64
	StackFilter int
}

// SetupCost summarizes the install times (Observation.InstallNs) of every
// child. ok is false with fewer than two seccomp(2) calls in all.
func SetupCost(obs []Observation, confidence float64) (s Setup, ok bool) {
	var per, stackNs []float64
	maxN := 0
	for _, o := range obs {
		maxN = max(maxN, o.Filters)
	}
	for _, o := range obs {
		var tot int64
		for _, ns := range o.InstallNs {
			per = append(per, float64(ns))
			tot += ns
		}
		if o.Filters == maxN && maxN > 0 {
			stackNs = append(stackNs, float64(tot))
		}
	}
	if len(per) < 2 {
		return Setup{}, false
	}
	sum := Normal(per, confidence)
	return Setup{PerFilterNs: sum.Mean, PerFilterCILowNs: sum.Lo, PerFilterCIHiNs: sum.Hi,
		StackNs: Normal(stackNs, confidence).Mean, StackFilter: maxN}, true
}

// Control is one variant's CPU-bound control loop after installing filters
// compared with before: a slowdown there is a mitigation's cost (e.g.
// speculative store bypass), not the filters'.
type Control struct {
	Variant string
	// BeforeNs and AfterNs are mean ns per control-loop iteration.
	BeforeNs float64
	AfterNs  float64
	// SlowdownPct is (after-before)/before in percent ([Welch]), with its
	// interval.
	SlowdownPct     float64
	SlowdownPctLow  float64
	SlowdownPctHigh float64
}

// ControlSlowdown compares, per variant, the control loop after installing
// with before, over children with at least one filter and a measured loop.
// Variants with fewer than two such children, or no defined slowdown, are
// left out.
func ControlSlowdown(obs []Observation, variants []string, confidence float64) []Control {
	var out []Control
	for _, v := range variants {
		var before, after []float64
		for _, o := range obs {
			if o.Variant == v && o.Filters > 0 && o.ControlBeforeNs > 0 {
				before = append(before, o.ControlBeforeNs)
				after = append(after, o.ControlAfterNs)
			}
		}
		if len(before) < 2 {
			continue
		}
		d := Welch(before, after, confidence)
		c := Control{Variant: v, BeforeNs: Normal(before, confidence).Mean, AfterNs: Normal(after, confidence).Mean,
			SlowdownPct: d.Pct, SlowdownPctLow: d.PctLo, SlowdownPctHigh: d.PctHi}
		if math.IsNaN(c.SlowdownPct) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// OverRun is the drift over the whole run, Slope·SeqSpan, in ns/op.
func (t Trend) OverRun() float64 { return t.Slope * float64(t.SeqSpan) }

// DriftByVariant estimates, per variant, the drift of the baseline (N = 0)
// children over the run ([DriftEstimate]): they recur in every block, so
// their trend is the machine's. Variants without an interval (too few
// baseline children) are left out.
func DriftByVariant(obs []Observation, variants []string, confidence float64) []Trend {
	var out []Trend
	for _, v := range variants {
		var base []Observation
		for _, o := range obs {
			if o.Variant == v && o.Filters == 0 {
				base = append(base, o)
			}
		}
		tr, err := DriftEstimate(base, confidence)
		if err != nil || math.IsNaN(tr.SlopeLo) || math.IsNaN(tr.SlopeHi) {
			continue
		}
		out = append(out, tr)
	}
	return out
}

// Linearity compares one variant's per-filter cost between the two smallest
// filter counts ≥ 1 (Low) with that between the two largest (High), in
// ns/op per filter with intervals ([Welch] difference of the cells divided
// by the count difference). A linear model assumes they are equal.
type Linearity struct {
	Variant string
	// Loader is the cells' loader ("" when not recorded).
	Loader         string
	LowFrom        int
	LowTo          int
	LowNs          float64
	LowCILowNs     float64
	LowCIHighNs    float64
	HighFrom       int
	HighTo         int
	HighNs         float64
	HighCILowNs    float64
	HighCIHighNs   float64
	DiffersFromFit bool
}

// DepthLinearity runs the Linearity check for each variant with at least
// four filter counts ≥ 1 in res. DiffersFromFit is set when the two
// intervals do not overlap. Variants whose slopes are undefined are left
// out.
func DepthLinearity(res Result, variants []string, confidence float64) []Linearity {
	var out []Linearity
	type group struct{ v, l string }
	var groups []group
	for _, v := range variants {
		for _, c := range res.Cells {
			if g := (group{v, c.Loader}); c.Variant == v && !slices.Contains(groups, g) {
				groups = append(groups, g)
			}
		}
	}
	for _, g := range groups {
		v := g.v
		var cells []CellResult
		for _, c := range res.Cells {
			if c.Variant == v && c.Loader == g.l && c.Filters >= 1 {
				cells = append(cells, c)
			}
		}
		if len(cells) < 4 {
			continue
		}
		slope := func(a, b CellResult) (float64, float64, float64) {
			d := Welch(a.Samples, b.Samples, confidence)
			n := float64(b.Filters - a.Filters)
			return d.Delta / n, d.Lo / n, d.Hi / n
		}
		lo, hi := cells[:2], cells[len(cells)-2:]
		l := Linearity{Variant: v, Loader: g.l, LowFrom: lo[0].Filters, LowTo: lo[1].Filters, HighFrom: hi[0].Filters, HighTo: hi[1].Filters}
		l.LowNs, l.LowCILowNs, l.LowCIHighNs = slope(lo[0], lo[1])
		l.HighNs, l.HighCILowNs, l.HighCIHighNs = slope(hi[0], hi[1])
		if math.IsNaN(l.LowNs) || math.IsNaN(l.HighNs) || math.IsNaN(l.LowCILowNs) || math.IsNaN(l.HighCILowNs) {
			continue
		}
		l.DiffersFromFit = l.LowCIHighNs < l.HighCILowNs || l.HighCIHighNs < l.LowCILowNs
		out = append(out, l)
	}
	return out
}

// OutlierCount returns the children flagged as outliers ([Outliers]) over
// every cell, and all children.
func (r Result) OutlierCount() (outliers, n int) {
	for _, c := range r.Cells {
		outliers += c.Outliers
		n += c.Summary.N
	}
	return outliers, n
}

// Target is a precision goal for the per-filter cost: the interval's
// half-width at most CI ns, or, when Rel, at most the fraction CI of the
// estimate.
type Target struct {
	CI  float64
	Rel bool
}

// MetBy reports whether one variant's fit meets the target. A relative
// target is a fraction of the per-filter estimate; when that estimate is
// indistinguishable from 0 (its interval includes 0, as for syscalls the
// action cache serves), no fraction of it can be reached, so the target
// becomes that fraction of 1 % of the 0-filter baseline: 5 % means
// "per-filter cost known to ±0.05 ns" for a 100 ns syscall.
func (t Target) MetBy(f Fit) bool {
	if !t.Rel {
		return f.PreciseTo(t.CI, 0)
	}
	if f.PerFilterLo <= 0 && f.PerFilterHi >= 0 && !math.IsNaN(f.Baseline) {
		return f.PreciseTo(t.CI*0.01*math.Abs(f.Baseline), 0)
	}
	return f.PreciseTo(0, t.CI)
}

// PreciseEnough reports whether every variant's per-filter fit ([FitStack])
// over obs meets the target, one fit per loader of the variant; a variant
// or loader that cannot be fitted does not.
func PreciseEnough(obs []Observation, variants []string, confidence float64, t Target) bool {
	for _, v := range variants {
		byLoader := map[string][]Observation{}
		var loaders []string
		for _, o := range obs {
			if o.Variant != v {
				continue
			}
			if _, ok := byLoader[o.Loader]; !ok {
				loaders = append(loaders, o.Loader)
			}
			byLoader[o.Loader] = append(byLoader[o.Loader], o)
		}
		if len(loaders) == 0 {
			return false
		}
		for _, l := range loaders {
			f, err := FitStack(byLoader[l], confidence)
			if err != nil || !t.MetBy(f) {
				return false
			}
		}
	}
	return true
}

// InverseVarianceMean combines estimates of one quantity, weighting each by
// 1/half-width²; without usable intervals it returns their plain mean with
// NaN bounds, and all zero for none.
func InverseVarianceMean(es []Estimate) Estimate {
	if len(es) == 0 {
		return Estimate{}
	}
	var sw, swx, sum float64
	ok := true
	for _, e := range es {
		hw := (e.Hi - e.Lo) / 2
		sum += e.Center
		if !(hw > 0) {
			ok = false
			continue
		}
		sw += 1 / (hw * hw)
		swx += e.Center / (hw * hw)
	}
	if !ok {
		c := sum / float64(len(es))
		return Estimate{Center: c, Lo: math.NaN(), Hi: math.NaN()}
	}
	c, hw := swx/sw, 1/math.Sqrt(sw)
	return Estimate{Center: c, Lo: c - hw, Hi: c + hw}
}

// AtDepth evaluates a fitted line at n filters: entry + n·perFilter, in
// ns/op, half-widths combined as independent.
func AtDepth(entry, perFilter Estimate, n int) Estimate {
	c := entry.Center + float64(n)*perFilter.Center
	he, hp := (entry.Hi-entry.Lo)/2, (perFilter.Hi-perFilter.Lo)/2*float64(n)
	hw := math.Sqrt(he*he + hp*hp)
	return Estimate{Center: c, Lo: c - hw, Hi: c + hw}
}
