package estimate

import (
	"math"
	"time"

	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/runner/command"
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/stats"
)

// DefaultAB is the A/B design of --command and of the per-process probe
// (--ab): interleaved pairs in one child (command.DesignPairs). On this
// project's VM, busy, pairs gave a narrower interval than children for
// the same measuring time in 5 of 6 comparisons and was the narrowest
// or second narrowest of the three designs in all but one
// (docs/estimate-command.md, "Choosing the A/B design"), with one CPU and one
// copy of the program at a time; the simulation in stats
// (TestPairedShiftNarrowerThanChildren) shows why: what moves a whole
// child cancels within its pairs.
const DefaultAB = command.DesignPairs

// DefaultABTime is the measuring budget of --command (--ab-time): the
// issue's bar is a 95 % half-width within 20 % of the added time after
// about 60 s of measuring per program. The per-process probe gets a
// quarter of it more (processBudgetShare).
const DefaultABTime = 60 * time.Second

// abDesign is opts.AB, DefaultAB when unset.
func (opts *Options) abDesign() command.Design {
	if opts.AB == "" {
		return DefaultAB
	}
	return opts.AB
}

// childTarget is the command workload's TargetChild for a measuring
// budget spread over trials blocks of design: the children design runs
// two children per block (0 and N filters), the paired designs one; 0
// (the workload's default) for no budget.
func childTarget(design command.Design, budget time.Duration, trials int) time.Duration {
	if budget <= 0 || trials < 1 {
		return 0
	}
	per := budget / time.Duration(trials)
	if !design.Paired() {
		per /= 2
	}
	return per
}

// abMeasure is the measured added time of one run as the A/B design gives
// it, wall (execve to reaping) and CPU (user+sys), in ns per run.
type abMeasure struct {
	Design        command.Design
	Wall, CPU     stats.Estimate
	BaselineRunNs float64
	// Children counts the timing children; Pairs the pairs over all of
	// them (0 in the children design).
	Children, Pairs int
	// ChildWall and ChildCPU are each child's Hodges–Lehmann centre of
	// its pair differences (paired designs only).
	ChildWall, ChildCPU []float64
}

// measuredAdded computes the added time from the command workload's
// samples. children: the difference of the medians over children of
// each child's median run, 0 filters against N, with a bootstrap
// interval (stats.RobustDiff). pairs and duet: every child's pair
// differences, combined by stats.PairedShift (the Hodges–Lehmann centre
// per child, their mean over children with a t interval).
func measuredAdded(samples []result.Sample, design command.Design, confidence float64, seed uint64) abMeasure {
	m := abMeasure{Design: design, Children: len(samples)}
	if !design.Paired() {
		b, x, bcpu, xcpu, _ := splitCommandSamples(samples)
		m.Wall = stats.DiffEstimate(stats.RobustDiff(b, x, confidence, seed))
		m.CPU = stats.DiffEstimate(stats.RobustDiff(bcpu, xcpu, confidence, seed))
		m.BaselineRunNs = stats.Median(b)
		return m
	}
	var wall, cpu [][]float64
	var base []float64
	for _, s := range samples {
		wall = append(wall, stats.PairDiffs(s.BaselineSamplesNsPerOp, s.SamplesNsPerOp))
		if c := s.Command; c != nil {
			cpu = append(cpu, stats.PairDiffs(c.BaseCPUNs, c.CPUNs))
		}
		base = append(base, s.BaselineNsPerOp)
	}
	pw, pc := stats.PairedShift(wall, confidence), stats.PairedShift(cpu, confidence)
	m.Wall, m.CPU = pw.Estimate, pc.Estimate
	m.Pairs, m.ChildWall, m.ChildCPU = pw.Pairs, pw.Children, pc.Children
	m.BaselineRunNs = stats.Median(base)
	return m
}

// meetsBar reports whether half-width hw resolves added against a
// baseline run of baseline ns (document.BarAddedFrac, BarBaselineFrac).
func meetsBar(hw, added, baseline float64) bool {
	return hw <= barTarget(added, baseline)
}

// barTarget is the half-width the bar allows for added against a
// baseline run of baseline ns.
func barTarget(added, baseline float64) float64 {
	return max(document.BarAddedFrac*math.Abs(added), document.BarBaselineFrac*baseline)
}

// barProjection is the measuring time in ns and blocks at which
// half-width hw would meet the bar (document.CommandAB.BarMeasuringNs),
// 0, 0 when it cannot be projected.
func barProjection(hw, added, baseline, measuringNs float64, trials int) (float64, int) {
	f := stats.TimeToHalfWidth(hw, barTarget(added, baseline))
	if math.IsNaN(f) || math.IsInf(f, 0) || measuringNs <= 0 || trials < 1 {
		return 0, 0
	}
	return measuringNs * f, int(math.Ceil(float64(trials) * f))
}

// report is m as the estimate's JSON carries it, with the run's time.
func (m abMeasure) report(info result.RunInfo) *document.CommandAB {
	hw := (m.Wall.Hi - m.Wall.Lo) / 2
	hwc := (m.CPU.Hi - m.CPU.Lo) / 2
	ab := &document.CommandAB{Design: string(m.Design), Children: m.Children, Pairs: m.Pairs,
		ChildAddedNs: m.ChildWall, ChildCPUAddedNs: m.ChildCPU,
		HalfWidthPct: 100 * hw / math.Abs(m.Wall.Center), CPUHalfWidthPct: 100 * hwc / math.Abs(m.CPU.Center),
		HalfWidthBaselinePct: 100 * hw / m.BaselineRunNs, MeetsBar: meetsBar(hw, m.Wall.Center, m.BaselineRunNs),
		CPUMeetsBar: meetsBar(hwc, m.CPU.Center, m.BaselineRunNs), MeasuringNs: float64(info.Elapsed)}
	ab.BarMeasuringNs, ab.BarTrials = barProjection(hw, m.Wall.Center, m.BaselineRunNs, ab.MeasuringNs, info.Blocks)
	ab.CPUBarMeasuringNs, ab.CPUBarTrials = barProjection(hwc, m.CPU.Center, m.BaselineRunNs, ab.MeasuringNs, info.Blocks)
	return ab
}
