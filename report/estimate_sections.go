package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/report/internal/text"
)

// estimateView is an estimate with the number of syscalls its table
// shows (all when top is 0).
type estimateView struct {
	e   *document.Estimate
	top int
}

// estimateSections are the sections of an estimate, in order: the title
// (Markdown), the partial mark (an interrupted estimate), the headline, the profile, stack and model, the syscalls
// by added time, the total's breakdown, the validation, the command's
// measurement and the warnings (which the text leaves to standard
// error). WriteEstimateTextOpts, WriteEstimateMarkdown and
// WriteEstimateHTML render this one list.
var estimateSections = []section[estimateView]{
	{name: "title", textOmit: true, blocks: func(v estimateView) []block {
		return []block{titleBlock(estimateTitle(v.e)), paraBlock("Every time is in ns per call unless it says otherwise.")}
	}},
	{name: "partial", blocks: func(v estimateView) []block {
		if !v.e.Partial {
			return nil
		}
		return []block{paraBlock("*** " + EstimatePartialText + " ***")}
	}},
	{name: "headline", blocks: func(v estimateView) []block { return []block{headlineBlock(EstimateHeadline(v.e))} }},
	{name: "setup", explain: true, blocks: func(v estimateView) []block { return []block{estimateSetup(v.e)} }},
	{name: "syscalls", blocks: func(v estimateView) []block { return []block{estimateTable(v.e, v.top)} }},
	{name: "total", explain: true, blocks: func(v estimateView) []block { return []block{estimateTotal(v.e)} }},
	{name: "parts", blocks: func(v estimateView) []block { return estimatePartsBlock(v.e) }},
	{name: "probe", explain: true, blocks: func(v estimateView) []block { return estimateProbeBlock(v.e) }},
	{name: "validation", blocks: func(v estimateView) []block { return estimateValidation(v.e) }},
	{name: "command", blocks: func(v estimateView) []block {
		if v.e.Validation == nil || v.e.Validation.EstimateCommand == nil {
			return nil
		}
		return []block{estimateCommand(v.e.Validation.EstimateCommand, v.e.Total.ModelErrorPct)}
	}},
	{name: "warnings", textOmit: true, blocks: func(v estimateView) []block {
		return []block{listBlock{title: "warnings", heading: true, items: v.e.Warnings}}
	}},
}

// estimateTitle is the title of an estimate's Markdown and HTML page.
func estimateTitle(e *document.Estimate) string {
	return "seccompbench estimate: " + e.Profile.Source + " under " + text.Plural(len(e.Stack), "filter")
}

// WriteEstimateText writes an estimate for people without --explain
// (WriteEstimateTextOpts).
func WriteEstimateText(w io.Writer, e *document.Estimate, top int) {
	WriteEstimateTextOpts(w, e, top, TextOptions{})
}

// WriteEstimateTextOpts writes an estimate for people: the headline, the
// top syscalls by added time (all when top is 0) and the validation,
// prose wrapped at TextWidth; with opts.Explain also the profile, stack
// and model before the table and the total's breakdown after it, not
// wrapped. Write errors are ignored (the caller's writer reports them).
func WriteEstimateTextOpts(w io.Writer, e *document.Estimate, top int, opts TextOptions) {
	writeSectionsText(w, estimateSections, estimateView{e, top}, textOpts{explain: opts.Explain, wrap: !opts.Explain})
}

// WriteEstimateMarkdown writes an estimate as Markdown: every section of
// the text with --explain, then the warnings. It returns the first write
// error.
func WriteEstimateMarkdown(w io.Writer, e *document.Estimate, top int) error {
	return writeSectionsMarkdown(w, estimateSections, estimateView{e, top})
}

// WriteEstimateCommandText writes the predicted-vs-measured lines of
// estimate --command for people, after a blank line; modelErrPct is the
// model error (Estimate.Total.ModelErrorPct, in percent; 0 when not
// known) the stated interval includes.
func WriteEstimateCommandText(w io.Writer, c *document.EstimateCommand, modelErrPct float64) {
	if c == nil {
		return
	}
	fmt.Fprint(w, "\n"+estimateCommand(c, modelErrPct).text(textOpts{}))
}

// estimateSetup is the profile, the stack and the model.
func estimateSetup(e *document.Estimate) fieldsBlock {
	pct := fmt.Sprintf("%.0f%%", e.Model.Confidence*100)
	p := e.Profile
	profile := fmt.Sprintf("%s (%s): %s of %s", p.Source, p.Format, text.Plural(p.Calls, "call"), text.Plural(p.Syscalls, "syscall"))
	if p.Seconds != nil {
		profile += fmt.Sprintf(", %s in syscalls%s", text.Ns(*p.Seconds*1e9), straceTimed(p.Format))
	}
	if p.Duration != nil {
		profile += fmt.Sprintf(", %s wall time (--duration)", text.Ns(*p.Duration*1e9))
	}
	f := fieldsBlock{width: 10, fields: []field{{label: "profile", value: profile}}}
	if e.OCI != nil {
		f.fields = append(f.fields, field{label: "oci", value: "conditions resolved with " + e.OCI.Text})
	}
	var names []string
	for _, s := range e.Stack {
		names = append(names, s.Name)
	}
	cacheText := "as installed (action cache on)"
	if e.Cache == "defeat" {
		cacheText = "action cache defeated (every filter runs on every syscall)"
	}
	m := e.Model
	f.fields = append(f.fields, field{label: "stack", value: fmt.Sprintf("%s (%s), %s", text.Plural(len(e.Stack), "filter"), SummarizeNames(names), cacheText)},
		field{label: "model", value: m.Source, more: []string{
			fmt.Sprintf("per uncached syscall: entry %s + per filter %s × filters + per instruction %s × instructions",
				text.Est(m.EntryNs, m.EntryCILowNs, m.EntryCIHighNs, text.NsShort), text.Est(m.PerFilterNs, m.PerFilterCILowNs, m.PerFilterCIHigh, text.NsShort),
				text.Est(m.PerInsnNs, m.PerInsnCILowNs, m.PerInsnCIHighNs, text.NsFine)),
			fmt.Sprintf("per cached syscall: %s   (%s CIs; ns)", text.Est(m.CachedNs, m.CachedCILowNs, m.CachedCIHighNs, text.NsShort), pct)}})
	return f
}

// sortedSyscalls are e's syscalls by added time, largest first.
func sortedSyscalls(e *document.Estimate) []document.EstimateSyscall {
	rows := append([]document.EstimateSyscall(nil), e.Syscalls...)
	sort.SliceStable(rows, func(i, j int) bool { return text.Val(rows[i].TotalNs) > text.Val(rows[j].TotalNs) })
	return rows
}

// estimateTable is the syscalls by added time, the top ones (all when
// top is 0). The default text leaves out the CACHED and INSNS columns
// to stay within TextWidth; the headline counts the cached calls and
// --explain (and the Markdown) shows both.
func estimateTable(e *document.Estimate, top int) tableBlock {
	ci := fmt.Sprintf("%.0f%% CI", e.Model.Confidence*100)
	rows := sortedSyscalls(e)
	shown := rows
	if top > 0 && len(shown) > top {
		shown = shown[:top]
	}
	t := tableBlock{textRight: true, textPad: 2, cols: []column{{head: "SYSCALL"}, {head: "CALLS", num: true}, {head: "VERDICT"},
		{head: "CACHED", explain: true}, {head: "INSNS", num: true, explain: true}, {head: "ADDED ns/CALL", short: "ns/CALL", num: true},
		{head: ci, num: true}, {head: "TOTAL", num: true}, {head: ci, num: true}, {head: "SHARE", num: true}}}
	for _, s := range shown {
		if !s.Known {
			t.rows = append(t.rows, cells(s.Name, fmt.Sprint(s.Calls), "unknown", "-", "-", "-", "", "-", "", ""))
			continue
		}
		name := s.Name
		if s.Arch != filters.ArchX86_64.Name {
			name += " (" + s.Arch + ")"
		}
		t.rows = append(t.rows, cells(name, fmt.Sprint(s.Calls), s.Action, text.YesNo(s.Cached), fmt.Sprint(s.Instructions),
			text.NsShort(text.Val(s.AddedNs)), text.CI(s.AddedLowNs, s.AddedHighNs, text.NsShort), text.Ns(text.Val(s.TotalNs)),
			text.CI(s.TotalLowNs, s.TotalHighNs, text.NsFormatter(text.Val(s.TotalNs))), text.Pct(s.Share)))
	}
	if len(shown) < len(rows) {
		t.footer = []string{fmt.Sprintf("(%d more syscalls; --top 0 shows all)", len(rows)-len(shown))}
	}
	return t
}

// estimateTotal is the direct part (Total: the time inside seccomp),
// what it is per second or of the syscall time, the dominant syscalls
// and the bracket (the model error in results written before it).
func estimateTotal(e *document.Estimate) fieldsBlock {
	p := e.Profile
	t := e.Total
	sign := "+"
	if t.AddedNs < 0 {
		sign = "" // the number carries its "-"
	}
	total := field{label: "direct", value: fmt.Sprintf("%s%s inside seccomp over %s (%s ns per call on average; %s cached)",
		sign, text.Cost(t.AddedNs, t.CILowNs, t.CIHighNs, text.NsFormatter(t.AddedNs)), text.Plural(t.Calls, "call"), text.NsShort(t.PerCallNs), text.Plural(t.CachedCalls, "call"))}
	if t.PctOfSyscallTime != nil {
		total.more = append(total.more, fmt.Sprintf("= %s of the %s the profile spent in syscalls%s",
			text.Cost(*t.PctOfSyscallTime, t.PctOfSyscallTimeLo, t.PctOfSyscallTimeHi, text.PctFormatter(*t.PctOfSyscallTime)), text.Ns(*p.Seconds*1e9), straceTimed(p.Format)))
	}
	if t.NsPerSecond != nil {
		total.more = append(total.more, fmt.Sprintf("= %s per second of run time (%s of the %s run)",
			text.Cost(*t.NsPerSecond, t.NsPerSecondLow, t.NsPerSecondHigh, text.NsFormatter(*t.NsPerSecond)), text.PctFormatter(*t.NsPerSecond/1e7)(*t.NsPerSecond/1e7), text.Ns(*p.Duration*1e9)))
	} else {
		total.more = append(total.more, "(give --duration, the profiled run's wall time, for the cost per second of work)")
	}
	dom := field{label: "dominant", value: dominant(sortedSyscalls(e))}
	if b := t.Bracket; b != nil {
		dom.more = []string{"(intervals: calibration uncertainty only; args 0 for every verdict and path)"}
		return fieldsBlock{width: 10, fields: []field{total, dom, {label: "bracket", value: BracketText(b), more: bracketMore(b)}}}
	}
	if t.ModelErrorPct <= 0 {
		dom.more = []string{"(intervals: calibration uncertainty only; args 0 for every verdict and path; see --validate for model error)"}
		return fieldsBlock{width: 10, fields: []field{total, dom}}
	}
	model := field{label: "model", value: fmt.Sprintf("error ±%.0f%% on real programs (docs/estimate.md): direct part with it %s", t.ModelErrorPct,
		text.Est(t.AddedNs, t.StatedCILowNs, t.StatedCIHighNs, text.NsFormatter(t.AddedNs))),
		more: []string{"(intervals above: calibration uncertainty only; args 0 for every verdict and path; --command measures the program itself)"}}
	return fieldsBlock{width: 10, fields: []field{total, dom, model}}
}

// BracketText is the bracket in one line: "+1.2 ms to +2.3 ms per run"
// and its parts' floors and ceilings.
func BracketText(b *document.EstimateBracket) string {
	var parts []string
	for _, p := range b.Parts {
		parts = append(parts, fmt.Sprintf("%s %s to %s", p.Name, text.Signed(p.FloorNs), text.Signed(p.CeilingNs)))
	}
	return fmt.Sprintf("%s to %s per run (%s)", text.Signed(b.FloorNs), text.Signed(b.CeilingNs), strings.Join(parts, "; "))
}

// bracketMore are the lines under the bracket: where its factors come
// from, what is left out, and how often it held on the validation.
func bracketMore(b *document.EstimateBracket) []string {
	var more []string
	for _, p := range b.Parts {
		if p.Source != "" {
			more = append(more, fmt.Sprintf("(%s ceiling ×%.2f: %s)", p.Name, p.CeilingFactor, p.Source))
		} else {
			more = append(more, fmt.Sprintf("(%s ceiling ×%.2f)", p.Name, p.CeilingFactor))
		}
	}
	if !b.ProcessMeasured {
		more = append(more, "(the per-process term was not measured: the bracket leaves out the program's start; --command measures /bin/true's)")
	}
	if b.ValidationRows > 0 {
		more = append(more, fmt.Sprintf("(held against docs/estimate.md's validation programs: met the measured interval on %d of %d rows, %.0f %%; the measured centre inside on %d)",
			b.ValidationHolds, b.ValidationRows, 100*float64(b.ValidationHolds)/float64(b.ValidationRows), b.ValidationCentre))
	}
	return more
}

// estimateValidation is --validate's table with its totals and the
// syscalls it could not validate; none without a validation.
func estimateValidation(e *document.Estimate) []block {
	v := e.Validation
	if v == nil || v.Skipped == nil {
		return nil
	}
	ci := fmt.Sprintf("%.0f%% CI", e.Model.Confidence*100)
	t := tableBlock{textRight: true, textPad: 2,
		caption: fmt.Sprintf("validation: each syscall timed in a loop under the stack (children without filters and with %s, %s; medians), added ns per call", text.Plural(len(e.Stack), "filter"), text.Plural(v.Trials, "trial")),
		cols: []column{{head: "SYSCALL"}, {head: "CALLS", num: true}, {head: "BASELINE ns", num: true}, {head: "PREDICTED", num: true}, {head: ci, num: true},
			{head: "MEASURED", num: true}, {head: ci, num: true}, {head: "ERROR", num: true}}}
	for _, r := range v.Rows {
		t.rows = append(t.rows, cells(r.Name, fmt.Sprint(r.Calls), fmt.Sprintf("%.1f", r.BaselineNs), text.NsShort(r.PredictedNs), text.CI(r.PredictedLowNs, r.PredictedHiNs, text.NsShort),
			text.NsShort(r.MeasuredNs), text.CI(r.MeasuredLowNs, r.MeasuredHiNs, text.NsShort), text.SignedPct(r.ErrorPct)))
	}
	if len(v.Rows) > 0 {
		t.footer = append(t.footer, fmt.Sprintf("profile-weighted total of these syscalls: predicted %s, measured %s: error %s; mean |error| per syscall %s",
			text.Est(v.PredictedTotalNs, v.PredictedLowNs, v.PredictedHighNs, text.NsFormatter(v.PredictedTotalNs)),
			text.Est(v.MeasuredTotalNs, v.MeasuredLowNs, v.MeasuredHighNs, text.NsFormatter(v.MeasuredTotalNs)),
			text.SignedPct(v.ErrorPct), text.UnsignedPct(v.MeanAbsErrorPct)))
	}
	if len(v.Skipped) > 0 {
		t.footer = append(t.footer, "not validated (not on runner's safe list): "+strings.Join(v.Skipped, ", "))
	}
	return []block{t}
}

// estimateCommand is estimate --command's prediction against its
// measurement; modelErrPct is the model error (in percent, 0 when not
// known) its stated interval includes.
func estimateCommand(c *document.EstimateCommand, modelErrPct float64) fieldsBlock {
	span := "execve to reaping"
	if c.Container != nil {
		span = "fork to reaping inside the " + c.Container.Runtime + " container"
	}
	f := fieldsBlock{indent: "  ", width: 17, caption: measuredHead(c, span)}
	add := func(label, format string, args ...any) {
		f.fields = append(f.fields, field{label: label, value: fmt.Sprintf(format, args...)})
	}
	if ct := c.Container; ct != nil {
		add("container", "%s containers (%s): %s", ct.Runtime, text.FirstLine(ct.Version), containerText(ct))
	}
	add("baseline run", "%s", text.Duration(c.BaselineRunNs))
	add("predicted added", "%s [%s, %s]   (calibration only: [%s, %s])", text.Signed(c.PredictedAddedNs),
		text.Signed(c.PredictedCILowNs), text.Signed(c.PredictedCIHighNs), text.Signed(c.CalibrationCILowNs), text.Signed(c.CalibrationCIHighNs))
	if c.ProcessProbe != "" {
		add("of which", "%s from the syscalls (model) and %s [%s, %s] per process (measured: `%s` under the same stack, beyond the install; CPU %s)",
			text.Signed(c.SyscallsAddedNs), text.Signed(c.ProcessAddedNs), text.Signed(c.ProcessCILowNs), text.Signed(c.ProcessCIHighNs), c.ProcessProbe, text.Signed(c.ProcessCPUAddedNs))
	}
	if c.GapNs > 0 {
		add("indirect", "%s [%s, %s] (the probe's curve at %s between syscalls: the baseline run over the profile's calls)",
			text.Signed(c.IndirectAddedNs), text.Signed(c.IndirectCILowNs), text.Signed(c.IndirectCIHighNs), text.Duration(c.GapNs))
	}
	add("measured added", "%s [%s, %s]   (CPU user+sys %s [%s, %s])", text.Signed(c.MeasuredAddedNs),
		text.Signed(c.MeasuredCILowNs), text.Signed(c.MeasuredCIHighNs), text.Signed(c.MeasuredCPUAddedNs), text.Signed(c.MeasuredCPUCILowNs), text.Signed(c.MeasuredCPUCIHighNs))
	if c.AB != nil {
		add("precision", "%s", abPrecision(c.AB))
		if t := abToBar(c.AB); t != "" {
			add("to meet the bar", "%s", t)
		}
	}
	if fl := c.ForeignLoad; fl != nil && fl.WindowNs > 0 {
		add("other load", "%s", foreignLoadText(fl, ": enough to move the added time; quiet the machine and measure again"))
	}
	add("ratio", "predicted ÷ measured %.2f wall (error %+.1f%%), %.2f CPU (error %+.1f%%)", c.Ratio, c.ErrorPct, c.CPURatio, c.CPUErrorPct)
	add("stated interval", "%s", statedCoverText(c, modelErrPct))
	if c.Accuracy != "" {
		add(fmt.Sprintf("within ±%.0f%%", c.AccuracyBandPct), "wall %s, CPU %s (%s)", accuracyWord(c.Accuracy), accuracyWord(c.CPUAccuracy), accuracyWhy(c.Accuracy, c.CPUAccuracy))
	}
	once := "once per process"
	if ct := c.Container; ct != nil {
		once = "once per container (" + ct.Runtime + "'s work on linux.seccomp)"
	}
	add("install", "%s %s, not in either added time: %s; install is %.0f%% of install + measured added time",
		text.Duration(c.InstallNs), once, dominanceText(c.Dominant, c.DominantClear), 100*c.InstallShare)
	f.fields = append(f.fields, commandDirectFields(c)...)
	return f
}

// statedCoverText says whether the prediction's stated interval
// (calibration and model error, modelErrPct in percent; 0 when not known)
// covers the measured wall and CPU added times: no verdict on a
// measurement whose interval holds 0, and a wall miss within the
// measurement's noise said as such.
func statedCoverText(c *document.EstimateCommand, modelErrPct float64) string {
	wall := "covers the wall time"
	switch {
	case spansZero(c.MeasuredCILowNs, c.MeasuredCIHighNs):
		wall = "no verdict: the measurement does not resolve the added time (its interval holds 0)"
	case !c.Covered && c.Overlap:
		wall = "does NOT cover the wall time, though the two intervals overlap (a miss within the measurement's noise)"
	case !c.Covered:
		wall = "does NOT cover the wall time"
	}
	cpu := "covers the CPU time"
	switch {
	case spansZero(c.MeasuredCPUCILowNs, c.MeasuredCPUCIHighNs):
		cpu = "no verdict on the CPU time (the measured CPU interval holds 0)"
	case !c.CPUCovered:
		cpu = "does NOT cover the CPU time"
	}
	what := "calibration and model error"
	if modelErrPct > 0 {
		what = fmt.Sprintf("calibration and model error ±%.0f%%", modelErrPct)
	}
	return fmt.Sprintf("%s; %s (the prediction's interval: %s); the filters' work is CPU time, and wall and CPU differ when the command's processes overlap or wait",
		wall, cpu, what)
}

// straceTimed qualifies a profile's time in syscalls: strace's times
// include its own tracing (every syscall stops the tracee twice), so they
// are longer than the untraced program's; "" for other formats.
func straceTimed(format string) string {
	if format == "strace" {
		return " (strace-timed: inflated by the tracing)"
	}
	return ""
}

// accuracyWord is an accuracy code (stats.Judge) as the text says it.
func accuracyWord(code string) string {
	switch code {
	case "within":
		return "within"
	case "outside":
		return "OUTSIDE"
	}
	return "undecided"
}

// accuracyWhy says what the accuracy verdicts of the wall and CPU
// comparison rest on.
func accuracyWhy(wall, cpu string) string {
	if wall == "undecided" && cpu == "undecided" {
		return "the measured intervals hold values the prediction is within the band of and values it is not: measure longer to decide"
	}
	return "judged against every value the measured interval holds, not its centre alone"
}

// spansZero reports that the interval [lo, hi] holds 0: a measurement
// that does not resolve its difference, on which no ratio or coverage
// verdict stands.
func spansZero(lo, hi float64) bool { return lo <= 0 && hi >= 0 }
