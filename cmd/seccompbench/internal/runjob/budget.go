package runjob

import (
	"slices"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/stats"
)

// BudgetMetrics are the series run --budget judges for the command
// workload: per child of the deepest count, for each variant, the
// Hodges–Lehmann centre of its pair differences (stats.PairedShift's
// unit) in wall time and in CPU time, in ns per run or, for a relative
// budget, in % of the child's median unfiltered run. The child is the
// unit of replication, as everywhere else: each draws its own JIT
// placement, so pairs of one child are not independent of each other.
// pairs is the number of run pairs behind them.
func BudgetMetrics(samples []result.Sample, depth int, relative bool) (ms []stats.Metric, pairs int) {
	var g metricGroups
	for _, s := range samples {
		if s.Command == nil || s.Filters != depth || len(s.BaselineSamplesNsPerOp) == 0 {
			continue
		}
		wall := stats.HodgesLehmann(stats.PairDiffs(s.BaselineSamplesNsPerOp, s.SamplesNsPerOp))
		cpu := stats.HodgesLehmann(stats.PairDiffs(s.Command.BaseCPUNs, s.Command.CPUNs))
		if relative {
			wall *= 100 / stats.Median(s.BaselineSamplesNsPerOp)
			cpu *= 100 / stats.Median(s.Command.BaseCPUNs)
		}
		g.add(string(s.Variant), "wall", wall)
		g.add(string(s.Variant), "cpu", cpu)
		pairs += len(s.SamplesNsPerOp)
	}
	return g.metrics(), pairs
}

// LoopBudgetMetrics are the series run --budget judges for a loop
// workload (per syscall), from each child's paired baseline (the same
// op timed in the child before it installs its stack; Sample.
// BaselineNsPerOp): for each variant, "per_filter", the added ns/op per
// filter at the deepest count, (ns/op − baseline)/depth, which carries
// its share of the entry cost and so bounds the per-filter cost from
// above; and, when one filter was measured and depth > 1, "entry", the
// added ns/op of one filter. For a relative budget each is in % of the
// child's baseline (the bare op).
func LoopBudgetMetrics(samples []result.Sample, depth int, relative bool) []stats.Metric {
	if depth < 1 {
		return nil
	}
	var g metricGroups
	for _, s := range samples {
		if s.Command != nil || !(s.BaselineNsPerOp > 0) || (s.Filters != depth && (s.Filters != 1 || depth == 1)) {
			continue
		}
		added := s.NsPerOp - s.BaselineNsPerOp
		if relative {
			added *= 100 / s.BaselineNsPerOp
		}
		if s.Filters == depth {
			g.add(string(s.Variant), "per_filter", added/float64(depth))
		} else {
			g.add(string(s.Variant), "entry", added)
		}
	}
	return g.metrics()
}

// metricGroups collects metric series by variant and name, both in the
// order first seen.
type metricGroups struct {
	keys []string
	by   map[string]*stats.Metric
}

// add appends x to the series name of variant.
func (g *metricGroups) add(variant, name string, x float64) {
	k := variant + "\x00" + name
	m, ok := g.by[k]
	if !ok {
		if g.by == nil {
			g.by = map[string]*stats.Metric{}
		}
		m = &stats.Metric{Name: name, Variant: variant}
		g.by[k] = m
		g.keys = append(g.keys, k)
	}
	m.Xs = append(m.Xs, x)
}

// metrics are the series, variant by variant as first seen.
func (g *metricGroups) metrics() []stats.Metric {
	var ms []stats.Metric
	for _, k := range g.keys {
		ms = append(ms, *g.by[k])
	}
	return ms
}

// budgetDecision judges the samples so far against j.Budget at the
// deepest count measured (stats.Decide, one-sided at j.Confidence, the
// error split over wall and CPU time of every variant). rounds is the
// number of blocks, elapsedS the measuring time.
func (j *Job) budgetDecision(samples []result.Sample, rounds int, elapsedS float64) stats.Decision {
	return BudgetDecision(samples, slices.Max(j.Counts), *j.Budget, j.Confidence, rounds, elapsedS)
}

// BudgetDecision judges the paired command children of depth filters in
// samples against budget (BudgetMetrics, stats.Decide at one-sided level
// confidence); rounds and elapsedS (seconds) are carried into it.
func BudgetDecision(samples []result.Sample, depth int, budget stats.Budget, confidence float64, rounds int, elapsedS float64) stats.Decision {
	ms, pairs := BudgetMetrics(samples, depth, budget.Relative)
	if len(ms) == 0 {
		ms = LoopBudgetMetrics(samples, depth, budget.Relative)
	}
	return stats.Decide(ms, budget, confidence, stats.DefaultTargetN, rounds, pairs, elapsedS)
}

// BudgetOutcome is the verdict for a document and the error to return
// after writing it: nil for within, else a *cmdutil.BudgetError (exit 3
// over, 4 undecided).
func BudgetOutcome(d stats.Decision) (*document.BudgetVerdict, error) {
	v := document.NewBudgetVerdict(d)
	return v, BudgetExit(v)
}

// BudgetExit is the error that gives a written --budget verdict its exit
// status: nil for within, else a *cmdutil.BudgetError (3 over, 4
// undecided); no verdict at all (nil) is undecided.
func BudgetExit(v *document.BudgetVerdict) error {
	if v == nil {
		return cmdutil.BudgetExitFor(string(stats.VerdictUndecided), "budget: undecided (nothing measured)")
	}
	return cmdutil.BudgetExitFor(v.Verdict, "budget: "+report.BudgetText(v))
}

// budgetResult is the verdict of a finished run for its document, and the
// error Run returns after writing it (nil for within): a
// *cmdutil.BudgetError, exit 3 for over and 4 for undecided.
func (j *Job) budgetResult(samples []result.Sample, info result.RunInfo) (*document.BudgetVerdict, error) {
	if j.Budget == nil {
		return nil, nil
	}
	return BudgetOutcome(j.budgetDecision(samples, info.Blocks, info.Elapsed.Seconds()))
}
