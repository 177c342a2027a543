package top

import (
	"context"
	"io"
	"time"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/stats"
)

// WindowShare is the targets' seccomp share of their CPU time in window
// t, in %: the sum of the sampled processes' seccomp time over the sum of
// their CPU time (document.TopProcess SeccompNs and CPUNs); se is the
// window's own sampling error of it in %, the CPU-weighted mean of the
// processes' batch-means half-widths over the normal quantile at the
// window's confidence. ok is false when no process was sampled with CPU
// time in the window.
func WindowShare(t *document.Top) (pct, se float64, ok bool) {
	var sec, cpu, half float64
	for _, p := range t.Processes {
		if p.SeccompShare == nil || p.CPUNs <= 0 {
			continue
		}
		sec += p.SeccompNs
		cpu += float64(p.CPUNs)
		if p.SeccompShareCILow != nil && p.SeccompShareCIHigh != nil {
			half += float64(p.CPUNs) * (*p.SeccompShareCIHigh - *p.SeccompShareCILow) / 2
		}
	}
	if cpu <= 0 {
		return 0, 0, false
	}
	z := stats.ZQuantile(t.Method.Confidence)
	return 100 * sec / cpu, 100 * half / cpu / z, true
}

// ShareDecision judges the per-window shares so far (WindowShare, in
// arrival order) against a % budget with the asymptotic confidence
// sequence of stats.Decide: each window is one observation, so windows
// long against the share's correlation time (--refresh, default 2 s)
// make them nearly independent. windows counts the windows sampled
// (those without CPU time give no share), elapsedS their time.
// The windows' own sampling error (minSD, the mean of WindowShare's se)
// floors the spread, so a share that is 0 in every window still gets the
// width its sample counts allow.
func ShareDecision(shares []float64, minSD float64, budget stats.Budget, confidence float64, windows int, elapsedS float64) stats.Decision {
	return stats.Decide([]stats.Metric{{Name: "share", Xs: shares, MinSD: minSD}}, budget, confidence, stats.DefaultTargetN, windows, 0, elapsedS)
}

// NoFilters is whether every process of window t reports 0 seccomp
// filters (Seccomp_filters of /proc/PID/status; document.TopProcess
// Filters), with at least one process listed: seccomp then costs the
// targets exactly nothing, whatever the samples say. A process that
// does not report its count, or exited, leaves it unknown (false).
func NoFilters(t *document.Top) bool {
	for _, p := range t.Processes {
		if p.Filters == nil || *p.Filters != 0 || p.Exited {
			return false
		}
	}
	return len(t.Processes) > 0
}

// NoFiltersVerdict is the verdict for targets without filters
// (NoFilters): within at once, an exact 0 (Estimate, Lower and Upper 0),
// decided_by document.BudgetByNoFilters.
func NoFiltersVerdict(budget stats.Budget, confidence float64, windows int, elapsedS float64) *document.BudgetVerdict {
	return &document.BudgetVerdict{Verdict: string(stats.VerdictWithin), Budget: budget.Value(), Unit: budget.Unit(),
		Confidence: confidence, ElapsedS: elapsedS, Rounds: windows, DecidedBy: document.BudgetByNoFilters}
}

// budgetReport samples windows of v.Refresh until the share budget is
// decided (at the first window when no target has a filter: NoFilters)
// or maxTime has passed, then writes the last window with the
// verdict (document.Top.Budget) to v.Specs and returns the verdict's exit
// error (cmdutil.BudgetExitFor).
func budgetReport(ctx context.Context, w *Watcher, o *Options, v View, out, errOut io.Writer, render func(*document.Top) func(string, io.Writer) error) error {
	start := time.Now()
	var shares []float64
	var seSum float64
	for windows := 1; ; windows++ {
		t, err := w.Window(ctx, v.Refresh)
		if err != nil {
			return err
		}
		if pct, se, ok := WindowShare(t); ok {
			shares = append(shares, pct)
			seSum += se
		}
		elapsed := time.Since(start)
		if NoFilters(t) {
			t.Budget = NoFiltersVerdict(*v.Budget, o.Confidence, windows, elapsed.Seconds())
			if err := output.WriteEach(output.Or(v.Specs, v.Format), out, errOut, render(t)); err != nil {
				return err
			}
			return context.Cause(ctx)
		}
		minSD := 0.0
		if len(shares) > 0 {
			minSD = seSum / float64(len(shares))
		}
		d := ShareDecision(shares, minSD, *v.Budget, o.Confidence, windows, elapsed.Seconds())
		if d.Verdict != stats.VerdictUndecided || elapsed+v.Refresh > v.MaxTime || ctx.Err() != nil {
			t.Budget = document.NewBudgetVerdict(d)
			if err := output.WriteEach(output.Or(v.Specs, v.Format), out, errOut, render(t)); err != nil {
				return err
			}
			if err := context.Cause(ctx); err != nil {
				return err
			}
			return cmdutil.BudgetExitFor(t.Budget.Verdict, "budget: "+report.BudgetText(t.Budget))
		}
	}
}
