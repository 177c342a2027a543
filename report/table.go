package report

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/report/internal/text"
)

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
