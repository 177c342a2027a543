package estimate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/runner"
	"github.com/seccompbench/seccompbench/stats"
)

// ErrNoStrace is returned when --command needs a profile and strace is not
// installed.
var ErrNoStrace = errors.New("strace not found")

// profileCommand runs argv under `strace -f -c` (children followed, a
// count per syscall) with stdin /dev/null and output discarded, and
// returns the profile file; cleanup removes it.
func profileCommand(ctx context.Context, argv []string) (path string, cleanup func(), err error) {
	strace, err := exec.LookPath("strace")
	if err != nil {
		return "", nil, fmt.Errorf("profile %q: %w in PATH: install strace (apt-get install strace), or profile elsewhere and give --profile FILE", argv[0], ErrNoStrace)
	}
	dir, err := os.MkdirTemp("", "seccompbench-profile-")
	if err != nil {
		return "", nil, fmt.Errorf("profile the command: %w", err)
	}
	cleanup = func() { os.RemoveAll(dir) }
	path = filepath.Join(dir, "strace-fc.txt")
	cmd := exec.CommandContext(ctx, strace, append([]string{"-f", "-c", "-o", path, "--"}, argv...)...)
	if err := cmd.Run(); err != nil {
		cleanup()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", nil, fmt.Errorf("profile the command: strace -f -c %s: %v (the command must exit 0)", argv[0], ee)
		}
		return "", nil, fmt.Errorf("profile the command: %w", err)
	}
	return path, cleanup, nil
}

// measureCommand measures argv with the command workload at 0 and n
// filters of the estimated stack and variant (trials randomized blocks)
// and compares the added run time with predicted, the prediction's total
// for one run. The measured added time is the difference of the medians
// over children of each child's median run, from execve to reaping (so
// the install, which the profile does not see, is outside it), with a
// bootstrap interval.
func measureCommand(ctx context.Context, opts *Options, base []*filters.Program, variant runner.Variant, n int, predicted, stated stats.Estimate) (*report.EstimateCommand, error) {
	w, err := runner.CommandWorkload(runner.CommandSpec{Argv: opts.Command, Warmup: 1})
	if err != nil {
		return nil, err
	}
	// Placement sampled as run samples it: the prediction's stack
	// calibration averages over JIT placements, so the measurement must
	// too, or one placement's luck (±25 % per filter) decides the error.
	cfg := runner.Config{Programs: base, Counts: []int{0, n}, Variants: []runner.Variant{variant}, Workload: w,
		Trials: opts.Trials, Seed: opts.Seed, MaxTime: opts.MaxTime, Placement: runner.DefaultPlacement()}
	opts.progressf("measuring: %s under 0 and %d filters, %d trials ...\n", w.Op, n, opts.Trials)
	run := opts.MeasureCommand
	if run == nil {
		run = runner.RunAdaptive
	}
	samples, info, err := run(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("measure the command: %w", err)
	}
	var b, x, inst, bcpu, xcpu []float64
	for _, s := range samples {
		if s.Filters == 0 {
			b = append(b, s.NsPerOp)
			bcpu = append(bcpu, stats.Median(s.Command.CPUNs))
		} else {
			x = append(x, s.NsPerOp)
			xcpu = append(xcpu, stats.Median(s.Command.CPUNs))
			inst = append(inst, stats.Median(s.Command.InstallNs))
		}
	}
	d := stats.RobustDiff(b, x, opts.Confidence, opts.Seed)
	meas := stats.DiffEstimate(d)
	chk := stats.CheckPrediction(stated, meas)
	calOnly := stats.CheckPrediction(predicted, meas)
	is := stats.Robust(inst, opts.Confidence, opts.Seed)
	split := stats.SplitCost(stats.Estimate{Center: is.Center, Lo: is.Lo, Hi: is.Hi}, meas)
	cpu := stats.RobustDiff(bcpu, xcpu, opts.Confidence, opts.Seed)
	cpuChk := stats.CheckPrediction(stated, stats.DiffEstimate(cpu))
	return &report.EstimateCommand{Argv: opts.Command, Filters: n, Variant: string(variant), Trials: info.Blocks, RunsPerChild: info.Runs,
		BaselineRunNs:    stats.Median(b),
		PredictedAddedNs: stated.Center, PredictedCILowNs: stated.Lo, PredictedCIHighNs: stated.Hi,
		CalibrationCILowNs: predicted.Lo, CalibrationCIHighNs: predicted.Hi,
		MeasuredAddedNs: meas.Center, MeasuredCILowNs: meas.Lo, MeasuredCIHighNs: meas.Hi,
		MeasuredCPUAddedNs: cpu.Delta, MeasuredCPUCILowNs: cpu.Lo, MeasuredCPUCIHighNs: cpu.Hi,
		Ratio: chk.Ratio, ErrorPct: chk.ErrorPct, Covered: chk.Covered, CoveredByCalibration: calOnly.Covered,
		Overlap: chk.Overlap, CPURatio: cpuChk.Ratio, CPUErrorPct: cpuChk.ErrorPct, CPUCovered: cpuChk.Covered,
		InstallNs: is.Center, InstallShare: split.InstallShare, Dominant: split.Dominant}, nil
}

// ModelError is the relative model error of a prediction for a whole
// program, as a fraction of the predicted added time: the −22 % measured
// for find under docker-default ×16 with the cache defeated (warm
// calibration; the report that led to --command), rounded up. The
// five-program validation in docs/estimate.md ("Whole programs") was taken
// on a loaded machine and could not size it better; it is a floor, not a
// bound. Every estimate states its total with it (stats.WithModelError)
// beside the calibration-only interval.
const ModelError = 0.25
