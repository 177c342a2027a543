package report

import (
	"fmt"
	"math"
	"strings"
)

// Explain returns one sentence per variant and loader that says what its
// numbers mean, from the document's fits and cache predictions, with the
// loader and placement behind them, and one per loader difference.
func Explain(d *Document) []Meaning {
	var out []Meaning
	for _, v := range d.Config.Variants {
		var fits []*Fit
		for i := range d.Fits {
			if d.Fits[i].Variant == v {
				fits = append(fits, &d.Fits[i])
			}
		}
		if len(fits) == 0 {
			fits = append(fits, nil)
		}
		for _, fit := range fits {
			m := Meaning{Variant: v, Text: explainFit(d, v, fit)}
			if fit != nil {
				m.Loader = fit.Loader
			}
			out = append(out, m)
		}
		for _, ld := range d.LoaderDiffs {
			if ld.Variant == v {
				out = append(out, Meaning{Variant: v, Loader: ld.A + "-" + ld.B, Text: explainLoaderDiff(d, ld)})
			}
		}
	}
	return out
}

// explainFit is the sentence for variant v's fit (nil: none).
func explainFit(d *Document, v string, fit *Fit) string {
	{
		var cached, uncached []string
		var reasons []string
		for _, cv := range d.Cache {
			if cv.Variant != v {
				continue
			}
			for _, s := range cv.Syscalls {
				if s.Cached {
					cached = append(cached, s.Name)
				} else {
					uncached = append(uncached, s.Name)
					if s.Reason != "" && len(reasons) < 2 {
						reasons = append(reasons, s.Name+": "+s.Reason)
					}
				}
			}
		}
		var b strings.Builder
		if d.Config.Workload == "notify" {
			b.WriteString(notifyRoundTrip(d, v))
		}
		switch {
		case len(cached) > 0 && kernelLacksCache(d):
			fmt.Fprintf(&b, "%s %s allowed unconditionally by every filter, which the action cache of Linux 5.11 and later serves without running them; this kernel (%s) has no action cache, so every filter runs on every syscall", list(cached), verbFor(cached, "is", "are"), d.Environment.Kernel)
		case len(cached) > 0 && len(uncached) == 0 && cacheSupported(d, fit):
			fmt.Fprintf(&b, "%s %s allowed unconditionally by every filter: the kernel's action cache skips the filters", list(cached), verbFor(cached, "is", "are"))
		case len(cached) > 0 && len(uncached) == 0:
			fmt.Fprintf(&b, "%s %s allowed unconditionally by every filter, so the kernel's action cache should skip the filters, but this run's per-filter cost cannot confirm it", list(cached), verbFor(cached, "is", "are"))
		case len(cached) == 0 && len(uncached) > 0:
			fmt.Fprintf(&b, "no workload syscall is served by the action cache, so every filter runs on every syscall")
			if v == "defeat" {
				b.WriteString(" (ld [instruction_pointer] prepended to each filter)")
			} else if len(reasons) > 0 {
				fmt.Fprintf(&b, " (%s)", strings.Join(reasons, "; "))
			}
		case len(cached) > 0:
			fmt.Fprintf(&b, "%s %s served by the action cache, %s %s every filter", list(cached), verbFor(cached, "is", "are"), list(uncached), verbFor(uncached, "runs", "run"))
			if len(reasons) > 0 {
				fmt.Fprintf(&b, " (%s)", strings.Join(reasons, "; "))
			}
		default:
			fmt.Fprintf(&b, "no cache prediction")
		}
		if fit == nil {
			b.WriteString("; too few filter counts ≥ 1 to fit a per-filter cost")
		} else {
			b.WriteString(perFilterConclusion(*fit, d.Config.Confidence, runTrials(d)))
			b.WriteString(relativeClause(d, *fit, d.Config.Confidence))
			b.WriteString(entryConclusion(*fit, d.Config.Confidence, runTrials(d)))
			b.WriteString(placementClause(d, fit))
			b.WriteString(segmentClause(fit))
			b.WriteString(loaderClause(d, fit))
		}
		b.WriteString(".")
		return b.String()
	}
}

// placementClause says how much placement moves the per-filter cost, or
// that one program size was measured.
func placementClause(d *Document, fit *Fit) string {
	switch {
	case fit.Placements > 1 && fit.PlacementSDNs == 0:
		// The moment estimate of σ_p² came out negative and was set to 0
		// (stats/placement.go): the spread between pads is smaller than
		// the noise between children predicts, not proof of no effect.
		return fmt.Sprintf("; placement's effect is not separable from the noise between children in this run (between-placement SD estimated at 0 over %d program sizes, pads %d–%d instructions; the CI still includes the between-pad spread, through the cluster-robust variance)",
			fit.Placements, d.Config.PadMin, d.Config.PadMax)
	case fit.Placements > 1:
		return fmt.Sprintf("; placement moves the per-filter cost by ±%s (between-placement SD over %d program sizes, pads %d–%d instructions; the CI includes it)",
			figure(fit.PlacementSDNs), fit.Placements, d.Config.PadMin, d.Config.PadMax)
	case d.Config.Placement == "fixed":
		return fmt.Sprintf("; one program size only (pad %d): the CI leaves out placement, which moved per-filter cost by 25 %% on this project's measurements (drop --pad to sample it)", d.Config.Pad)
	}
	return ""
}

// segmentClause says how far the run's consecutive parts, fitted alone,
// put the per-filter cost apart (stats.Fit.Segments), "" when the run was
// too short to be cut into segments or their spread is undefined.
func segmentClause(fit *Fit) string {
	if fit.Segments == 0 || math.IsNaN(fit.SegmentSDNs) {
		return ""
	}
	return fmt.Sprintf("; the run's %d consecutive parts, each fitted alone, put it %s apart (SD), and the CI is at least the t interval of their mean, so it covers the host's speed wandering over seconds",
		fit.Segments, "±"+figure(fit.SegmentSDNs))
}

// bhiState is the BHI part of the spectre_v2 line, "" if none.
func bhiState(d *Document) string { return d.Environment.BHI() }

// barrierEmitted says whether this host's kernel adds the branch-history
// barrier to classic BPF loaded without CAP_SYS_ADMIN: only where it
// clears branch history with the software loop (bpf_jit_comp.c:
// emit_spectre_bhb_barrier needs X86_FEATURE_CLEAR_BHB_LOOP), shown as
// "SW loop" in the BHI state. known is false without a BHI state.
func barrierEmitted(d *Document) (emitted, known bool) {
	bhi := bhiState(d)
	if bhi == "" {
		return false, false
	}
	return strings.Contains(bhi, "SW loop"), true
}

// loaderClause says who loaded the fit's filters and what that means on
// this host, for a run that measured one loader.
func loaderClause(d *Document, fit *Fit) string {
	if fit.Loader == "" || d.Config.Loader == "both" {
		return ""
	}
	emitted, known := barrierEmitted(d)
	switch fit.Loader {
	case "unprivileged":
		s := "; loaded without CAP_SYS_ADMIN (dropped and read back in each child), as runc and non-root services load filters"
		if known && emitted {
			s += ", so each filter includes the kernel's branch-history barrier (BHI: " + bhiState(d) + ")"
		}
		return s
	case "privileged":
		s := "; loaded with CAP_SYS_ADMIN, as a root process that keeps it"
		switch {
		case known && emitted:
			s += ": runtimes that load unprivileged pay the kernel's branch-history barrier on top on this host (BHI: " + bhiState(d) + "); measure --loader both"
		case known:
			s += "; unprivileged loaders pay the same on this host (BHI: " + bhiState(d) + ": no barrier)"
		}
		return s
	}
	return ""
}

// explainLoaderDiff is the plain-words sentence about a loader difference.
func explainLoaderDiff(d *Document, ld LoaderDiff) string {
	if ld.Warnings != nil && ld.CILowNs == 0 && ld.CIHighNs == 0 {
		return fmt.Sprintf("filters loaded %s cost %+.1f ns each relative to filters loaded %s; no interval: %s.", loaderWords(ld.A), Num(ld.PerFilterDiffNs), loaderWords(ld.B), strings.Join(ld.Warnings, "; "))
	}
	ci := fmt.Sprintf("%.0f%% CI [%+.2f, %+.2f]", d.Config.Confidence*100, Num(ld.CILowNs), Num(ld.CIHighNs))
	emitted, known := barrierEmitted(d)
	bhi := bhiState(d)
	unprivA := ld.A == "unprivileged" && ld.B == "privileged"
	if ld.Significant && ld.PerFilterDiffNs > 0 && unprivA {
		s := fmt.Sprintf("filters loaded without CAP_SYS_ADMIN cost %.1f ns more each (%s)", Num(ld.PerFilterDiffNs), ci)
		switch {
		case known && emitted:
			s += ": the kernel's branch-history barrier (spectre_v2 BHI: " + bhi + "; arch/x86/net/bpf_jit_comp.c: emit_spectre_bhb_barrier)"
		case known:
			s += ": not the branch-history barrier, which this host does not emit (BHI: " + bhi + "); suspect placement or noise and repeat the run"
		default:
			s += ": the kernel's branch-history barrier, if this kernel has it (no BHI state in spectre_v2)"
		}
		return s + "."
	}
	s := fmt.Sprintf("filters loaded %s cost %+.2f ns each relative to filters loaded %s (%s", loaderWords(ld.A), Num(ld.PerFilterDiffNs), loaderWords(ld.B), ci)
	if ld.Significant {
		s += ")"
	} else {
		s += ", not distinguishable from 0)"
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
	return s + "."
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
// trip takes 16.1 µs at 0 filters (mean 18.0 µs, 95% CI [15.2, 20.9] µs);
// ". "" when that cell has no result.
func notifyRoundTrip(d *Document, v string) string {
	var low *CellResult
	for i := range d.Results {
		r := &d.Results[i]
		if r.Variant == v && (low == nil || r.Filters < low.Filters) {
			low = r
		}
	}
	if low == nil || low.N == 0 {
		return ""
	}
	return fmt.Sprintf("one SECCOMP_RET_USER_NOTIF round trip takes %.1f µs at %d filters (median; mean %.1f µs, %.0f%% CI [%.1f, %.1f] µs); ",
		Num(low.MedianNs/1e3), low.Filters, Num(low.MeanNs/1e3), d.Config.Confidence*100, Num(low.CILowNs/1e3), Num(low.CIHighNs/1e3))
}
