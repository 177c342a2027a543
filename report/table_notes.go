package report

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/report/internal/text"
	"github.com/seccompbench/seccompbench/runner/result"
)

// tableSetup writes install cost, JIT, compile time, drift, parallel throughput, depth dependence and the control loop.
func tableSetup(ew *errWriter, d *document.Document) {
	pct := d.Config.Confidence * 100
	tf := newTableFigs(d)
	u, fig := tf.u, tf.fig
	if d.Setup != nil {
		one := text.FigureGroup(false, false, d.Setup.PerFilterNs, d.Setup.PerFilterCILowNs, d.Setup.PerFilterCIHiNs)
		_, unit := text.UnitOf(max(math.Abs(d.Setup.PerFilterNs), math.Abs(d.Setup.PerFilterCILowNs), math.Abs(d.Setup.PerFilterCIHiNs)))
		ew.printf("\nsetup: one seccomp(2) call %s %s (%.0f%% CI [%s, %s]); installing %s %s",
			one(d.Setup.PerFilterNs), unit, pct, one(d.Setup.PerFilterCILowNs), one(d.Setup.PerFilterCIHiNs), Plural(d.Setup.StackFilter, "filter"), text.Figure(d.Setup.StackNs))
		if d.CommandWorkload != nil {
			// Two figures for one stack: say why they differ.
			ew.printf(" (mean over the measuring children, each installing it once; the command line's install is each command process's own, median over runs)")
		}
		ew.printf("\n")
	}
	if line := jitLine(d); line != "" {
		ew.printf("%s\n", line)
	}
	for _, p := range d.Config.Policies {
		if p.CompileUs > 0 {
			ew.printf("compile: %s in %.0f µs\n", p.Path, p.CompileUs)
		}
	}
	for _, dr := range d.Drift {
		if fig {
			g := text.FigureGroup(true, false, dr.SlopeNsPerChild, dr.SlopeCILow, dr.SlopeCIHigh)
			_, unit := text.UnitOf(max(math.Abs(dr.SlopeNsPerChild), math.Abs(dr.SlopeCILow), math.Abs(dr.SlopeCIHigh)))
			ew.printf("%s\n", shortSentences(fmt.Sprintf("drift of the 0-filter baseline (%s): %s %s/op per child run (CI [%s, %s]), %s/op %s; corrected for in the fit",
				dr.Variant, g(dr.SlopeNsPerChild), unit, g(dr.SlopeCILow), g(dr.SlopeCIHigh), text.SignedFigure(dr.OverRunNs), driftSpan(d, dr.Variant))))
			continue
		}
		ew.printf("%s\n", shortSentences(fmt.Sprintf("drift of the 0-filter baseline (%s): %+.3f %s/op per child run (CI [%+.3f, %+.3f]), %+.1f %s/op %s; corrected for in the fit",
			dr.Variant, u.v(dr.SlopeNsPerChild), u.name, u.v(dr.SlopeCILow), u.v(dr.SlopeCIHigh), u.v(dr.OverRunNs), u.name, driftSpan(d, dr.Variant))))
	}
	if len(d.Throughput) > 0 {
		ew.printf("\nparallel copies (each pinned to its own CPU where there are enough):\n")
		tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "variant\tfilters\tcopies\ttotal Mops/s\tper copy Mops/s\tfastest copy ns/op\tslowest copy ns/op\t\n")
		for _, t := range d.Throughput {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%.2f\t%.2f\t%.1f\t%.1f\t\n", t.Variant, t.Filters, t.Copies, Num(t.OpsPerSecTotal/1e6), Num(t.OpsPerSecCopy/1e6), Num(t.FastestCopyNs), Num(t.SlowestCopyNs))
		}
		tw.Flush()
	}
	for _, l := range d.Linearity {
		if !l.DiffersFromFit {
			continue
		}
		ew.printf("%s\n", shortSentences(fmt.Sprintf("per-filter cost depends on depth (%s): %.1f ns/filter from %d to %d filters (CI [%.1f, %.1f]), %.1f from %d to %d (CI [%.1f, %.1f]); the fitted line averages them, and its entry term absorbs the difference",
			l.Variant, Num(l.LowNs), l.LowFrom, l.LowTo, Num(l.LowCILowNs), Num(l.LowCIHighNs), Num(l.HighNs), l.HighFrom, l.HighTo, Num(l.HighCILowNs), Num(l.HighCIHighNs))))
	}
	for _, c := range d.Control {
		s := fmt.Sprintf("control loop (no syscalls) %s: %.3f -> %.3f ns/iter, %+.1f%% (CI [%+.1f, %+.1f]); ", c.Variant, Num(c.BeforeNs), Num(c.AfterNs), Num(c.SlowdownPct), Num(c.SlowdownPctLow), Num(c.SlowdownPctHigh))
		ew.printf("%s\n", shortSentences(s+controlVerdict(c, d)))
	}
}

// tableNotes writes what the numbers mean.
func tableNotes(ew *errWriter, d *document.Document) {
	ew.printf("\n")
	for _, m := range d.Meaning {
		name := m.Variant
		if m.Loader != "" && d.Config.Loader == "both" {
			name += "/" + m.Loader
		}
		inline, items := meaningLayout(m)
		if items == nil {
			ew.printf("%s: %s\n", name, inline)
			continue
		}
		ew.printf("%s:\n", name)
		for _, s := range items {
			ew.printf("  - %s\n", s)
		}
	}
}

// tableWarnings writes the cells measured faster with filters than
// without and every warning, wrapped at TextWidth.
func tableWarnings(ew *errWriter, d *document.Document) {
	var b strings.Builder
	if n := d.Environment.ParentSeccompFilters; n > 0 {
		fmt.Fprintf(&b, "\nnote: this process already has %d inherited seccomp filters; every child inherits them, so the baseline is \"inherited filters only\"\n", n)
	}
	for _, n := range NegativeCells(d) {
		b.WriteString("\n" + shortSentences(n) + "\n")
	}
	if n := BudgetBasisNote(d); n != "" {
		b.WriteString("\n" + n + "\n")
	}
	if len(d.Warnings) > 0 {
		ws := append([]string{}, d.Warnings...)
		sort.Strings(ws)
		b.WriteString("\nwarnings:\n")
		for _, wn := range text.Dedupe(ws) {
			b.WriteString("  - " + shortSentences(wn) + "\n")
		}
	}
	if b.Len() > 0 {
		ew.printf("%s", text.Wrap(b.String(), TextWidth))
	}
}

// tableVariant names a variant in the text table, with its loader when
// the run measured both.
func tableVariant(d *document.Document, v, l string) string {
	if d.Config.Loader == "both" && l != "" {
		return v + "/" + l
	}
	return v
}

// loaderLine says who loaded the filters, "" for documents from before
// --loader.
func loaderLine(d *document.Document) string {
	var s string
	switch d.Config.Loader {
	case "unprivileged":
		s = "filters loaded without CAP_SYS_ADMIN (dropped from the effective, permitted and bounding sets and read back in each child), as runc with NoNewPrivileges and non-root services load them"
	case "privileged":
		s = "filters loaded with CAP_SYS_ADMIN (read back in each child), as a root process that keeps it"
	case "both":
		s = "filters loaded both without and with CAP_SYS_ADMIN (--loader both), as separate variants; capabilities read back in each child"
	case "runtime":
		s = "the filter loaded by the container runtime itself (--bundle, --rootfs), with the privileges and no_new_privs it gives the container"
	default:
		return ""
	}
	if d.Config.LoaderReason != "" {
		s += "; " + d.Config.LoaderReason
	}
	return s
}

// mitigationLine lists the kernel command line's mitigation parameters and
// what this host's mitigation state means for seccomp: whether the JIT
// adds the branch-history barrier for unprivileged loaders, and whether
// installing a filter switches on speculative store bypass disable.
func mitigationLine(d *document.Document) string {
	e := d.Environment
	cmd := "none"
	if len(e.CmdlineMitigations) > 0 {
		cmd = strings.Join(e.CmdlineMitigations, " ")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "mitigations: boot parameters %s; ", cmd)
	switch emitted, known := barrierEmitted(d); {
	case !known:
		b.WriteString("no BHI state (spectre_v2), barrier for unprivileged loaders unknown; ")
	case emitted:
		fmt.Fprintf(&b, "BHI: %s, so filters loaded without CAP_SYS_ADMIN get the branch-history barrier; ", bhiState(d))
	default:
		fmt.Fprintf(&b, "BHI: %s, so no branch-history barrier for any loader; ", bhiState(d))
	}
	if e.SeccompForcesSSBD() {
		b.WriteString("installing a filter switches on speculative store bypass disable (spec_store_bypass: via prctl and seccomp) unless --spec-allow")
	} else {
		fmt.Fprintf(&b, "installing a filter switches on no speculation mitigation (spec_store_bypass: %s)", OrDash(e.Vulnerabilities["spec_store_bypass"]))
	}
	return shortSentences(b.String())
}

func cpuString(cpu int) string {
	if cpu < 0 {
		return "not pinned"
	}
	return fmt.Sprint(cpu)
}

// blocksText says how many randomized blocks ran and why the run stopped,
// from d.Run: "10 randomized blocks (--trials 10)", "39 randomized blocks
// (stopped: target CI reached, per-filter CI half-width <= 0.5 ns)". A
// document without run information gives the configured --trials. le is
// the "at most" sign to write ("<=" or "≤").
func blocksText(d *document.Document, le string) string {
	r := d.Run
	if r == nil {
		return fmt.Sprintf("%s (--trials %d)", Plural(d.Config.Trials, "randomized block"), d.Config.Trials)
	}
	blocks := Plural(r.Blocks, "randomized block")
	target := ""
	if r.TargetCINs > 0 {
		target = fmt.Sprintf("per-filter CI half-width %s %g ns", le, r.TargetCINs)
	} else if r.TargetCIRel > 0 {
		target = fmt.Sprintf("per-filter CI half-width %s %g%% of the estimate", le, r.TargetCIRel*100)
	}
	var why string
	switch r.StopReason {
	case result.StopTrials:
		return fmt.Sprintf("%s (--trials %d)", blocks, d.Config.Trials)
	case result.StopPrecision:
		why = "target CI reached"
	case result.StopMaxTrials:
		why = "--max-trials reached before the target CI"
	case result.StopMaxTime:
		why = "--max-time reached before the target CI"
		if target == "" {
			why = fmt.Sprintf("--max-time reached after %d of --trials %d", r.Blocks, d.Config.Trials)
		}
	case result.StopCancelled:
		return Plural(r.Blocks, "complete randomized block") + " (stopped: interrupted)"
	case result.StopFailed:
		return Plural(r.Blocks, "complete randomized block") + " (stopped: a child failed)"
	default:
		why = OrDash(string(r.StopReason))
	}
	if target != "" {
		why += ", " + target
	}
	return fmt.Sprintf("%s (stopped: %s)", blocks, why)
}

// driftSpan says what a drift's OverRunNs spans: "over 12 children (first
// to last baseline child, all variants counted)", the variant's first to
// last 0-filter child inclusive, counting every variant's children in run
// order (Seq) as the slope does. Without per-child records it says "over
// the run".
func driftSpan(d *document.Document, variant string) string {
	lo, hi := -1, -1
	for _, c := range d.Children {
		if c.Variant != variant || c.Filters != 0 {
			continue
		}
		if lo < 0 || c.Seq < lo {
			lo = c.Seq
		}
		hi = max(hi, c.Seq)
	}
	if lo < 0 || hi == lo {
		return "over the run"
	}
	return fmt.Sprintf("over %d children (first to last baseline child, all variants counted)", hi-lo+1)
}

// baselineMedian is the largest median of the document's 0-filter cells,
// in ns per op (0 when there is none): it picks the tables' time unit.
func baselineMedian(d *document.Document) float64 {
	b := 0.0
	for _, r := range d.Results {
		if r.Filters == 0 {
			b = max(b, r.MedianNs)
		}
	}
	return b
}
