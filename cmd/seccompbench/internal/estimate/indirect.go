package estimate

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/interrupt"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/analysis"
	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/runner"
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/runner/workload"
	"github.com/seccompbench/seccompbench/stats"
)

// ProbeSizes are the indirect-cost probe's working sets, in KiB: 0 (a
// bare syscall loop: the direct cost), then sizes whose time between
// syscalls spans what real programs show (on this project's AMD EPYC VM
// about 1.5, 5, 35 and 250 µs per iteration; find, tar, git status, go
// vet and python3 -c pass run 2.6 to 72 µs between syscalls). Larger
// sets resolve nothing: the indirect cost is a few hundred ns, the noise
// of a millisecond iteration more.
var ProbeSizes = []int{0, 8, 32, 128, 512}

// probeSyscalls are the probe's candidate syscalls, in order: the first
// whose verdict under the stack lets the loop run is used.
var probeSyscalls = []string{"getppid", "gettid", "getpid"}

// probeSamples are the timed samples of every probe child.
const probeSamples = 5

// probeIterations is the probe's loop iterations per sample at kib KiB,
// about 2 ms per sample on this project's machines (taking about 1 µs per
// iteration at 0 KiB and 400 ns more per KiB of data and code), at least
// 10.
func probeIterations(kib int) uint64 {
	return uint64(max(10, 2_000_000/(1000+400*kib)))
}

// indirectCal is the indirect-cost calibration under one stack: the
// curve for uncached calls (cache defeated) and, when the probe's syscall
// is cached as installed, for cached calls, and what the report shows of
// it.
type indirectCal struct {
	uncached, cached stats.IndirectCurve
	haveCached       bool
	info             document.EstimateIndirect
}

// calibrateIndirect runs the indirect-cost probe under base cycled to n
// filters: for each of ProbeSizes, the probe workload (workload.Probe: the
// working set in data, and in code on amd64, then the probe syscall) in
// children at 0 and n filters, cache defeated and, when the syscall is
// cached as installed and the estimate is not for a defeated cache, as
// installed too, opts.CalTrials blocks, placement
// sampled, every child timing its own baseline before it installs the
// stack (the paired samples). The added time per iteration of a size is
// the difference between the n-filter and the 0-filter children's
// (after − before) medians; the time between syscalls is the children's
// median before-install time per iteration. It returns nil, with no
// error, when no probe syscall runs under the stack.
func calibrateIndirect(ctx context.Context, opts *Options, base []*filters.Program, n int) (*indirectCal, error) {
	start := time.Now()
	name, cachedOn, err := probeSyscall(base, n)
	if err != nil || name == "" {
		return nil, err
	}
	// The as-installed curve serves the cached calls, which a defeated
	// estimate has none of.
	cachedOn = cachedOn && opts.Cache != string(result.VariantDefeat)
	variants := []result.Variant{result.VariantDefeat}
	if cachedOn {
		variants = append(variants, result.VariantOn)
	}
	code := runtime.GOARCH == "amd64"
	gaps := make(map[result.Variant][]float64)
	added := make(map[result.Variant][]stats.Estimate)
	for _, kib := range ProbeSizes {
		w, err := workload.Probe(name, kib, code)
		if err != nil {
			return nil, fmt.Errorf("indirect probe: %w", err)
		}
		opts.progressf("calibrating: indirect probe, %s() after %d KiB, %d trials ...\n", name, kib, opts.CalTrials)
		cfg := runner.Config{Programs: base, Counts: []int{0, n}, Variants: variants, Workload: runner.Workload{Spec: w},
			Trials: opts.CalTrials, Seed: opts.Seed, CPU: opts.runCPU(), Samples: probeSamples, Iterations: probeIterations(kib),
			ChildTimeout: time.Minute, Loaders: []result.Loader{opts.loader()}, Placement: runner.DefaultPlacement(), OnCPUWait: opts.cpuWait}
		release := interrupt.Hold()
		samples, err := opts.Measure(ctx, cfg)
		release()
		if err != nil {
			return nil, fmt.Errorf("indirect probe at %d KiB: %w", kib, err)
		}
		for _, v := range variants {
			g, a := probeAdded(samples, v, n, opts.Confidence, opts.Seed)
			gaps[v], added[v] = append(gaps[v], g), append(added[v], a)
		}
	}
	cal := &indirectCal{info: document.EstimateIndirect{Syscall: name, Code: code, Trials: opts.CalTrials, CachedMeasured: cachedOn}}
	if cal.uncached, cal.info.Uncached, err = probeCurve(gaps[result.VariantDefeat], added[result.VariantDefeat]); err != nil {
		return nil, fmt.Errorf("indirect probe, cache defeated: %w", err)
	}
	if cachedOn {
		if cal.cached, cal.info.Cached, err = probeCurve(gaps[result.VariantOn], added[result.VariantOn]); err != nil {
			return nil, fmt.Errorf("indirect probe, as installed: %w", err)
		}
		cal.haveCached = true
	}
	cal.info.Seconds = time.Since(start).Seconds()
	return cal, nil
}

// probeSyscall is the first of probeSyscalls whose verdict under base
// cycled to n filters (cache defeated) is ALLOW or ERRNO, and whether the
// action cache serves it as installed; "" when none runs.
func probeSyscall(base []*filters.Program, n int) (name string, cachedOn bool, err error) {
	arch := cmdutil.NativeArch()
	def, err := runner.StackFor(base, result.Cell{Variant: result.VariantDefeat, Filters: n})
	if err != nil {
		return "", false, fmt.Errorf("indirect probe: %w", err)
	}
	on, err := runner.StackFor(base, result.Cell{Variant: result.VariantOn, Filters: n})
	if err != nil {
		return "", false, fmt.Errorf("indirect probe: %w", err)
	}
	for _, s := range probeSyscalls {
		nr, ok := arch.Lookup(s)
		if !ok {
			continue
		}
		c, err := analysis.AnalyzeSyscall(def, arch, nr)
		if err != nil {
			return "", false, fmt.Errorf("indirect probe: %w", err)
		}
		if c.Action != filters.ActionAllow && c.Action != filters.ActionErrno {
			continue
		}
		o, err := analysis.AnalyzeSyscall(on, arch, nr)
		if err != nil {
			return "", false, fmt.Errorf("indirect probe: %w", err)
		}
		return s, o.Cached, nil
	}
	return "", false, nil
}

// probeAdded is one probe size's time between syscalls (the median
// before-install time per iteration of variant's children) and added time
// per iteration (the n-filter children's after − before medians minus the
// 0-filter children's, a bootstrap difference of medians).
func probeAdded(samples []result.Sample, v result.Variant, n int, confidence float64, seed uint64) (gap float64, added stats.Estimate) {
	var before, d0, dn []float64
	for _, s := range samples {
		if s.Variant != v {
			continue
		}
		before = append(before, s.BaselineNsPerOp)
		switch s.Filters {
		case 0:
			d0 = append(d0, s.NsPerOp-s.BaselineNsPerOp)
		case n:
			dn = append(dn, s.NsPerOp-s.BaselineNsPerOp)
		}
	}
	return stats.Median(before), stats.DiffEstimate(stats.RobustDiff(d0, dn, confidence, seed))
}

// probeCurve turns one variant's probe sizes into the curve and its
// report points.
func probeCurve(gaps []float64, added []stats.Estimate) (stats.IndirectCurve, []document.EstimateProbePoint, error) {
	pts, err := stats.IndirectPoints(ProbeSizes, gaps, added)
	if err != nil {
		return stats.IndirectCurve{}, nil, err
	}
	var out []document.EstimateProbePoint
	for _, p := range pts {
		out = append(out, document.EstimateProbePoint{KiB: p.KiB, GapNs: p.GapNs, AddedNs: p.Added.Center, AddedLowNs: p.Added.Lo, AddedHighNs: p.Added.Hi,
			IndirectNs: p.Indirect.Center, IndirectLow: p.Indirect.Lo, IndirectHi: p.Indirect.Hi, Ratio: p.Ratio.Center, RatioLow: p.Ratio.Lo, RatioHigh: p.Ratio.Hi})
	}
	c, err := stats.NewIndirectCurve(pts)
	return c, out, err
}

// directParts are the per-syscall model's predictions for the profile's
// uncached and cached calls separately, ns per run of the profile.
type directParts struct {
	uncached, cached stats.Estimate
}

// splitDirect predicts the uncached and the cached calls of evals under n
// filters with model, each over its own calls.
func splitDirect(model stats.CostModel, evals []analysis.ProfileCost, n int) directParts {
	items := estimateItems(evals, n)
	var u, c []stats.CostItem
	for _, it := range items {
		if it.Calls == 0 {
			continue
		}
		if it.Cached {
			c = append(c, it)
		} else {
			u = append(u, it)
		}
	}
	var d directParts
	if len(u) > 0 {
		_, d.uncached = model.Predict(u)
	}
	if len(c) > 0 {
		_, d.cached = model.Predict(c)
	}
	return d
}

// indirectRangeText names an IndirectRange for the report.
func indirectRangeText(r stats.IndirectRange) string {
	switch r {
	case stats.IndirectBelow:
		return "below"
	case stats.IndirectAbove:
		return "above"
	}
	return "inside"
}

// predict is the indirect part of a program whose time between syscalls
// is gapNs: the uncached curve's ratio times the uncached calls' direct
// cost, plus, when measured, the cached curve's ratio times the cached
// calls' direct cost (unmeasured: none). It records the gap and ratios in
// cal.info.
func (cal *indirectCal) predict(d directParts, gapNs float64, source string) stats.Estimate {
	ru, where := cal.uncached.At(gapNs)
	total := stats.PredictIndirect(d.uncached, ru)
	cal.info.UncachedRatio = document.Nullable(ru.Center)
	if cal.haveCached && d.cached != (stats.Estimate{}) {
		rc, _ := cal.cached.At(gapNs)
		total = stats.SumEstimates(total, stats.PredictIndirect(d.cached, rc))
		cal.info.CachedRatio = document.Nullable(rc.Center)
	}
	cal.info.GapNs, cal.info.GapSource, cal.info.Range = document.Nullable(gapNs), source, indirectRangeText(where)
	return total
}

// applyIndirect adds the predicted indirect part to --command's
// comparison c: the prediction becomes syscalls + indirect + proc, the
// model error applied to the per-call part (syscalls + indirect, what
// ModelErrorRule measures), and the checks against the measured wall and
// CPU times are redone.
func applyIndirect(c *document.EstimateCommand, syscalls, indirect, proc, procCPU stats.Estimate, gapNs float64) {
	perCall := stats.SumEstimates(syscalls, indirect)
	predicted := stats.SumEstimates(perCall, proc)
	withModel := stats.WithModelError(perCall, ModelError)
	stated := stats.SumEstimates(withModel, proc)
	statedCPU := stats.SumEstimates(withModel, procCPU)
	meas := stats.Estimate{Center: c.MeasuredAddedNs, Lo: c.MeasuredCILowNs, Hi: c.MeasuredCIHighNs}
	cpu := stats.Estimate{Center: c.MeasuredCPUAddedNs, Lo: c.MeasuredCPUCILowNs, Hi: c.MeasuredCPUCIHighNs}
	chk, calOnly, cpuChk := stats.CheckPrediction(stated, meas), stats.CheckPrediction(predicted, meas), stats.CheckPrediction(statedCPU, cpu)
	c.IndirectAddedNs, c.IndirectCILowNs, c.IndirectCIHighNs, c.GapNs = indirect.Center, indirect.Lo, indirect.Hi, gapNs
	c.PredictedAddedNs, c.PredictedCILowNs, c.PredictedCIHighNs = stated.Center, stated.Lo, stated.Hi
	c.CalibrationCILowNs, c.CalibrationCIHighNs = predicted.Lo, predicted.Hi
	c.Ratio, c.ErrorPct, c.Covered, c.CoveredByCalibration, c.Overlap = chk.Ratio, chk.ErrorPct, chk.Covered, calOnly.Covered, chk.Overlap
	c.CPURatio, c.CPUErrorPct, c.CPUCovered = cpuChk.Ratio, cpuChk.ErrorPct, cpuChk.Covered
}

// part is a predicted EstimatePart of e on basis (a document.Part* code).
func part(e stats.Estimate, basis string) document.EstimatePart {
	return document.EstimatePart{Predicted: true, AddedNs: document.Nullable(e.Center), CILowNs: document.Nullable(e.Lo), CIHighNs: document.Nullable(e.Hi), Basis: basis}
}

// fillParts says in out.Parts which parts of the program's added time the
// estimate predicts before any command is measured: direct always (the
// total); per process only with --command (set by validateCommand);
// indirect when the probe ran (ind) and --duration gives the time between
// syscalls (for --command, validateCommand sets it from the baseline
// run).
func fillParts(out *document.Estimate, opts *Options, ind *indirectCal, d directParts) {
	t := out.Total
	out.Parts = &document.EstimateParts{}
	out.Parts.Direct = part(stats.Estimate{Center: t.AddedNs, Lo: deref(t.CILowNs), Hi: deref(t.CIHighNs)}, document.PartLoopModel)
	out.Parts.PerProcess = document.EstimatePart{Basis: document.PartNeedsCommand}
	if len(opts.Command) > 0 && !opts.ProcessTerm {
		out.Parts.PerProcess.Basis = document.PartProcessTermOff
	}
	out.Parts.Indirect = document.EstimatePart{Basis: document.PartNeedsGap}
	switch {
	case !opts.Indirect:
		out.Parts.Indirect.Basis = document.PartIndirectOff
	case len(opts.Calibrations) > 0:
		out.Parts.Indirect.Basis = document.PartCalibrationFiles
	case opts.Container != nil:
		out.Parts.Indirect.Basis = document.PartContainer
	case ind == nil && (opts.Duration > 0 || len(opts.Command) > 0):
		out.Parts.Indirect.Basis = document.PartNoProbeSyscall
	case ind != nil && len(opts.Command) == 0 && opts.Duration > 0 && out.Total.Calls > 0:
		gap := float64(opts.Duration.Nanoseconds()) / float64(out.Total.Calls)
		e := ind.predict(d, gap, "--duration")
		out.Parts.Indirect = part(e, document.PartProbeCurve)
	}
	if ind != nil {
		out.Indirect = &ind.info
	}
}
