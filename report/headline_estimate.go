package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/report/internal/text"
)

// EstimateHeadline answers an estimate in at most MaxHeadlineLines lines:
// the stack and the profile; with --command data (Validation's
// EstimateCommand) the predicted added time per run of every part with
// its stated interval and the measured added time (wall and CPU) with
// its interval; the direct part (time inside seccomp, Total) with its
// calibration interval, labelled "direct" because it is not the whole
// added time; without --command the model's per-filter and entry costs;
// how many calls the action cache serves; and which syscalls dominate
// the direct part.
func EstimateHeadline(e *document.Estimate) []HeadlineLine {
	var names []string
	for _, s := range e.Stack {
		names = append(names, s.Name)
	}
	cache := "as installed"
	if e.Cache == "defeat" {
		cache = "cache defeated"
	}
	m, t := e.Model, e.Total
	out := append(BudgetHeadline(e.Budget), []HeadlineLine{
		{"policy", fmt.Sprintf("%s (%s), %s; profile %s: %s", Plural(len(e.Stack), "filter"), SummarizeNames(names), cache,
			text.ElideMiddle(e.Profile.Source, 2*maxPathInHeadline), Plural(t.Calls, "call"))},
	}...)
	c := estimateCommandOf(e)
	if c != nil {
		out = append(out, HeadlineLine{"predicted", predictedHeadText(c)}, HeadlineLine{"measured", measuredHeadText(c)})
	}
	out = append(out, HeadlineLine{"direct", directHeadText(e, c != nil)})
	if c == nil {
		out = append(out,
			HeadlineLine{"per-filter", fmt.Sprintf("%s per filter + %s per instruction run, uncached",
				estPtr(m.PerFilterNs, m.PerFilterCILowNs, m.PerFilterCIHigh), estPtr(m.PerInsnNs, m.PerInsnCILowNs, m.PerInsnCIHighNs))},
			HeadlineLine{"entry", fmt.Sprintf("%s once per uncached call; a cached call %s",
				estPtr(m.EntryNs, m.EntryCILowNs, m.EntryCIHighNs), estPtr(m.CachedNs, m.CachedCILowNs, m.CachedCIHighNs))})
	}
	out = append(out, HeadlineLine{"cache", fmt.Sprintf("%d of %s served by the action cache (no filter runs for them)", t.CachedCalls, Plural(t.Calls, "call"))})
	if b := t.Bracket; b != nil && c == nil {
		out = append(out, HeadlineLine{"bracket", BracketText(b)})
	}
	verdict := estimateVerdict(e)
	if c != nil {
		verdict = coverageHeadText(c)
	}
	out = append(out, HeadlineLine{"verdict", verdict})
	note := fmt.Sprintf("[ ]: %.0f%% CI", m.Confidence*100)
	switch {
	case c != nil && t.ModelErrorPct > 0:
		note += fmt.Sprintf(", predicted's with model error ±%.0f%%", t.ModelErrorPct)
	case c != nil:
		note += ", predicted's with model error"
	case t.Bracket != nil:
		note += " of the calibration; the bracket is a floor and a ceiling, not an interval"
	case t.ModelErrorPct > 0:
		note += fmt.Sprintf(" of the calibration only (the model error on real programs, ±%.0f%%, widens it)", t.ModelErrorPct)
	default:
		note += " of the calibration"
	}
	out = append(out, HeadlineLine{"note", note + "; labels: see " + ReadingDoc + "; --explain"})
	return out
}

// estimateCommandOf is e's --command comparison, nil without one.
func estimateCommandOf(e *document.Estimate) *document.EstimateCommand {
	if e.Validation == nil {
		return nil
	}
	return e.Validation.EstimateCommand
}

// predictedHeadText is the predicted added time per run of the command
// with its stated interval (the note says it includes the model error),
// as the sum of its parts (direct, per process when measured, indirect
// when predicted).
func predictedHeadText(c *document.EstimateCommand) string {
	parts := []string{"direct " + text.Signed(c.SyscallsAddedNs)}
	if c.ProcessProbe != "" {
		parts = append(parts, "per process "+text.Signed(c.ProcessAddedNs))
	}
	if c.GapNs > 0 {
		parts = append(parts, "indirect "+text.Signed(c.IndirectAddedNs))
	}
	return signedInterval(c.PredictedAddedNs, c.PredictedCILowNs, c.PredictedCIHighNs) + " per run = " + strings.Join(parts, " + ")
}

// measuredHeadText is the measured added time per run, wall and CPU,
// with their intervals.
func measuredHeadText(c *document.EstimateCommand) string {
	return fmt.Sprintf("%s per run of %s (wall), CPU user+sys %s",
		signedInterval(c.MeasuredAddedNs, c.MeasuredCILowNs, c.MeasuredCIHighNs), text.Duration(c.BaselineRunNs),
		signedInterval(c.MeasuredCPUAddedNs, c.MeasuredCPUCILowNs, c.MeasuredCPUCIHighNs))
}

// coverageHeadText says whether the stated interval covers the measured
// wall and CPU added times (no verdict for a measurement whose interval
// holds 0), and their ratios.
func coverageHeadText(c *document.EstimateCommand) string {
	word := func(covered bool, lo, hi float64) string {
		switch {
		case spansZero(lo, hi):
			return "no verdict (interval holds 0)"
		case covered:
			return "covered"
		}
		return "NOT covered"
	}
	wall, cpu := word(c.Covered, c.MeasuredCILowNs, c.MeasuredCIHighNs), word(c.CPUCovered, c.MeasuredCPUCILowNs, c.MeasuredCPUCIHighNs)
	cover := "wall " + wall + ", CPU " + cpu
	if wall == cpu {
		cover = "wall and CPU " + wall
	}
	return fmt.Sprintf("predicted interval: %s; predicted ÷ measured %.2f wall, %.2f CPU", cover, c.Ratio, c.CPURatio)
}

// signedInterval is a signed time and its interval in one unit, named
// once: "+437 µs [+120, +754]".
func signedInterval(c, lo, hi float64) string {
	g := text.FigureGroup(true, false, c, lo, hi)
	_, unit := text.UnitOf(max(math.Abs(c), math.Abs(lo), math.Abs(hi)))
	return g(c) + " " + unit + " [" + g(lo) + ", " + g(hi) + "]"
}

// directHeadText is the direct part (Total): the time inside seccomp
// over the profile's calls with its calibration interval; an interval
// reaching below 0 shows from 0 and says so. Without --command it says
// that this is not the whole added time.
func directHeadText(e *document.Estimate, command bool) string {
	t := e.Total
	total := estPtr(t.AddedNs, t.CILowNs, t.CIHighNs)
	if t.AddedNs > 0 {
		total = "+" + total
	}
	clip := ""
	if t.CILowNs != nil && t.CIHighNs != nil && *t.CILowNs < 0 && t.AddedNs >= 0 {
		g := text.FigureGroup(false, true, t.AddedNs, *t.CIHighNs, *t.CILowNs)
		total = "+" + g(t.AddedNs) + " [0, " + g(*t.CIHighNs) + "]"
		clip = " (interval clipped at 0 from " + g(*t.CILowNs) + ": not resolved from 0)"
	}
	if command {
		return total + " in seccomp, " + Plural(t.Calls, "call") + clip + shareText(e)
	}
	total += " inside seccomp over " + Plural(t.Calls, "call") + clip
	if t.NsPerSecond != nil {
		total += fmt.Sprintf(" = %s of the run's time", text.PctFormatter(*t.NsPerSecond/1e7)(*t.NsPerSecond/1e7))
	} else if t.PctOfSyscallTime != nil {
		total += fmt.Sprintf(" = %s of its strace-timed syscall time (inflated by tracing)", text.PctFormatter(*t.PctOfSyscallTime)(*t.PctOfSyscallTime))
	}
	return total + "; the direct part only: the per-process part needs --command"
}

// estimateVerdict names the syscalls that make up most of the direct
// part.
func estimateVerdict(e *document.Estimate) string {
	if s := shareText(e); s != "" {
		return "most of the direct part goes to" + strings.TrimPrefix(s, ":")
	}
	return "no syscall adds time inside seccomp"
}

// shareText is ": " and the (up to three) syscalls with the largest
// shares of the direct part, "" when none adds time.
func shareText(e *document.Estimate) string {
	rows := append([]document.EstimateSyscall(nil), e.Syscalls...)
	slices.SortStableFunc(rows, func(a, b document.EstimateSyscall) int { return cmpDesc(text.Val(a.TotalNs), text.Val(b.TotalNs)) })
	var top []string
	for _, r := range rows {
		if r.Share == nil || *r.Share <= 0 || len(top) == 3 {
			break
		}
		top = append(top, fmt.Sprintf("%s %.0f%%", r.Name, *r.Share*100))
	}
	if len(top) == 0 {
		return ""
	}
	return ": " + strings.Join(top, ", ")
}

// estPtr formats an estimate in ns and its interval (nil: none) in one
// unit: "502 ns [-1104, 2107]".
func estPtr(c float64, lo, hi *float64) string {
	if lo == nil || hi == nil {
		return text.Figure(c) + " (no interval)"
	}
	g := text.FigureGroup(false, false, c, *lo, *hi)
	_, unit := text.UnitOf(max(math.Abs(c), math.Abs(*lo), math.Abs(*hi)))
	return fmt.Sprintf("%s %s [%s, %s]", g(c), unit, g(*lo), g(*hi))
}

// cmpDesc orders a before b when a is larger.
func cmpDesc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// TopHeadline answers top in at most MaxHeadlineLines lines: what was
// sampled, the seccomp share of the processes that spend the most in it
// (with intervals and their filter counts), and a verdict with the best
// predicted saving.
func TopHeadline(t *document.Top) []HeadlineLine {
	sampled := topSampledLine(t)
	if c := t.Children; c != nil {
		sampled += fmt.Sprintf("; the --pid targets' children followed: %d when top started, %d found since", c.AtStart, c.Since)
	}
	out := append(BudgetHeadline(t.Budget), HeadlineLine{"sampled", sampled})
	const maxProcs = MaxHeadlineLines - 3
	for i, p := range t.Processes {
		if i == maxProcs {
			break
		}
		filters := "? filters"
		if p.Filters != nil {
			filters = Plural(*p.Filters, "filter")
		}
		if p.Samples == 0 {
			state := "idle"
			if p.Exited {
				state = "exited"
			}
			out = append(out, HeadlineLine{"seccomp", fmt.Sprintf("%d %s: %s, no samples in the window (%s of CPU), %s", p.Pid, p.Comm,
				state, fmtDurNs(p.CPUNs), filters)})
			continue
		}
		share := "-"
		if p.SeccompShare != nil {
			share = fmt.Sprintf("%.2f%%", *p.SeccompShare*100)
			if p.SeccompShareCILow != nil && p.SeccompShareCIHigh != nil {
				share += fmt.Sprintf(" [%.2f, %.2f]", *p.SeccompShareCILow*100, *p.SeccompShareCIHigh*100)
			}
		}
		out = append(out, HeadlineLine{"seccomp", fmt.Sprintf("%d %s: %s of its CPU in seccomp (%s of %s), %s", p.Pid, p.Comm,
			share, fmtDurNs(p.SeccompNs), fmtDurNs(p.CPUNs), filters)})
	}
	out = append(out, HeadlineLine{"verdict", topVerdict(t)})
	out = append(out, HeadlineLine{"note", fmt.Sprintf("[ ]: %.0f%% CI of the share of CPU samples; labels: see %s; --explain", t.Method.Confidence*100, ReadingDoc)})
	return out
}

// topSampledLine counts the processes sampled over the window, the --pid
// targets without samples that are alive (idle), and those that exited.
func topSampledLine(t *document.Top) string {
	var n, idle, exited int
	for _, p := range t.Processes {
		if p.Exited {
			exited++
		}
		switch {
		case p.Samples > 0:
			n++
		case p.Idle:
			idle++
		}
	}
	s := fmt.Sprintf("%s over %s of wall time", Plural(n, "process"), fmtDurNs(float64(t.WindowNs)))
	if idle > 0 {
		s += fmt.Sprintf("; %s idle (no samples)", Plural(idle, "--pid target"))
	}
	if exited > 0 {
		s += fmt.Sprintf("; %s exited", Plural(exited, "--pid target"))
	}
	return s
}

// topVerdict names the largest predicted saving, or says that none was
// predicted.
func topVerdict(t *document.Top) string {
	best, pid, comm := document.TopPredictionRow{}, 0, ""
	for _, p := range t.Processes {
		if p.Prediction == nil {
			continue
		}
		for _, r := range p.Prediction.Rows {
			if r.SavedNs > best.SavedNs {
				best, pid, comm = r, p.Pid, p.Comm
			}
		}
	}
	if best.SavedNs <= 0 {
		if !topSampled(t) {
			return "nothing to say: no samples of the selected processes"
		}
		return "no merge or optimize saving predicted for these stacks"
	}
	return fmt.Sprintf("%s of %d %s's stack would save %s (%.1f%% of its CPU), predicted", best.Name, pid, comm, fmtDurNs(best.SavedNs), best.SavedShare*100)
}
