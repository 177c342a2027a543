package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/report/internal/text"
)

// Explain returns per variant and loader the clauses that say what its
// numbers mean, from the document's fits and cache predictions, with the
// loader and placement behind them, and one per loader difference.
func Explain(d *document.Document) []document.Meaning {
	var out []document.Meaning
	for _, v := range d.Config.Variants {
		var fits []*document.Fit
		for i := range d.Fits {
			if d.Fits[i].Variant == v {
				fits = append(fits, &d.Fits[i])
			}
		}
		if len(fits) == 0 {
			fits = append(fits, nil)
		}
		for _, fit := range fits {
			cs := explainFit(d, v, fit)
			ss := renderClauses(cs)
			m := document.Meaning{Variant: v, Clauses: docClauses(cs), Sentences: ss, Text: strings.Join(ss, " ")}
			if fit != nil {
				m.Loader = fit.Loader
			}
			out = append(out, m)
		}
		for _, ld := range d.LoaderDiffs {
			if ld.Variant == v {
				c := explainLoaderDiff(d, ld)
				ss := renderClauses([]Clause{c})
				out = append(out, document.Meaning{Variant: v, Loader: ld.A + "-" + ld.B, Clauses: []document.Clause{c.Clause}, Sentences: ss, Text: strings.Join(ss, " ")})
			}
		}
	}
	return out
}

// explainFit is the sentence for variant v's fit (nil: none).
func explainFit(d *document.Document, v string, fit *document.Fit) []Clause {
	var out []Clause
	if d.Config.Workload == "notify" {
		if c, ok := notifyRoundTrip(d, v); ok {
			out = append(out, c)
		}
	}
	out = append(out, cacheClause(d, v, fit))
	if fit == nil {
		return append(out, newClause("no_fit", "too few filter counts ≥ 1 to fit a per-filter cost"))
	}
	for _, c := range []func() (Clause, bool){
		func() (Clause, bool) { return perFilterConclusion(*fit, d.Config.Confidence, runTrials(d)), true },
		func() (Clause, bool) { return relativeClause(d, *fit, d.Config.Confidence) },
		func() (Clause, bool) { return entryConclusion(*fit, d.Config.Confidence, runTrials(d)) },
		func() (Clause, bool) { return placementClause(d, fit) },
		func() (Clause, bool) { return segmentClause(fit) },
		func() (Clause, bool) { return loaderClause(d, fit) },
	} {
		if cl, ok := c(); ok {
			out = append(out, cl)
		}
	}
	return out
}

// cacheClause says which of variant v's workload syscalls the action
// cache serves, from the emulator's prediction (d.Cache).
func cacheClause(d *document.Document, v string, fit *document.Fit) Clause {
	var cached, uncached, reasons []string
	for _, cv := range d.Cache {
		if cv.Variant != v {
			continue
		}
		for _, s := range cv.Syscalls {
			if s.Cached {
				cached = append(cached, s.Name)
				continue
			}
			uncached = append(uncached, s.Name)
			if s.Reason != "" && len(reasons) < 2 {
				reasons = append(reasons, s.Name+": "+s.Reason)
			}
		}
	}
	why := ""
	if len(reasons) > 0 {
		why = " (" + strings.Join(reasons, "; ") + ")"
	}
	var c Clause
	are := verbFor(cached, "is", "are")
	switch {
	case len(cached) > 0 && kernelLacksCache(d):
		c = newClause("cache_kernel_lacks", fmt.Sprintf("%s %s allowed unconditionally by every filter, which the action cache of Linux 5.11 and later serves without running them; this kernel (%s) has no action cache, so every filter runs on every syscall", list(cached), are, d.Environment.Kernel))
	case len(cached) > 0 && len(uncached) == 0 && cacheSupported(d, fit):
		c = newClause("cache_all_confirmed", fmt.Sprintf("%s %s allowed unconditionally by every filter: the kernel's action cache skips the filters", list(cached), are))
	case len(cached) > 0 && len(uncached) == 0:
		c = newClause("cache_all_unconfirmed", fmt.Sprintf("%s %s allowed unconditionally by every filter, so the kernel's action cache should skip the filters, but this run's per-filter cost cannot confirm it", list(cached), are))
	case len(cached) == 0 && len(uncached) > 0 && v == "defeat":
		c = newClause("cache_none_defeat", "no workload syscall is served by the action cache, so every filter runs on every syscall (ld [instruction_pointer] prepended to each filter)")
	case len(cached) == 0 && len(uncached) > 0:
		c = newClause("cache_none", "no workload syscall is served by the action cache, so every filter runs on every syscall"+why)
	case len(cached) > 0:
		c = newClause("cache_some", fmt.Sprintf("%s %s served by the action cache, %s %s every filter%s", list(cached), are, list(uncached), verbFor(uncached, "runs", "run"), why))
	default:
		c = newClause("cache_unknown", "no cache prediction")
	}
	c.Syscalls, c.Uncached = cached, uncached
	return c
}

// placementClause says how much placement moves the per-filter cost, or
// that one program size was measured.
func placementClause(d *document.Document, fit *document.Fit) (Clause, bool) {
	switch {
	case fit.Placements > 1 && fit.PlacementSDNs == 0:
		// The moment estimate of σ_p² came out negative and was set to 0
		// (stats/placement.go): the spread between pads is smaller than
		// the noise between children predicts, not proof of no effect.
		return newClause("placement_not_separable", fmt.Sprintf("placement's effect is not separable from the noise between children in this run (between-placement SD estimated at 0 over %d program sizes, pads %d–%d instructions); the CI still includes the between-pad spread, through the cluster-robust variance",
			fit.Placements, d.Config.PadMin, d.Config.PadMax), "placements", fit.Placements, "pad_min", d.Config.PadMin, "pad_max", d.Config.PadMax), true
	case fit.Placements > 1:
		return newClause("placement_sd", fmt.Sprintf("placement moves the per-filter cost by ±%s (between-placement SD over %d program sizes, pads %d–%d instructions; the CI includes it)",
			text.Figure(fit.PlacementSDNs), fit.Placements, d.Config.PadMin, d.Config.PadMax), "sd_ns", fit.PlacementSDNs, "placements", fit.Placements, "pad_min", d.Config.PadMin, "pad_max", d.Config.PadMax), true
	case d.Config.Placement == "fixed":
		return newClause("placement_fixed", fmt.Sprintf("one program size only (pad %d): the CI leaves out placement, which moved per-filter cost by 25 %% on this project's measurements (drop --pad to sample it)", d.Config.Pad), "pad", d.Config.Pad), true
	}
	return Clause{}, false
}

// segmentClause says how far the run's consecutive parts, fitted alone,
// put the per-filter cost apart (stats.Fit.Segments); false when the run
// was too short to be cut into segments or their spread is undefined.
func segmentClause(fit *document.Fit) (Clause, bool) {
	if fit.Segments == 0 || math.IsNaN(fit.SegmentSDNs) {
		return Clause{}, false
	}
	return newClause("segments", fmt.Sprintf("the run's %d consecutive parts, each fitted alone, put the per-filter cost %s apart (SD); the CI is at least the t interval of their mean, so it covers the host's speed wandering over seconds",
		fit.Segments, "±"+text.Figure(fit.SegmentSDNs)), "segments", fit.Segments, "sd_ns", fit.SegmentSDNs), true
}

// bhiState is the BHI part of the spectre_v2 line, "" if none.
func bhiState(d *document.Document) string { return d.Environment.BHI() }

// barrierEmitted says whether this host's kernel adds the branch-history
// barrier to classic BPF loaded without CAP_SYS_ADMIN: only where it
// clears branch history with the software loop (bpf_jit_comp.c:
// emit_spectre_bhb_barrier needs X86_FEATURE_CLEAR_BHB_LOOP), shown as
// "SW loop" in the BHI state. known is false without a BHI state.
func barrierEmitted(d *document.Document) (emitted, known bool) {
	bhi := bhiState(d)
	if bhi == "" {
		return false, false
	}
	return strings.Contains(bhi, "SW loop"), true
}

// loaderClause adds to a one-loader run what the loader means for the
// runtimes that load otherwise; who loaded the filters and whether this
// host emits the branch-history barrier are stated once, by the loader
// and mitigations lines (loaderLine, mitigationLine), not here.
func loaderClause(d *document.Document, fit *document.Fit) (Clause, bool) {
	if fit.Loader != "privileged" || d.Config.Loader == "both" {
		return Clause{}, false
	}
	if emitted, known := barrierEmitted(d); known && emitted {
		return newClause("loader_privileged_barrier_unmeasured", "runtimes that load without CAP_SYS_ADMIN pay the kernel's branch-history barrier on top of this cost on this host; measure --loader both"), true
	}
	return Clause{}, false
}

// explainLoaderDiff is the clause about a loader difference.
func explainLoaderDiff(d *document.Document, ld document.LoaderDiff) Clause {
	figs := []any{"diff_ns", ld.PerFilterDiffNs, "ci_low_ns", ld.CILowNs, "ci_high_ns", ld.CIHighNs}
	if ld.Warnings != nil && ld.CILowNs == 0 && ld.CIHighNs == 0 {
		return newClause("loader_diff_no_interval", fmt.Sprintf("filters loaded %s cost %+.1f ns each relative to filters loaded %s; no interval: %s", loaderWords(ld.A), Num(ld.PerFilterDiffNs), loaderWords(ld.B), strings.Join(ld.Warnings, "; ")), figs[:2]...)
	}
	ci := fmt.Sprintf("%.0f%% CI [%+.2f, %+.2f]", d.Config.Confidence*100, Num(ld.CILowNs), Num(ld.CIHighNs))
	emitted, known := barrierEmitted(d)
	bhi := bhiState(d)
	unprivA := ld.A == "unprivileged" && ld.B == "privileged"
	if ld.Significant && ld.PerFilterDiffNs > 0 && unprivA {
		s := fmt.Sprintf("filters loaded without CAP_SYS_ADMIN cost %.1f ns more each (%s)", Num(ld.PerFilterDiffNs), ci)
		switch {
		case known && emitted:
			return newClause("loader_diff_barrier", s+": the kernel's branch-history barrier (spectre_v2 BHI: "+bhi+"; arch/x86/net/bpf_jit_comp.c: emit_spectre_bhb_barrier)", figs...)
		case known:
			return newClause("loader_diff_unexplained", s+": not the branch-history barrier, which this host does not emit (BHI: "+bhi+"); suspect placement or noise and repeat the run", figs...)
		}
		return newClause("loader_diff_barrier_unknown", s+": the kernel's branch-history barrier, if this kernel has it (no BHI state in spectre_v2)", figs...)
	}
	s := fmt.Sprintf("filters loaded %s cost %+.2f ns each relative to filters loaded %s (%s", loaderWords(ld.A), Num(ld.PerFilterDiffNs), loaderWords(ld.B), ci)
	code := "loader_diff"
	if ld.Significant {
		s += ")"
	} else {
		s += ", not distinguishable from 0)"
		code = "loader_diff_none"
	}
	switch {
	case !unprivA:
	case known && !emitted:
		s += ": as expected, this CPU does not need the branch-history barrier (spectre_v2 BHI: " + bhi + "), so the JIT emits it for neither loader"
	case known && emitted:
		s += ": although this kernel clears branch history with the software loop; a kernel without x86 commit d4e89d212d40 (stable 5.15.183 and later have it) emits no barrier"
	default:
		s += ": this kernel reports no BHI state (before 6.9, or not x86), so whether it emits the branch-history barrier is unknown"
	}
	return newClause(code, s, figs...)
}

// loaderWords names a loader in a sentence.
func loaderWords(l string) string {
	switch l {
	case "unprivileged":
		return "without CAP_SYS_ADMIN"
	case "privileged":
		return "with CAP_SYS_ADMIN"
	}
	return "by " + l
}

// list joins names as "a, b and c".
func list(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// verbFor picks the verb form for a list of names.
func verbFor(names []string, one, many string) string {
	if len(names) == 1 {
		return one
	}
	return many
}

// notifyRoundTrip states the notify workload's round trip in microseconds
// at the variant's lowest filter count: "one SECCOMP_RET_USER_NOTIF round
// trip takes 16.1 µs at 0 filters (median; mean 18.0 µs, 95% CI [15.2,
// 20.9] µs)". false when that cell has no result.
func notifyRoundTrip(d *document.Document, v string) (Clause, bool) {
	var low *document.CellResult
	for i := range d.Results {
		r := &d.Results[i]
		if r.Variant == v && (low == nil || r.Filters < low.Filters) {
			low = r
		}
	}
	if low == nil || low.N == 0 {
		return Clause{}, false
	}
	return newClause("notify_round_trip", fmt.Sprintf("one SECCOMP_RET_USER_NOTIF round trip takes %.1f µs at %d filters (median; mean %.1f µs, %.0f%% CI [%.1f, %.1f] µs)",
		Num(low.MedianNs/1e3), low.Filters, Num(low.MeanNs/1e3), d.Config.Confidence*100, Num(low.CILowNs/1e3), Num(low.CIHighNs/1e3)),
		"filters", low.Filters, "median_ns", low.MedianNs, "mean_ns", low.MeanNs, "ci_low_ns", low.CILowNs, "ci_high_ns", low.CIHighNs), true
}
