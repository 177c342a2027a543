package document

import (
	"github.com/seccompbench/seccompbench/runner/result"
)

// EstimateCommand compares estimate's prediction for a whole command with
// a measurement of that command under the same stack and variant (estimate
// --command). Times are ns per run of the command. Embedded in the
// estimate's validation, its keys sit directly under "validation".
type EstimateCommand struct {
	// Budget is the --budget verdict on the measurement, which the
	// document carries as Estimate.Budget (not here in JSON).
	Budget *BudgetVerdict `json:"-"`
	// Argv is the measured command.
	Argv []string `json:"command"`
	// Filters and Variant are the measured stack depth and cache variant.
	Filters int    `json:"command_filters"`
	Variant string `json:"command_variant"`
	// Trials are the randomized blocks run, RunsPerChild the timed runs
	// of each child (in the paired designs the most pairs a child may
	// make: a calibrated child stops at its time; AB.Pairs counts them).
	Trials       int `json:"command_trials"`
	RunsPerChild int `json:"command_runs_per_child"`
	// BaselineRunNs is the median run without filters (execve to reaping).
	BaselineRunNs float64 `json:"baseline_run_ns"`
	// PredictedAddedNs is the predicted added time of one run with the
	// stated interval (calibration and model error);
	// CalibrationCI{Low,High}Ns is the calibration-only interval.
	PredictedAddedNs    float64 `json:"predicted_added_ns"`
	PredictedCILowNs    float64 `json:"predicted_ci_low_ns"`
	PredictedCIHighNs   float64 `json:"predicted_ci_high_ns"`
	CalibrationCILowNs  float64 `json:"predicted_calibration_ci_low_ns"`
	CalibrationCIHighNs float64 `json:"predicted_calibration_ci_high_ns"`
	// SyscallsAddedNs is the per-syscall model's share of
	// PredictedAddedNs; ProcessAddedNs (with its interval) the per-process
	// term, what the stack adds to a run of ProcessProbe (/bin/true):
	// starting and ending a process under a freshly installed stack,
	// beyond the install. ProcessCPUAddedNs is its CPU part. Zero with an
	// empty ProcessProbe when not measured.
	SyscallsAddedNs   float64 `json:"predicted_syscalls_added_ns"`
	ProcessAddedNs    float64 `json:"process_added_ns"`
	ProcessCILowNs    float64 `json:"process_ci_low_ns"`
	ProcessCIHighNs   float64 `json:"process_ci_high_ns"`
	ProcessCPUAddedNs float64 `json:"process_cpu_added_ns"`
	ProcessProbe      string  `json:"process_probe,omitempty"`
	// IndirectAddedNs is the predicted indirect part of PredictedAddedNs
	// (the program's own work slowed by what the filters evicted: the
	// probe curve at GapNs, the baseline run over the profile's calls),
	// with its calibration interval; zero when not predicted.
	IndirectAddedNs  float64 `json:"predicted_indirect_added_ns"`
	IndirectCILowNs  float64 `json:"predicted_indirect_ci_low_ns"`
	IndirectCIHighNs float64 `json:"predicted_indirect_ci_high_ns"`
	// GapNs is the program's time between syscalls the indirect part
	// was read at: BaselineRunNs divided by the profile's calls.
	GapNs float64 `json:"gap_ns"`
	// MeasuredAddedNs is the measured added run time (difference of the
	// medians over children), with a bootstrap interval.
	MeasuredAddedNs  float64 `json:"measured_added_ns"`
	MeasuredCILowNs  float64 `json:"measured_ci_low_ns"`
	MeasuredCIHighNs float64 `json:"measured_ci_high_ns"`
	// MeasuredCPUAddedNs is the added user+sys CPU time per run, with its
	// interval: less disturbed by other load than the wall time.
	MeasuredCPUAddedNs  float64 `json:"measured_cpu_added_ns"`
	MeasuredCPUCILowNs  float64 `json:"measured_cpu_ci_low_ns"`
	MeasuredCPUCIHighNs float64 `json:"measured_cpu_ci_high_ns"`
	// Ratio is predicted / measured; ErrorPct is (predicted - measured) /
	// measured in percent.
	Ratio    float64 `json:"ratio"`
	ErrorPct float64 `json:"error_pct"`
	// Covered means one thing: the stated interval (calibration, model
	// error on the per-syscall part, per-process term) contains the
	// measured centre. CoveredByCalibration is the same test against the
	// calibration-only interval; Overlap (below) is not coverage.
	Covered              bool `json:"covered"`
	CoveredByCalibration bool `json:"covered_by_calibration_ci"`
	// CPURatio, CPUErrorPct and CPUCovered are the same comparison
	// against the added user+sys CPU time: the filters' work is CPU time,
	// and a command whose processes overlap or wait (a pipeline such as
	// tar with gzip) does not add it to its wall time one for one.
	// Overlap reports that the stated interval and the measured one
	// share a point: a miss (Covered false) within the measurement's own
	// noise.
	Overlap     bool    `json:"overlap"`
	CPURatio    float64 `json:"cpu_ratio"`
	CPUErrorPct float64 `json:"cpu_error_pct"`
	CPUCovered  bool    `json:"cpu_covered"`
	// Accuracy and CPUAccuracy judge the prediction's relative error
	// against the measured interval (stats.Judge), wall and CPU:
	// "within" when the prediction is within AccuracyBandPct of every
	// value the measured interval holds, "outside" when of none,
	// "undecided" when the interval is too wide to tell. A check of the
	// measured centre alone would decide by the measurement's noise.
	Accuracy        string  `json:"accuracy"`
	CPUAccuracy     string  `json:"cpu_accuracy"`
	AccuracyBandPct float64 `json:"accuracy_band_pct"`
	// InstallNs is what installing the stack costs once per process
	// (median seccomp(2) time), not part of either added time;
	// InstallShare is install / (install + measured added), and Dominant
	// says which of the two has the larger centre: "install" or "running".
	// DominantClear reports that their intervals do not overlap: only
	// then does the text say that one dominates.
	InstallNs     float64 `json:"install_ns"`
	InstallShare  float64 `json:"install_share"`
	Dominant      string  `json:"dominant"`
	DominantClear bool    `json:"dominant_clear"`
	// ForeignLoad, when not nil, is how much of the measuring CPUs' time
	// other processes took while the command's children ran (/proc/stat
	// busy time beyond the children's own, a lower bound; as run's
	// run.foreign_load): another estimate, a build, a busy loop.
	ForeignLoad *result.ForeignLoad `json:"foreign_load,omitempty"`
	// Container, when not nil (estimate --command --bundle/--rootfs),
	// says the command was measured in containers the runtime started,
	// under the filter it installed itself; InstallNs is then the
	// runtime's work on linux.seccomp once per container (its time
	// outside the runs with the profile minus without), as in run.
	Container *ContainerRuntime `json:"container,omitempty"`
	// Direct, when not nil, is the time the command spent inside
	// seccomp, sampled while it was measured, and the split of
	// MeasuredAddedNs into direct, per-process and indirect parts.
	Direct *CommandDirect `json:"direct,omitempty"`
	// AB says how the measured added times were obtained (the A/B
	// design) and how precise they are; nil in reports from before it.
	AB *CommandAB `json:"ab,omitempty"`
}

// CommandAB is the A/B design of a command measurement (estimate
// --command --ab) and the figures it gives beside the added times.
type CommandAB struct {
	// Design is "children" (every child under one stack; the added time
	// is the difference of the medians over children, with a bootstrap
	// interval), "pairs" (every child alternates runs without and with
	// the stack, order random per pair) or "duet" (the two runs of a
	// pair at once on two CPUs, sides swapped as drawn). The paired
	// designs' added time is the mean over children of each child's
	// Hodges–Lehmann centre of its pair differences, with a Student-t
	// interval (stats.PairedShift).
	Design string `json:"design"`
	// Children is the number of timing children; Pairs the pairs over
	// all of them (0 for children).
	Children int `json:"children"`
	Pairs    int `json:"pairs"`
	// ChildAddedNs and ChildCPUAddedNs are each child's centre of its
	// pair differences, wall (execve to reaping) and CPU (user+sys), in
	// ns per run; empty for children.
	ChildAddedNs    []float64 `json:"child_added_ns,omitempty"`
	ChildCPUAddedNs []float64 `json:"child_cpu_added_ns,omitempty"`
	// HalfWidthPct and CPUHalfWidthPct are the half-widths of the
	// measured intervals in percent of their added times;
	// HalfWidthBaselinePct the wall half-width in percent of the
	// baseline run.
	HalfWidthPct         float64 `json:"half_width_pct"`
	CPUHalfWidthPct      float64 `json:"cpu_half_width_pct"`
	HalfWidthBaselinePct float64 `json:"half_width_baseline_pct"`
	// MeetsBar reports that the wall half-width is within 20 % of the
	// added time, or within 0.3 % of the baseline run when the added time
	// is smaller than that allows.
	MeetsBar bool `json:"meets_bar"`
	// CPUMeetsBar is the same test on the CPU (user+sys) half-width.
	CPUMeetsBar bool `json:"cpu_meets_bar"`
	// BarMeasuringNs and CPUBarMeasuringNs project the measuring time,
	// in ns, at which the wall and CPU half-widths would meet the bar:
	// MeasuringNs × (half-width / bar)² (stats.TimeToHalfWidth), with
	// the blocks (--trials) grown by the same factor, BarTrials and
	// CPUBarTrials; at most MeasuringNs and Trials when the bar is met.
	// The projection assumes the spread stays as measured (the
	// half-width shrinks as one over the square root of the children)
	// and is 0 when it cannot be made (a half-width that is not a
	// number).
	BarMeasuringNs    float64 `json:"bar_measuring_ns"`
	BarTrials         int     `json:"bar_trials"`
	CPUBarMeasuringNs float64 `json:"cpu_bar_measuring_ns"`
	CPUBarTrials      int     `json:"cpu_bar_trials"`
	// MeasuringNs is the wall time the command's measurement took,
	// calibration excluded, in ns.
	MeasuringNs float64 `json:"measuring_ns"`
}

// Finite returns a copy of c with NaN and infinities replaced by 0 so that
// the JSON encodes; nil for nil.
func (c *EstimateCommand) Finite() *EstimateCommand {
	if c == nil {
		return nil
	}
	cc := *c
	for _, p := range []*float64{&cc.BaselineRunNs, &cc.PredictedAddedNs, &cc.SyscallsAddedNs, &cc.ProcessAddedNs, &cc.ProcessCILowNs, &cc.ProcessCIHighNs, &cc.ProcessCPUAddedNs, &cc.PredictedCILowNs, &cc.PredictedCIHighNs,
		&cc.CalibrationCILowNs, &cc.CalibrationCIHighNs, &cc.MeasuredAddedNs, &cc.MeasuredCILowNs, &cc.MeasuredCIHighNs,
		&cc.MeasuredCPUAddedNs, &cc.MeasuredCPUCILowNs, &cc.MeasuredCPUCIHighNs, &cc.Ratio, &cc.ErrorPct, &cc.CPURatio, &cc.CPUErrorPct, &cc.InstallNs, &cc.InstallShare,
		&cc.IndirectAddedNs, &cc.IndirectCILowNs, &cc.IndirectCIHighNs, &cc.GapNs} {
		*p = Finite(*p)
	}
	cc.Direct = c.Direct.Finite()
	if a := c.AB; a != nil {
		ab := *a
		ab.HalfWidthPct, ab.CPUHalfWidthPct, ab.HalfWidthBaselinePct = Finite(ab.HalfWidthPct), Finite(ab.CPUHalfWidthPct), Finite(ab.HalfWidthBaselinePct)
		ab.BarMeasuringNs, ab.CPUBarMeasuringNs = Finite(ab.BarMeasuringNs), Finite(ab.CPUBarMeasuringNs)
		ab.ChildAddedNs, ab.ChildCPUAddedNs = finiteAll(ab.ChildAddedNs), finiteAll(ab.ChildCPUAddedNs)
		cc.AB = &ab
	}
	return &cc
}

// finiteAll returns a copy of xs with Finite applied to each, nil for
// nil.
func finiteAll(xs []float64) []float64 {
	if xs == nil {
		return nil
	}
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = Finite(x)
	}
	return out
}

// Bar of the issue for a measured added time, as fractions: a 95 %
// half-width within BarAddedFrac of the added time, or within
// BarBaselineFrac of the baseline run when the added time is smaller
// than that allows (CommandAB.MeetsBar).
const (
	BarAddedFrac    = 0.20
	BarBaselineFrac = 0.003
)
