package report

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/report/internal/text"
)

// WriteMarkdown writes d as a self-contained Markdown report (GitHub
// flavoured: pipe tables, fenced code): what the numbers mean, the results
// and the per-filter model, the action-cache prediction, setup cost and the
// control loop, the environment, the configuration, the command line that
// reproduces the run, and every warning. It returns the first write error.
func WriteMarkdown(w io.Writer, d *document.Document) error {
	ew := &errWriter{w: w}
	for _, s := range runSections {
		if s.markdown != nil {
			s.markdown(ew, d)
		}
	}
	return ew.err
}

// mdHeader writes the title, a partial-result notice and what one op is.
func mdHeader(ew *errWriter, d *document.Document) {
	pct := d.Config.Confidence * 100
	ew.printf("# seccompbench: %s, workload %s\n\n", PolicyTitle(d), d.Config.Workload)
	if d.Partial {
		ew.printf("> **Partial result:** the run was interrupted; only the children that finished are included.\n\n")
	}
	ew.printf("One op is %s; every time below is nanoseconds per op (ns/op). Intervals are %.0f %% confidence intervals (CI).\n\n", d.Config.Op, pct)
}

// mdHeadline writes the headline as a list, each label linking to its
// section of docs/reading-results.md.
func mdHeadline(ew *errWriter, d *document.Document) {
	ew.printf("## Answer\n\n")
	writeHeadlineMarkdown(ew, RunHeadline(d))
}

// mdStack writes which filters each count installs, when the stack names
// them (a systemd unit's directives).
func mdStack(ew *errWriter, d *document.Document) {
	lines := stackLines(d)
	if len(lines) == 0 {
		return
	}
	ew.printf("What each count installs (oldest first; a count installs the first N):\n\n")
	for _, l := range lines {
		ew.printf("- %s\n", mdEscape(l))
	}
	ew.printf("\n")
}

// mdMeaning writes what the numbers mean, per variant.
func mdMeaning(ew *errWriter, d *document.Document) {
	if len(d.Meaning) > 0 {
		ew.printf("## What it means\n\n")
		for _, m := range d.Meaning {
			name := m.Variant
			if m.Loader != "" && d.Config.Loader == "both" {
				name += ", " + m.Loader
			}
			inline, items := meaningLayout(m)
			if items == nil {
				ew.printf("- **%s** (%s): %s\n", name, VariantLabel(m.Variant), mdEscape(inline))
				continue
			}
			ew.printf("- **%s** (%s):\n", name, VariantLabel(m.Variant))
			for _, s := range items {
				ew.printf("  - %s\n", mdEscape(s))
			}
		}
		for _, n := range NegativeCells(d) {
			ew.printf("- %s\n", mdEscape(shortSentences(n)))
		}
		ew.printf("\n")
	}
}

// mdResults writes the table of cells.
func mdResults(ew *errWriter, d *document.Document) {
	pct := d.Config.Confidence * 100
	ew.printf("## Results\n\n")
	ew.printf("Each row is one cell: a variant with N filters stacked, measured in `n` fresh child processes. Overhead is the difference to the same variant's 0-filter baseline (Welch interval).\n\n")
	ew.printf("| variant | filters | n | mean ns/op | median ns/op | %.0f %% CI | overhead ns/op | %.0f %% CI | overhead %% |\n", pct, pct)
	ew.printf("|---|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, r := range d.Results {
		if r.Filters == 0 {
			ew.printf("| %s | %d | %d | %.1f | %.1f | %s | baseline | | |\n", r.Variant, r.Filters, r.N, Num(r.MeanNs), Num(r.MedianNs), cellCI(r.N, r.CILowNs, r.CIHighNs, false))
			continue
		}
		ew.printf("| %s | %d | %d | %.1f | %.1f | %s | %+.1f | %s | %+.1f %% |\n", r.Variant, r.Filters, r.N, Num(r.MeanNs), Num(r.MedianNs),
			cellCI(r.N, r.CILowNs, r.CIHighNs, false), Num(r.OverheadNs), cellCI(min(r.N, baselineN(d, r.Variant)), r.OverheadCILowNs, r.OverheadCIHighNs, true), Num(r.OverheadPct))
	}
	ew.printf("\n")
	if n := BudgetBasisNote(d); n != "" {
		ew.printf("%s\n\n", mdEscape(n))
	}
}

// mdModel writes the per-filter fit, placement and loader differences.
func mdModel(ew *errWriter, d *document.Document) {
	pct := d.Config.Confidence * 100
	if len(d.Fits) > 0 {
		ew.printf("## Per-filter model\n\n")
		ew.printf("`ns/op(N) = baseline + entry + N × per-filter` for N ≥ 1, fitted by least squares over every child of the variant, with a linear drift term. *Entry* is the one-off cost of having any filter at all (BPF dispatch); *per-filter* is what each further filter adds.\n\n")
		rel := anyPaired(d)
		relHead, relRule := "", ""
		if rel {
			relHead, relRule = fmt.Sprintf(" × bare %s | %.0f %% CI |", d.Config.Workload, pct), "--:|--:|"
		}
		ew.printf("| variant | per-filter ns/op | %.0f %% CI |%s entry ns/op | %.0f %% CI | baseline ns/op | R² | children |\n", pct, relHead, pct)
		ew.printf("|---|--:|--:|%s--:|--:|--:|--:|--:|\n", relRule)
		for _, f := range d.Fits {
			name := f.Variant
			if d.Config.Loader == "both" && f.Loader != "" {
				name += ", " + f.Loader
			}
			relCols := ""
			if rel {
				c, ci := relCells(f)
				relCols = " " + c + " | " + ci + " |"
			}
			ew.printf("| %s | %.2f | [%.2f, %.2f] |%s %.1f | [%.1f, %.1f] | %.1f | %.3f | %d |\n", name, Num(f.PerFilterNs), Num(f.PerFilterCILowNs), Num(f.PerFilterCIHighNs),
				relCols, Num(f.EntryNs), Num(f.EntryCILowNs), Num(f.EntryCIHighNs), Num(f.BaselineNs), Num(f.R2), f.N)
		}
		ew.printf("\n")
		for _, f := range d.Fits {
			if f.Placements > 1 && f.PlacementSDNs == 0 {
				ew.printf("- Placement (%s): not separable from the noise between children in this run (between-placement SD estimated at 0 over %d pads); the CI above still includes the between-pad spread.\n", f.Variant+loaderSuffix(d, f.Loader), f.Placements)
			} else if f.Placements > 1 {
				ew.printf("- Placement (%s): the per-filter cost moves by ±%.2f ns between program sizes (SD over %d pads); the CI above includes this variance.\n", f.Variant+loaderSuffix(d, f.Loader), Num(f.PlacementSDNs), f.Placements)
			}
			if f.Segments > 0 {
				ew.printf("- Time (%s): fitted alone, the %d consecutive parts of the run gave per-filter costs %.2f ns apart (SD); the CI above is at least that spread's t interval, so it includes the host's speed wandering over seconds.\n", f.Variant+loaderSuffix(d, f.Loader), f.Segments, Num(f.SegmentSDNs))
			}
		}
		for _, ld := range d.LoaderDiffs {
			ew.printf("- Loader (%s): per-filter %s − %s = %+.2f ns (%.0f %% CI [%+.2f, %+.2f]).\n", ld.Variant, ld.A, ld.B, Num(ld.PerFilterDiffNs), pct, Num(ld.CILowNs), Num(ld.CIHighNs))
		}
		if len(d.LoaderDiffs) > 0 || d.Config.Placement == "random" || slices.ContainsFunc(d.Fits, func(f document.Fit) bool { return f.Segments > 0 }) {
			ew.printf("\n")
		}
	}
}

// mdCache writes the action-cache prediction.
func mdCache(ew *errWriter, d *document.Document) {
	if len(d.Cache) > 0 {
		ew.printf("## Action cache\n\n")
		ew.printf("Since Linux 5.11 the kernel emulates each filter once, when it is attached, for every syscall number (kernel/seccomp.c: seccomp_cache_prepare_bitmap). A syscall that every filter in the stack allows knowing only its number and architecture is *cached*: no filter runs for it, so stacking more filters costs ~nothing. Argument checks, other verdicts and kernels before 5.11 make every filter run on every syscall. The `defeat` variant prepends `ld [instruction_pointer]` to each filter: verdicts stay the same, but nothing is cached, which shows the cost the cache hides.\n\n")
		ew.printf("Prediction for the workload's syscalls at the deepest stack (%d filters):\n\n", maxCount(d.Config.FilterCounts))
		ew.printf("| variant | syscall | nr | cached | verdict | BPF instructions run | why not cached |\n")
		ew.printf("|---|---|--:|---|---|--:|---|\n")
		for _, cv := range d.Cache {
			for _, s := range cv.Syscalls {
				cached := "no"
				if s.Cached {
					cached = "yes"
				}
				ew.printf("| %s | %s | %d | %s | %s | %d | %s |\n", cv.Variant, s.Name, s.Nr, cached, OrDash(s.Action), s.Instructions, mdEscape(OrDash(s.Reason)))
			}
		}
		ew.printf("\n")
	}
}

// mdSetup writes install cost, JIT, compile time, drift and the control loop.
func mdSetup(ew *errWriter, d *document.Document) {
	pct := d.Config.Confidence * 100
	if d.Setup != nil || len(d.Control) > 0 || len(d.Drift) > 0 {
		ew.printf("## Setup, drift and mitigations\n\n")
		if d.Setup != nil {
			ew.printf("- Installing one filter (one seccomp(2) call): %.1f µs (%.0f %% CI [%.1f, %.1f]); installing the %d-filter stack: %.1f µs. This is paid once per process, not per syscall.\n",
				Num(d.Setup.PerFilterNs/1e3), pct, Num(d.Setup.PerFilterCILowNs/1e3), Num(d.Setup.PerFilterCIHiNs/1e3), d.Setup.StackFilter, Num(d.Setup.StackNs/1e3))
		}
		if line := jitLine(d); line != "" {
			ew.printf("- %s\n", mdEscape(line))
		}
		for _, p := range d.Config.Policies {
			if p.CompileUs > 0 {
				ew.printf("- Compiling %s took %.0f µs.\n", mdEscape(p.Path), p.CompileUs)
			}
		}
		for _, dr := range d.Drift {
			ew.printf("%s\n", shortSentences(fmt.Sprintf("- Drift of the 0-filter baseline (%s): %+.3f ns/op per child run (CI [%+.3f, %+.3f]), %+.1f ns/op %s; the fit includes a drift term, so this does not bias the per-filter cost.",
				dr.Variant, Num(dr.SlopeNsPerChild), Num(dr.SlopeCILow), Num(dr.SlopeCIHigh), Num(dr.OverRunNs), driftSpan(d, dr.Variant))))
		}
		for _, c := range d.Control {
			verdict := controlVerdict(c, d)
			ew.printf("%s\n", shortSentences(fmt.Sprintf("- Control loop without syscalls, %s: %.3f → %.3f ns per iteration, %+.1f %% (CI [%+.1f, %+.1f]); %s.",
				c.Variant, Num(c.BeforeNs), Num(c.AfterNs), Num(c.SlowdownPct), Num(c.SlowdownPctLow), Num(c.SlowdownPctHigh), verdict)))
		}
		ew.printf("\n")
	}
}

// mdEnvironment writes the machine.
func mdEnvironment(ew *errWriter, d *document.Document) {
	ew.printf("## Environment\n\n")
	e := d.Environment
	ew.printf("| | |\n|---|---|\n")
	ew.printf("| kernel | %s |\n", OrDash(e.Kernel))
	ew.printf("| CPU | %s (%d CPUs online) |\n", mdEscape(OrDash(e.CPUModel)), e.CPUs)
	ew.printf("| bpf_jit_enable | %s |\n", OrDash(e.BPFJitEnable))
	ew.printf("| clocksource | %s |\n", OrDash(e.Clocksource))
	ew.printf("| Go | %s |\n", OrDash(e.GoVersion))
	ew.printf("| tool | %s %s |\n", d.Tool.Name, d.Tool.Version)
	ew.printf("| inherited seccomp filters | %s |\n", inherited(e.ParentSeccompFilters))
	if !d.Created.IsZero() {
		ew.printf("| run at | %s |\n", d.Created.Format("2006-01-02 15:04:05 MST"))
	}
	ew.printf("\n%s\n", mdEscape(strings.TrimSuffix(mitigationLine(d), ".")+"."))
	if len(e.Vulnerabilities) > 0 {
		keys := make([]string, 0, len(e.Vulnerabilities))
		for k := range e.Vulnerabilities {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		ew.printf("\n<details><summary>CPU vulnerabilities and mitigations</summary>\n\n| file | state |\n|---|---|\n")
		for _, k := range keys {
			ew.printf("| %s | %s |\n", k, mdEscape(e.Vulnerabilities[k]))
		}
		ew.printf("\n</details>\n")
	}
	ew.printf("\n")
}

// mdConfiguration writes the policies and how the run was made.
func mdConfiguration(ew *errWriter, d *document.Document) {
	pct := d.Config.Confidence * 100
	ew.printf("## Configuration\n\n")
	ew.printf("| policy (installed in this order, cycling) | instructions | sha256 |\n|---|--:|---|\n")
	for _, p := range d.Config.Policies {
		path := p.Path
		if len(p.ABIs) > 0 {
			path += " (for " + strings.Join(p.ABIs, ", ") + ")"
		}
		ew.printf("| %s | %d | `%s` |\n", mdEscape(path), p.Instructions, shortHash(p.SHA256))
	}
	ew.printf("\n")
	ew.printf("- filter counts: %s\n", text.JoinInts(d.Config.FilterCounts, ", "))
	ew.printf("- variants: %s (cache flag `%s`)\n", strings.Join(d.Config.Variants, ", "), d.Config.Cache)
	ew.printf("- workload `%s`: one op is %s\n", d.Config.Workload, d.Config.Op)
	if l := loaderLine(d); l != "" {
		ew.printf("- %s\n", l)
	}
	if d.Config.Placement == "random" {
		ew.printf("- placement sampled: each child pads every filter with %d–%d never-executed instructions drawn from the seed (`pads` in the JSON)\n", d.Config.PadMin, d.Config.PadMax)
	}
	ew.printf("- %s; each block runs every cell once, in shuffled order, in fresh children\n", blocksText(d, "≤"))
	if r := d.Run; r != nil {
		ew.printf("- measured in %.1f s", r.ElapsedS)
		if r.Parallel > 1 {
			ew.printf("; %d parallel copies per cell on CPUs %v, ns/op is the mean over copies", r.Parallel, r.CPUs)
		}
		if f := r.ForeignLoad; f != nil {
			ew.printf("; %s", foreignLoadText(f, " (enough to matter: see the warnings)"))
		}
		ew.printf("\n")
	}
	if c := d.CommandWorkload; c != nil {
		ew.printf("- command `%s`: %d timed runs per child after %d warm-up; the child's value is the median run\n", text.ShellWords(c.Argv), c.RunsPerChild, c.WarmupRuns)
		if ct := c.Container; ct != nil {
			ew.printf("- in %s containers (`%s`): %s\n", ct.Runtime, text.FirstLine(ct.Version), containerText(ct))
		}
	} else {
		ew.printf("- %d loop iterations × %d timed samples per child; the child's value is the median sample\n", d.Config.Iterations, d.Config.SamplesPerChild)
	}
	ew.printf("- seed %d, measuring CPU %s, confidence %.0f %%, estimator %s, SPEC_ALLOW %t\n", d.Config.Seed, cpuString(d.Config.CPU), pct, estimator(d.Config.Robust), d.Config.SpecAllow)
	if d.Config.Pad > 0 {
		ew.printf("- every filter padded with %d unreachable instructions (`--pad`): same verdicts and paths, another JIT image size\n", d.Config.Pad)
	}
	ew.printf("\n")
}

// mdReproduce writes the command line.
func mdReproduce(ew *errWriter, d *document.Document) {
	if d.Command != "" {
		ew.printf("## Reproduce\n\n```sh\n%s\n```\n\n", d.Command)
	}
}

// mdWarnings writes every warning.
func mdWarnings(ew *errWriter, d *document.Document) {
	if ws := text.Dedupe(text.SortedCopy(d.Warnings)); len(ws) > 0 {
		ew.printf("## Warnings\n\n")
		for _, wn := range ws {
			ew.printf("- %s\n", mdEscape(shortSentences(wn)))
		}
		ew.printf("\n")
	}
}

// PolicyTitle names the stack's policies, e.g. "default" or "a.yaml + b.yaml".
func PolicyTitle(d *document.Document) string {
	var names []string
	for _, p := range d.Config.Policies {
		names = append(names, p.Path)
	}
	if len(names) == 0 {
		return "no policy"
	}
	return strings.Join(names, " + ")
}

// VariantLabel says in words what a variant measured.
func VariantLabel(v string) string {
	switch v {
	case "on":
		return "filters as installed, action cache on"
	case "defeat":
		return "action cache defeated, every filter runs"
	}
	return v
}

func estimator(robust bool) string {
	if robust {
		return "median with bootstrap CI"
	}
	return "mean with t CI"
}

func inherited(n int) string {
	switch {
	case n < 0:
		return "unknown (kernel before 5.9)"
	case n == 0:
		return "0"
	}
	return fmt.Sprintf("%d (every child inherits them: the baseline is \"inherited filters only\")", n)
}

func shortHash(h string) string {
	if len(h) > 16 {
		return h[:16]
	}
	return OrDash(h)
}

func maxCount(xs []int) int {
	m := 0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

// mdEscape keeps text from breaking a Markdown table cell or starting
// markup: pipes and the characters that open emphasis or HTML are escaped.
func mdEscape(s string) string {
	r := strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;", "*", `\*`, "_", `\_`, "\n", " ")
	return r.Replace(s)
}

// loaderSuffix is ", loader" for a --loader both document, else "".
func loaderSuffix(d *document.Document, loader string) string {
	if d.Config.Loader == "both" && loader != "" {
		return ", " + loader
	}
	return ""
}
