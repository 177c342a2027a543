package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/report/internal/text"
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/stats"
)

// Conclusion sentences. A report states a conclusion ("no mitigation
// slowdown", "per-filter cost ~0", "each filter adds ...", "the cache
// serves ...") only when the interval behind it supports it
// (a stats.Margins verdict: the interval against the margin below which
// the effect does not matter). Otherwise it says the run is inconclusive, how far the interval
// would have to shrink, and how to get there. An estimate that filters
// cannot produce (a negative cost) is said to be unanswerable by this run.

// margins are the decision margins behind every conclusion; they live in
// stats ([stats.Margins]), the wording here only reports the verdicts.
var margins = stats.DefaultMargins()

// inconclusiveAdvice says how far an interval (in unit) must shrink and
// how: more trials (scaled from trials by the conclusion's factor),
// --target-ci, a quieter CPU.
//
// div scales the half-widths for display (ns per unit: 1e6 when unit is
// " ms"); --target-ci's value stays in ns, the flag's unit.
func inconclusiveAdvice(c stats.Conclusion, unit string, div float64, trials int, targetCI bool) string {
	if c.Shrink <= 0 || math.IsInf(c.TrialsFactor, 1) {
		return "no narrower interval around this estimate would decide it; measure again with more --trials on a quieter CPU"
	}
	var b strings.Builder
	// One fact each, joined by "; ": renderClauses makes them sentences.
	fmt.Fprintf(&b, "the interval (±%.3g%s) would have to shrink to ±%.3g%s, %sx narrower", c.HalfWidth/div, unit, c.NeedHalfWidth/div, unit, factorText(1/c.Shrink))
	if trials > 0 {
		need := int(math.Ceil(float64(trials) * c.TrialsFactor))
		fmt.Fprintf(&b, "; that takes about %sx the children (--trials %d instead of %d)", factorText(c.TrialsFactor), need, trials)
	} else {
		fmt.Fprintf(&b, "; that takes about %sx the children", factorText(c.TrialsFactor))
	}
	if targetCI {
		fmt.Fprintf(&b, "; --target-ci %.3g (ns) adds blocks until it has", c.NeedHalfWidth)
	}
	b.WriteString("; a quieter CPU (idle machine, no other run on the measuring CPU) narrows it too")
	return b.String()
}

// controlConclusion says what a control-loop comparison supports, given
// the kernel's spec_store_bypass state ssb ("" if unknown), the run's
// trials and confidence: a mitigation's cost only when the whole interval
// lies above the ±stats.Margins.ControlNoisePct band, "no mitigation slowdown" only when
// it lies within it.
func controlConclusion(c document.Control, ssb string, trials int) Clause {
	con := margins.ConcludeControl(c.SlowdownPct, c.SlowdownPctLow, c.SlowdownPctHigh)
	noise := margins.Control()
	switch {
	case math.IsNaN(c.SlowdownPct):
		return newClause("control_none", "no control-loop comparison: the control loop was not timed before and after installing (see the warnings)")
	case math.IsNaN(c.SlowdownPctLow) || math.IsNaN(c.SlowdownPctHigh):
		return newClause("control_no_interval", "no interval for the control loop's change (too few children), so this run says nothing about a mitigation's slowdown")
	case c.SlowdownPctLow > noise:
		v := "installing filters slowed code that makes no syscall, beyond run-to-run noise: a mitigation's cost (e.g. speculative store bypass), not filter evaluation"
		if ssb != "" {
			v += " (spec_store_bypass: " + ssb + ")"
		}
		return newClause("control_mitigation_slowdown", v)
	case con.Verdict == stats.Negligible:
		return newClause("control_no_slowdown", fmt.Sprintf("no mitigation slowdown detected: the interval lies within the ±%g %% this comparison swings between runs", noise))
	case con.Verdict == stats.Negative:
		return newClause("control_negative", "code that makes no syscall ran faster after installing filters, which filters cannot cause: noise or drift dominates, so this run cannot answer whether a mitigation slows it; measure again with more --trials on a quieter CPU")
	case c.SlowdownPctLow > 0:
		return newClause("control_within_noise", fmt.Sprintf("a slowdown, but its interval reaches into the ±%g %% this comparison swings between runs: not attributed to a mitigation", noise))
	}
	return newClause("control_inconclusive", fmt.Sprintf("inconclusive: the interval is too wide to tell a mitigation's slowdown from the ±%g %% run-to-run noise; %s",
		noise, inconclusiveAdvice(con, " points", 1, trials, false)))
}

// perFilterConclusion is the clause of Explain about a fit's per-filter
// cost. A cost or interval that could not be estimated yields no
// conclusion, only that statement.
func perFilterConclusion(fit document.Fit, conf float64, trials int) Clause {
	switch {
	case math.IsNaN(fit.PerFilterNs):
		return newClause("per_filter_undefined", "no per-filter cost could be estimated from this run (see the warnings)")
	case math.IsNaN(fit.PerFilterCILowNs) || math.IsNaN(fit.PerFilterCIHighNs):
		return newClause("per_filter_no_interval", fmt.Sprintf("the per-filter cost came out at %s with no interval (too few children: see the warnings), so this run supports no conclusion about it", text.Figure(fit.PerFilterNs)), "per_filter_ns", fit.PerFilterNs)
	}
	g := text.FigureGroup(false, false, fit.PerFilterNs, fit.PerFilterCILowNs, fit.PerFilterCIHighNs)
	scale, unit := text.UnitOf(max(math.Abs(fit.PerFilterNs), math.Abs(fit.PerFilterCILowNs), math.Abs(fit.PerFilterCIHighNs)))
	v := g(fit.PerFilterNs) + " " + unit
	ci := fmt.Sprintf("%.0f%% CI [%s, %s]", conf*100, g(fit.PerFilterCILowNs), g(fit.PerFilterCIHighNs))
	con := margins.ConcludePerFilter(fit.PerFilterNs, fit.PerFilterCILowNs, fit.PerFilterCIHighNs, fit.BaselineNs)
	m := con.Margin
	figs := []any{"per_filter_ns", fit.PerFilterNs, "ci_low_ns", fit.PerFilterCILowNs, "ci_high_ns", fit.PerFilterCIHighNs, "confidence", conf, "margin_ns", m}
	switch con.Verdict {
	case stats.Negligible:
		return newClause("per_filter_negligible", fmt.Sprintf("per-filter cost ~0 %s (%s, %s, within ±%s)", unit, v, ci, text.Figure(m)), figs...)
	case stats.Positive:
		return newClause("per_filter_positive", fmt.Sprintf("each filter adds %s per op (%s)", v, ci), figs...)
	case stats.Negative:
		return newClause("per_filter_negative", fmt.Sprintf("the per-filter cost came out negative (%s, %s), which no filter can cause: noise or drift dominates, so this run cannot answer what a filter costs; measure again with more --trials on a quieter CPU", v, ci), figs...)
	}
	return newClause("per_filter_inconclusive", fmt.Sprintf("the per-filter cost is inconclusive (%s, %s): it can be told neither from 0 nor bounded within ±%s; %s%s",
		v, ci, text.Figure(m), inconclusiveAdvice(con, " "+unit, scale, trials, true), segmentCaveat(fit)), figs...)
}

// segmentCaveat qualifies the square-root rule of inconclusiveAdvice by
// the time segments (stats/segments.go): a run of fewer than 15 blocks
// gains the segment term when it grows, and a run whose interval is the
// segment one narrows with more trials only as far as the host's speed
// averages out over longer parts. "" for a fit without blocks.
func segmentCaveat(fit document.Fit) string {
	switch {
	case fit.Segments == 0 && fit.Blocks >= 2:
		return "; from 15 trials on, the interval also includes how the host's speed wanders between parts of the run, so it may widen before it narrows"
	case fit.Segments > 0:
		return "; the interval includes how the host's speed wanders between parts of the run; more trials narrow that only as far as the wander averages out over longer parts"
	}
	return ""
}

// entryConclusion is the clause of Explain about a fit's entry cost;
// false when there is nothing to say: an entry within its margin is not
// worth a statement.
func entryConclusion(fit document.Fit, conf float64, trials int) (Clause, bool) {
	con := margins.ConcludeEntry(fit.EntryNs, fit.EntryCILowNs, fit.EntryCIHighNs, fit.BaselineNs)
	g := text.FigureGroup(false, false, fit.EntryNs, fit.EntryCILowNs, fit.EntryCIHighNs)
	_, unit := text.UnitOf(max(math.Abs(fit.EntryNs), math.Abs(fit.EntryCILowNs), math.Abs(fit.EntryCIHighNs)))
	ci := fmt.Sprintf("%.0f%% CI [%s, %s]", conf*100, g(fit.EntryCILowNs), g(fit.EntryCIHighNs))
	var c Clause
	figs := []any{"entry_ns", fit.EntryNs, "ci_low_ns", fit.EntryCILowNs, "ci_high_ns", fit.EntryCIHighNs, "confidence", conf}
	switch con.Verdict {
	case stats.Positive:
		c = newClause("entry_positive", fmt.Sprintf("turning filtering on costs %s %s per op once (entry, %s)", g(fit.EntryNs), unit, ci), figs...)
	case stats.Negative:
		c = newClause("entry_negative", fmt.Sprintf("the entry term came out negative (%s %s, %s), which no filter can cause: this run cannot answer what turning filtering on costs", g(fit.EntryNs), unit, ci), figs...)
	default:
		return Clause{}, false
	}
	if margins.LowFit(fit.R2) && fit.N > 0 {
		c.text += fmt.Sprintf("; the fitted line explains %.1f %% of the spread between children (R² %.3f)", 100*math.Max(0, fit.R2), Num(fit.R2))
		c.Figures["r2"] = document.Nullable(fit.R2)
	}
	return c, true
}

// cacheSupported reports whether the variant's measurement supports the
// emulator's prediction that the cache serves its syscalls: the kernel
// has the action cache and the fitted per-filter cost is negligible. No
// fit, or one with no interval, confirms nothing.
func cacheSupported(d *document.Document, fit *document.Fit) bool {
	if fit == nil || kernelLacksCache(d) {
		return false
	}
	return margins.ConcludePerFilter(fit.PerFilterNs, fit.PerFilterCILowNs, fit.PerFilterCIHighNs, fit.BaselineNs).Verdict == stats.Negligible
}

// kernelLacksCache reports whether the document's kernel release (uname
// -r) predates the seccomp action cache, Linux 5.11 (kernel/seccomp.c:
// seccomp_cache_prepare). An unparsable release reports false.
func kernelLacksCache(d *document.Document) bool {
	var major, minor int
	if _, err := fmt.Sscanf(d.Environment.Kernel, "%d.%d", &major, &minor); err != nil {
		return false
	}
	return major < 5 || major == 5 && minor < 11
}

// anyPaired reports whether a fit of d adjusted for the children's own
// baselines, so that the relative figures exist.
func anyPaired(d *document.Document) bool {
	for _, f := range d.Fits {
		if f.Paired {
			return true
		}
	}
	return false
}

// relCells formats a fit's relative per-filter cost and its interval for
// a table: "+0.262x" and "[0.251, 0.273]", or "n/a" and "-" when the fit
// is unpaired or has no interval.
func relCells(f document.Fit) (center, ci string) {
	if !f.Paired || math.IsNaN(f.PerFilterRel) {
		return "n/a", "-"
	}
	dg := relDigits(f.PerFilterRelCILow, f.PerFilterRelCIHigh)
	center = fmt.Sprintf("%+.*fx", dg, Num(f.PerFilterRel))
	if math.IsNaN(f.PerFilterRelCILow) || math.IsNaN(f.PerFilterRelCIHigh) {
		return center, "-"
	}
	return center, fmt.Sprintf("[%.*f, %.*f]", dg, Num(f.PerFilterRelCILow), dg, Num(f.PerFilterRelCIHigh))
}

// relDigits returns the decimals that show a relative figure's interval
// [lo, hi]: 3, or more (at most 6) when the interval is so narrow that 3
// decimals would print it as one number ("[0.000, 0.000]" for a cached
// variant's ±0.0003).
func relDigits(lo, hi float64) int {
	w := hi - lo
	if math.IsNaN(w) || w <= 0 || w >= 0.01 {
		return 3
	}
	return min(6, max(3, int(math.Ceil(-math.Log10(w)))+1))
}

// relativeClause states a paired fit's per-filter cost as a fraction of
// the bare op measured in the same children, starting with "; " ("" when
// the fit is unpaired or the fraction undefined), and how far the host's
// speed moved over the run.
func relativeClause(d *document.Document, fit document.Fit, conf float64) (Clause, bool) {
	if !fit.Paired || math.IsNaN(fit.PerFilterRel) || math.IsNaN(fit.PerFilterRelCILow) {
		return Clause{}, false
	}
	u := unitFor(fit.BaselineNs)
	dg := relDigits(fit.PerFilterRelCILow, fit.PerFilterRelCIHigh)
	s := fmt.Sprintf("relative to the bare op measured in the same children (%s %s), %+.*f× %s per filter (%.0f%% CI [%.*f, %.*f]), a figure the host's speed does not move",
		u.f0(fit.BareNs), u.name, dg, Num(fit.PerFilterRel), d.Config.Workload, conf*100, dg, Num(fit.PerFilterRelCILow), dg, Num(fit.PerFilterRelCIHigh))
	if !math.IsNaN(fit.BareSegmentSDPct) {
		s += fmt.Sprintf("; the bare op moved by ±%.1f %% between blocks of this run; a host that is faster or slower for a whole run moves the ns figures by as much and this one not", Num(fit.BareSegmentSDPct))
	}
	return newClause("relative", s, "bare_ns", fit.BareNs, "per_filter_rel", fit.PerFilterRel, "ci_low", fit.PerFilterRelCILow, "ci_high", fit.PerFilterRelCIHigh,
		"confidence", conf, "bare_segment_sd_pct", fit.BareSegmentSDPct), true
}

// NegativeCells returns one sentence per variant whose cells measured
// faster with filters than without, with intervals entirely below zero:
// something filters cannot cause, so the run cannot answer for those
// cells.
func NegativeCells(d *document.Document) []string {
	var out []string
	for _, v := range d.Config.Variants {
		var cells []string
		for _, r := range d.Results {
			if r.Variant != v || r.Filters == 0 || !(r.OverheadCIHighNs < 0) {
				continue
			}
			cells = append(cells, fmt.Sprintf("%d filters %+.1f %% (CI [%+.1f, %+.1f] ns)", r.Filters, Num(r.OverheadPct), Num(r.OverheadCILowNs), Num(r.OverheadCIHighNs)))
		}
		if len(cells) == 0 {
			continue
		}
		out = append(out, fmt.Sprintf("%s: measured faster with filters than without at %s, which filters cannot cause: noise or drift dominates, so this run cannot answer for these cells; measure again with more --trials on a quieter CPU",
			v, strings.Join(cells, ", ")))
	}
	return out
}

// foreignLoadText says how much of the measuring CPUs' time other
// processes took, e.g. "other processes took 3 % of CPU 1 while children
// ran", and, when that is enough to matter, large after it.
func foreignLoadText(f *result.ForeignLoad, large string) string {
	cpus := make([]string, len(f.CPUs))
	for i, c := range f.CPUs {
		cpus[i] = fmt.Sprint(c)
	}
	word := "CPU"
	if len(cpus) > 1 {
		word = "CPUs"
	}
	s := fmt.Sprintf("other processes took %.0f %% of measuring %s %s while children ran%s", 100*f.Share, word, strings.Join(cpus, ", "), f.OtherRunsText())
	if f.Large() {
		s += large
	}
	return s
}

// runTrials is the number of randomized blocks the run completed (its
// --trials when the document does not say).
func runTrials(d *document.Document) int {
	if d.Run != nil && d.Run.Blocks > 0 {
		return d.Run.Blocks
	}
	return d.Config.Trials
}

// cellCI formats an interval as "[lo, hi]" (with signs when signed), or
// as "- (n=1)" when fewer than two children stand behind it: one child has
// no interval, and "[0.0, 0.0]" would read as a precise zero.
func cellCI(n int, lo, hi float64, signed bool) string {
	if n < 2 {
		return fmt.Sprintf("- (n=%d)", n)
	}
	if signed {
		return fmt.Sprintf("[%+.1f, %+.1f]", Num(lo), Num(hi))
	}
	return fmt.Sprintf("[%.1f, %.1f]", Num(lo), Num(hi))
}

// baselineN is the number of children of variant v's 0-filter cell (0
// if there is none).
func baselineN(d *document.Document, v string) int {
	for _, r := range d.Results {
		if r.Variant == v && r.Filters == 0 {
			return r.N
		}
	}
	return 0
}

// factorText formats a ratio with one decimal below 10 ("2.4"), whole
// above ("692").
func factorText(x float64) string {
	if x < 10 {
		return fmt.Sprintf("%.1f", x)
	}
	return fmt.Sprintf("%.0f", x)
}

// timeUnit scales ns for display: syscall loops stay in ns, whole
// commands (the command workload, whose runs take milliseconds) read in
// µs or ms instead of eight-digit ns.
type timeUnit struct {
	name string  // "ns", "µs" or "ms"
	div  float64 // ns per unit
}

// unitFor picks the unit for a document or fit whose 0-filter baseline is
// baselineNs ns per op: ms from 1 ms, µs from 10 µs, else ns.
func unitFor(baselineNs float64) timeUnit {
	switch {
	case baselineNs >= 1e6:
		return timeUnit{"ms", 1e6}
	case baselineNs >= 1e4:
		return timeUnit{"µs", 1e3}
	}
	return timeUnit{"ns", 1}
}

// v returns ns in the unit (NaN stays NaN for Num's callers).
func (u timeUnit) v(ns float64) Num { return Num(ns / u.div) }

// f0 formats ns in the unit: no decimals in ns (as before), two in µs
// and ms.
func (u timeUnit) f0(ns float64) string {
	if u.div == 1 {
		return fmt.Sprintf("%.0f", Num(ns))
	}
	return fmt.Sprintf("%.2f", u.v(ns))
}
