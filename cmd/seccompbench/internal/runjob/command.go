package runjob

import (
	"slices"

	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/runner/container"
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/stats"
)

// commandCostOf builds the command workload's section of the report: per
// variant at the deepest count, what installing the stack costs once per
// process (each child's median seccomp(2) time per run, then a bootstrap
// interval of the median over children) against what the command pays
// while running (the cell's overhead over the 0-filter baseline, from
// stats.Analyze). On the runtime path the install is the runtime's work
// on linux.seccomp per container instead (container.SeccompWork). nil
// for the loops.
func commandCostOf(j *Job, samples []result.Sample, res stats.Result, info result.RunInfo) *document.CommandCost {
	cs := j.Workload.Command
	if cs == nil || len(samples) == 0 {
		return nil
	}
	c := &document.CommandCost{Argv: cs.Argv, Prepare: cs.Prepare, RunsPerChild: info.Runs, WarmupRuns: cs.Warmup}
	if cs.Design.Paired() {
		c.Design = string(cs.Design)
	}
	if ci := info.Container; ci != nil {
		c.Container = &document.ContainerRuntime{Runtime: ci.Runtime, Path: ci.Path, Version: ci.Version, Profile: ci.Profile, Bundle: ci.Bundle}
	}
	maxN := slices.Max(j.Counts)
	type key struct {
		v string
		n int
	}
	cpu := map[key][]float64{}
	inst := map[key][]float64{}
	var baseRun, baseCPU []float64
	for _, s := range samples {
		if s.Command == nil {
			continue
		}
		c.FailedRuns += s.Command.Failed
		c.OutlierRuns += len(s.Command.Outliers)
		k := key{string(s.Variant), s.Filters}
		cpu[k] = append(cpu[k], stats.Median(s.Command.CPUNs))
		inst[k] = append(inst[k], stats.Median(s.Command.InstallNs))
		if s.Filters == 0 {
			baseRun = append(baseRun, s.NsPerOp)
			baseCPU = append(baseCPU, stats.Median(s.Command.CPUNs))
		}
	}
	c.BaselineRunNs, c.BaselineCPUNs = stats.Median(baseRun), stats.Median(baseCPU)
	if maxN == 0 {
		return c
	}
	for _, cell := range res.Cells {
		if cell.Filters != maxN {
			continue
		}
		k := key{cell.Variant, maxN}
		is := stats.Robust(inst[k], j.Confidence, j.Seed)
		install := stats.Estimate{Center: is.Center, Lo: is.Lo, Hi: is.Hi, Confidence: j.Confidence}
		if c.Container != nil {
			install = container.SeccompWork(samples, result.Variant(cell.Variant), j.Confidence, j.Seed)
		}
		running := stats.DiffEstimate(cell.Overhead)
		cpuAdded := stats.Median(cpu[k]) - stats.Median(cpu[key{cell.Variant, 0}])
		pairs := 0
		if cs.Design.Paired() {
			var p stats.PairedEstimate
			p, cpuAdded = pairedAdded(samples, cell.Variant, maxN, j.Confidence)
			running, pairs = p.Estimate, p.Pairs
		}
		split := stats.SplitCost(install, running)
		c.Splits = append(c.Splits, document.CommandSplit{Variant: cell.Variant, Filters: maxN,
			InstallNs: install.Center, InstallCILowNs: install.Lo, InstallCIHighNs: install.Hi,
			RunningNs: split.Running.Center, RunningCILowNs: split.Running.Lo, RunningCIHighNs: split.Running.Hi,
			CPUAddedNs: cpuAdded, Pairs: pairs,
			InstallShare: split.InstallShare, Dominant: split.Dominant, Clear: split.Clear})
	}
	return c
}

// pairedAdded is, for the paired designs (run --ab pairs or duet), the
// added run time of the children of cell (variant, n) from their pair
// differences (stats.PairedShift) and the added CPU time (user+sys, the
// same estimator's centre).
func pairedAdded(samples []result.Sample, variant string, n int, confidence float64) (stats.PairedEstimate, float64) {
	var wall, cpu [][]float64
	for _, s := range samples {
		if s.Command == nil || string(s.Variant) != variant || s.Filters != n {
			continue
		}
		wall = append(wall, stats.PairDiffs(s.BaselineSamplesNsPerOp, s.SamplesNsPerOp))
		cpu = append(cpu, stats.PairDiffs(s.Command.BaseCPUNs, s.Command.CPUNs))
	}
	return stats.PairedShift(wall, confidence), stats.PairedShift(cpu, confidence).Center
}
