package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/report/internal/text"
	"github.com/seccompbench/seccompbench/runner/result"
)

// WriteJSON writes d as indented JSON followed by a newline.
func WriteJSON(w io.Writer, d *document.Document) error {
	return document.WriteIndented(w, d, "encode result")
}

// ReadJSON decodes a result document written by WriteJSON. A document of
// another kind (a compare document, simulate output, ...) gives a
// *KindError wrapping ErrWrongKind that names its kind; a run result
// without "kind" (written before kinds existed) is accepted when its
// schema_version is SchemaVersion. Other errors name the problem.
func ReadJSON(r io.Reader) (*document.Document, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read result: %w", err)
	}
	if err := document.CheckKind(data, document.KindRun); err != nil {
		return nil, err
	}
	var d document.Document
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("decode result: %w", err)
	}
	if d.SchemaVersion == 0 {
		return nil, fmt.Errorf("decode result: no schema_version: not the JSON of seccompbench run; write one with run --format json or -o result.json")
	}
	if d.SchemaVersion < 1 || d.SchemaVersion > document.SchemaVersion {
		return nil, fmt.Errorf("decode result: schema_version %d, want 1 to %d", d.SchemaVersion, document.SchemaVersion)
	}
	// The JSON keeps the meaning's codes and figures (schema 3) or its
	// text (schema 1 and 2); the wording is always this version's.
	d.Meaning = Explain(&d)
	for i := range d.Control {
		d.Control[i].Verdict = controlConclusion(d.Control[i], d.Environment.Vulnerabilities["spec_store_bypass"], runTrials(&d)).Code
	}
	return &d, nil
}

// controlVerdict says what a control-loop comparison of d means
// (controlConclusion).
func controlVerdict(c document.Control, d *document.Document) string {
	return controlConclusion(c, d.Environment.Vulnerabilities["spec_store_bypass"], runTrials(d)).text
}

// TextOptions tunes the text report.
type TextOptions struct {
	// Explain adds how the run was made, the per-filter model, the cache
	// prediction, setup costs, the checks and what the numbers mean,
	// after the headline and the table (--explain).
	Explain bool
}

// WriteTable writes d as the human-readable report: the headline, the
// table and the warnings (WriteText without --explain).
func WriteTable(w io.Writer, d *document.Document) error {
	return WriteText(w, d, TextOptions{})
}

// WriteText writes d as the human-readable report, with the explanation
// when opts.Explain.
func WriteText(w io.Writer, d *document.Document, opts TextOptions) error {
	ew := &errWriter{w: w}
	for _, s := range runSections {
		if s.table != nil && (opts.Explain || !s.explain) {
			s.table(ew, d)
		}
	}
	return ew.err
}

// tableHeadline writes the partial-result banner when the run was
// interrupted, the headline and a blank line.
func tableHeadline(ew *errWriter, d *document.Document) {
	if d.Partial {
		// On top of the table, --explain or not (docs/limits.md).
		ew.printf("*** PARTIAL RESULT: the run was interrupted; only completed children are included ***\n\n")
	}
	writeHeadlineText(ew, RunHeadline(d))
	ew.printf("\n")
}

// tableHeader writes the policies, the configuration and the machine, one line each.
func tableHeader(ew *errWriter, d *document.Document) {
	pct := d.Config.Confidence * 100
	ew.printf("\n")
	var pol []string
	for _, p := range d.Config.Policies {
		abi := ""
		if len(p.ABIs) > 0 {
			abi = ", for " + strings.Join(p.ABIs, ", ")
		}
		pol = append(pol, fmt.Sprintf("%s (%d instructions%s)", p.Path, p.Instructions, abi))
	}
	ew.printf("seccompbench %s: %s\n", d.Tool.Version, strings.Join(pol, ", "))
	for _, p := range d.Config.Policies {
		if p.OCI != nil && p.OCI.Text != "" {
			ew.printf("oci: %s resolved with %s\n", p.Path, p.OCI.Text)
		}
	}
	ew.printf("workload %s: ns/op = %s\n", d.Config.Workload, d.Config.Op)
	est := "means with t CIs"
	if d.Config.Robust {
		est = "medians with bootstrap CIs (--robust)"
	}
	per := fmt.Sprintf("%d iterations x %d samples per child", d.Config.Iterations, d.Config.SamplesPerChild)
	if d.CommandWorkload != nil {
		per = fmt.Sprintf("%d timed runs per child (its value: their median)", d.Config.SamplesPerChild)
	}
	ew.printf("%s, %s, seed %d, CPU %s, %.0f%% CIs, %s\n",
		blocksText(d, "<="), per, d.Config.Seed, cpuString(d.Config.CPU), pct, est)
	if d.Config.SpecAllow {
		ew.printf("filters installed with SECCOMP_FILTER_FLAG_SPEC_ALLOW (--spec-allow): no speculative store bypass mitigation is switched on\n")
	}
	switch {
	case d.Config.Placement == "random":
		ew.printf("placement sampled: each child pads every filter with %d–%d unreachable instructions drawn from the seed (same verdicts and paths, another JIT image size and placement)\n", d.Config.PadMin, d.Config.PadMax)
	case d.Config.Pad > 0:
		ew.printf("every filter padded with %d unreachable instructions (--pad): same verdicts and paths, another JIT image size\n", d.Config.Pad)
	}
	if l := loaderLine(d); l != "" {
		ew.printf("%s\n", l)
	}
	if r := d.Run; r != nil {
		ew.printf("measured in %.1f s", r.ElapsedS)
		if r.Parallel > 1 {
			ew.printf("; %d parallel copies per cell on CPUs %v, ns/op is the mean over copies", r.Parallel, r.CPUs)
		}
		if f := r.ForeignLoad; f != nil {
			ew.printf("; %s", foreignLoadText(f, " (enough to matter: see the warnings)"))
		}
		ew.printf("\n")
	}
	e := d.Environment
	ew.printf("kernel %s, %s, %d CPUs, bpf_jit_enable=%s, spec_store_bypass: %s\n",
		e.Kernel, e.CPUModel, e.CPUs, OrDash(e.BPFJitEnable), OrDash(e.Vulnerabilities["spec_store_bypass"]))
	ew.printf("%s\n", mitigationLine(d))
}

// tableFigs formats a run's figures for the text table. Syscall loops
// read in ns with one decimal; whole commands (the command workload) give
// every figure its own unit and 3 significant digits (figure), so a µs
// overhead of a ms command is not "+0.0".
type tableFigs struct {
	u   timeUnit
	fig bool // whole commands: every figure carries its unit
}

func newTableFigs(d *document.Document) tableFigs {
	u := unitFor(baselineMedian(d))
	return tableFigs{u: u, fig: u.div != 1}
}

// val is a figure; ov an overhead (signed).
func (t tableFigs) val(ns float64) string {
	if t.fig {
		return text.Figure(ns)
	}
	return fmt.Sprintf("%.1f", t.u.v(ns))
}

func (t tableFigs) ov(ns float64) string {
	if t.fig {
		return text.SignedFigure(ns)
	}
	return fmt.Sprintf("%+.1f", t.u.v(ns))
}

// ci is an interval from n observations (cellCI's rules for n < 2).
func (t tableFigs) ci(n int, lo, hi float64, signed bool) string {
	if !t.fig || n < 2 {
		return cellCI(n, lo/t.u.div, hi/t.u.div, signed)
	}
	g := text.FigureGroup(signed, false, lo, hi)
	_, unit := text.UnitOf(max(math.Abs(lo), math.Abs(hi)))
	return "[" + g(lo) + ", " + g(hi) + "] " + unit
}

// tableResults writes the table of cells.
func tableResults(ew *errWriter, d *document.Document) {
	pct := d.Config.Confidence * 100
	tw := tabwriter.NewWriter(ew, 0, 0, 1, ' ', tabwriter.AlignRight)
	tf := newTableFigs(d)
	u, fig := tf.u, tf.fig
	head := fmt.Sprintf("mean %s/op", u.name)
	ovHead := "overhead " + u.name
	if fig {
		head, ovHead = "mean/op", "overhead"
	}
	fmt.Fprintf(tw, "variant\tfilters\tn\t%s\tmedian\t%.0f%% CI\t%s\t%.0f%% CI\toverhead %%\t\n", head, pct, ovHead, pct)
	for _, r := range d.Results {
		if r.Filters == 0 {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t-\t\t\t\n", tableVariant(d, r.Variant, r.Loader), r.Filters, r.N, tf.val(r.MeanNs), tf.val(r.MedianNs), tf.ci(r.N, r.CILowNs, r.CIHighNs, false))
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%+.1f%%\t\n", tableVariant(d, r.Variant, r.Loader), r.Filters, r.N, tf.val(r.MeanNs), tf.val(r.MedianNs), tf.ci(r.N, r.CILowNs, r.CIHighNs, false),
			tf.ov(r.OverheadNs), tf.ci(min(r.N, baselineN(d, r.Variant)), r.OverheadCILowNs, r.OverheadCIHighNs, true), Num(r.OverheadPct))
	}
	tw.Flush()
}

// tableModel writes the per-filter fit and loader differences.
func tableModel(ew *errWriter, d *document.Document) {
	pct := d.Config.Confidence * 100
	tf := newTableFigs(d)
	u, fig := tf.u, tf.fig
	if len(d.Fits) > 0 {
		per := u.name + "/op"
		if fig {
			per = "time per op" // each figure carries its unit
		}
		ew.printf("\nmodel: %s(N) = baseline + entry + N x per-filter, for N >= 1 (least squares over children, drift term included)\n", per)
		tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
		placed := d.Config.Placement == "random"
		rel := anyPaired(d)
		relHead := ""
		if rel {
			relHead = fmt.Sprintf("x bare %s\t%.0f%% CI\t", d.Config.Workload, pct)
		}
		un := " " + u.name
		if fig {
			un = ""
		}
		if placed {
			fmt.Fprintf(tw, "variant\tper-filter%s\t%.0f%% CI\t%splacement ±%s\tentry%s\t%.0f%% CI\tR²\t\n", un, pct, relHead, strings.TrimSpace(un), un, pct)
		} else {
			fmt.Fprintf(tw, "variant\tper-filter%s\t%.0f%% CI\t%sentry%s\t%.0f%% CI\tR²\t\n", un, pct, relHead, un, pct)
		}
		for _, f := range d.Fits {
			pl := ""
			if placed {
				pl = fmt.Sprintf("%.2f\t", u.v(f.PlacementSDNs))
				if fig {
					pl = text.Figure(f.PlacementSDNs) + "\t"
				}
			}
			if fig {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s%s\t%s\t%.3f\t\n", tableVariant(d, f.Variant, f.Loader), text.Figure(f.PerFilterNs), tf.ci(2, f.PerFilterCILowNs, f.PerFilterCIHighNs, false),
					pl, text.Figure(f.EntryNs), tf.ci(2, f.EntryCILowNs, f.EntryCIHighNs, false), Num(f.R2))
				continue
			}
			if rel {
				c, ci := relCells(f)
				pl = c + "\t" + ci + "\t" + pl
			}
			fmt.Fprintf(tw, "%s\t%.2f\t[%.2f, %.2f]\t%s%.1f\t[%.1f, %.1f]\t%.3f\t\n", tableVariant(d, f.Variant, f.Loader), u.v(f.PerFilterNs), u.v(f.PerFilterCILowNs), u.v(f.PerFilterCIHighNs),
				pl, u.v(f.EntryNs), u.v(f.EntryCILowNs), u.v(f.EntryCIHighNs), Num(f.R2))
		}
		tw.Flush()
		for _, ld := range d.LoaderDiffs {
			sig := "not distinguishable from 0"
			if ld.Significant {
				sig = fmt.Sprintf("p = %.3g", ld.P)
			}
			ew.printf("%s: per-filter %s − %s = %+.2f ns (%.0f%% CI [%+.2f, %+.2f], %s)\n", ld.Variant, ld.A, ld.B, Num(ld.PerFilterDiffNs), pct, Num(ld.CILowNs), Num(ld.CIHighNs), sig)
		}
	}
}

// tableCache writes the action-cache prediction of a loop workload.
func tableCache(ew *errWriter, d *document.Document) {
	if len(d.Cache) > 0 && d.CommandWorkload == nil {
		ew.printf("\naction cache (Linux >= 5.11) for the workload's syscalls at the deepest stack:\n")
		for _, cv := range d.Cache {
			var parts []string
			for _, s := range cv.Syscalls {
				if s.Cached {
					parts = append(parts, s.Name+" cached")
				} else {
					parts = append(parts, fmt.Sprintf("%s not cached (%d insns)", s.Name, s.Instructions))
				}
			}
			ew.printf("  %-7s %s\n", cv.Variant+":", strings.Join(parts, ", "))
		}
	}
}

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

// errWriter remembers the first write error so renderers can report it once.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func (e *errWriter) printf(format string, args ...any) { fmt.Fprintf(e, format, args...) }

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
