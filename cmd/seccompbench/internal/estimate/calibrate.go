package estimate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/interrupt"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/runjob"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/analysis"
	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/runner"
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/runner/workload"
	"github.com/seccompbench/seccompbench/stats"
)

// calibrationFromFiles reads run results and fits the model from their
// "defeat" fits; the first file with an all-cached "on" variant gives the
// cached cost at the stack depth n.
func calibrationFromFiles(opts *Options, n int) (stats.CostModel, []document.EstimatePoint, string, []string, error) {
	var pts []stats.CalibrationPoint
	var js []document.EstimatePoint
	var warnings []string
	var cached stats.Estimate
	haveCached := false
	env := runner.CaptureEnvironment()
	for _, path := range opts.Calibrations {
		doc, err := cmdutil.ReadDocument(path, "calibration")
		if err != nil {
			return stats.CostModel{}, nil, "", nil, err
		}
		pt, c, ok, err := pointFromDoc(doc, n, opts.loader())
		if err != nil {
			return stats.CostModel{}, nil, "", nil, fmt.Errorf("calibration %s: %w", path, err)
		}
		if doc.Config.Confidence != opts.Confidence {
			warnings = append(warnings, fmt.Sprintf("calibration %s has %.0f%% intervals, the estimate uses %.0f%%; its intervals are used as they are", path, doc.Config.Confidence*100, opts.Confidence*100))
		}
		if doc.Environment.Kernel != env.Kernel || doc.Environment.CPUModel != env.CPUModel {
			warnings = append(warnings, fmt.Sprintf("calibration %s was measured on kernel %s, %s; this machine is kernel %s, %s", path, doc.Environment.Kernel, doc.Environment.CPUModel, env.Kernel, env.CPUModel))
		}
		if maxN := slices.Max(append([]int{0}, doc.Config.FilterCounts...)); maxN > 0 && (n > 2*maxN || 4*n < maxN) {
			warnings = append(warnings, fmt.Sprintf("calibration %s was measured up to %d filters, the estimate is for %d: the per-filter and per-instruction costs depend on depth (instruction cache), so calibrate near %d filters", path, maxN, n, n))
		}
		if doc.Partial {
			warnings = append(warnings, fmt.Sprintf("calibration %s is a partial (interrupted) run", path))
		}
		for _, ctl := range doc.Control {
			if ctl.SlowdownPctLow > 0 {
				warnings = append(warnings, fmt.Sprintf("calibration %s: installing filters slowed a CPU-bound loop by %.1f%% (%s variant; a mitigation such as speculative store bypass); that slowdown of all code is not in this estimate", path, ctl.SlowdownPct, ctl.Variant))
			}
		}
		pts = append(pts, pt)
		js = append(js, document.EstimatePoint{Source: path + " (" + doc.Config.Workload + ")", InsnsPerFilter: pt.InsnsPerFilter, EntryNs: pt.Entry.Center,
			PerFilterNs: pt.PerFilter.Center, PerFilterLowNs: pt.PerFilter.Lo, PerFilterHiNs: pt.PerFilter.Hi})
		if ok && !haveCached {
			cached, haveCached = c, true
		}
	}
	if !haveCached {
		warnings = append(warnings, "no calibration measured the cached path (an \"on\" fit whose workload syscalls are all cached): cached syscalls are taken as free")
	}
	m, w, err := stats.FitCostModel(pts, cached, opts.Confidence)
	if err != nil {
		return m, nil, "", nil, err
	}
	return m, js, "calibration files " + strings.Join(opts.Calibrations, ", "), append(warnings, w...), nil
}

// pointFromDoc extracts a calibration point from a run result: the defeat
// fit, and the instructions per filter of the workload's syscalls in the
// deepest defeat stack (the document's cache section). cached is the on
// fit's entry + n·per_filter when every workload syscall was cached with
// the cache on.
//
// A result measured with --loader both has one fit per loader: those of
// loader are used (a result from before --loader has fits without one).
func pointFromDoc(doc *document.Document, n int, loader result.Loader) (pt stats.CalibrationPoint, cached stats.Estimate, haveCached bool, err error) {
	var def, on *document.Fit
	for i := range doc.Fits {
		if l := doc.Fits[i].Loader; l != "" && l != string(loader) {
			continue
		}
		switch doc.Fits[i].Variant {
		case "defeat":
			def = &doc.Fits[i]
		case "on":
			on = &doc.Fits[i]
		}
	}
	if def == nil {
		return pt, cached, false, fmt.Errorf("no \"defeat\" fit of the %s loader: calibrate with run --cache defeat (or both) --loader %s (or both) at two or more filter counts above 0 and at 0", loader, loader)
	}
	maxN := 0
	for _, c := range doc.Config.FilterCounts {
		maxN = max(maxN, c)
	}
	var ins []int
	allCachedOn := on != nil
	for _, cv := range doc.Cache {
		for _, s := range cv.Syscalls {
			switch cv.Variant {
			case "defeat":
				ins = append(ins, s.Instructions)
			case "on":
				allCachedOn = allCachedOn && s.Cached
			}
		}
	}
	if len(ins) == 0 || maxN == 0 {
		return pt, cached, false, errors.New("no instruction counts for the defeat variant's workload syscalls (cache section)")
	}
	sum := 0
	for _, x := range ins {
		sum += x
	}
	pt = stats.CalibrationPoint{
		Entry:          stats.Estimate{Center: def.EntryNs, Lo: def.EntryCILowNs, Hi: def.EntryCIHighNs},
		PerFilter:      stats.Estimate{Center: def.PerFilterNs, Lo: def.PerFilterCILowNs, Hi: def.PerFilterCIHighNs},
		InsnsPerFilter: float64(sum) / float64(len(ins)) / float64(maxN),
	}
	if allCachedOn {
		cached = stats.AtDepth(stats.Estimate{Center: on.EntryNs, Lo: on.EntryCILowNs, Hi: on.EntryCIHighNs},
			stats.Estimate{Center: on.PerFilterNs, Lo: on.PerFilterCILowNs, Hi: on.PerFilterCIHighNs}, n)
	}
	return pt, cached, allCachedOn, nil
}

// calibrationWorkloads are the quick calibration's syscalls and their
// positions in CalibrationFilter's chain (0: unmarked, the chain's end).
var calibrationWorkloads = []analysis.CalibrationMark{{Name: "getppid", Pos: 1}, {Name: "gettid", Pos: 125}, {Name: "getpid", Pos: 0}}

// coldCalibrationPositions are the positions of openat in
// CalibrationFilter's chain for the cold quick calibration (0: unmarked,
// the chain's end): the same 4, 128 and 253 instructions per filter as the
// warm one's getppid, gettid and getpid.
var coldCalibrationPositions = []int{1, 125, 0}

// calibrationRun is one workload of the quick calibration: a syscall loop
// under its own CalibrationFilter.
type calibrationRun struct {
	name string // the syscall looped on
	prog *filters.Program
}

// calibrationRuns returns the quick calibration's workloads. Warm (the
// default) loops on getppid, gettid and getpid, which do almost nothing in
// the kernel, under one filter marking them at 1 and 125 (getpid
// unmarked): the filters' JIT code and the branch predictor stay hot from
// one syscall to the next. Cold loops on openat of a missing path, under
// three filters that mark it at 1, 125 and nowhere: the path walk between
// two filter runs evicts part of the instruction cache and retrains the
// branch predictor, as a real program's syscalls do (docs/estimate-command.md,
// "Whole programs").
func calibrationRuns(cold bool) ([]calibrationRun, error) {
	if !cold {
		var marks []analysis.CalibrationMark
		for _, m := range calibrationWorkloads {
			if m.Pos > 0 {
				marks = append(marks, m)
			}
		}
		prog, err := analysis.CalibrationFilter(cmdutil.NativeArch(), analysis.MaxCalibrationChain, marks...)
		if err != nil {
			return nil, err
		}
		var out []calibrationRun
		for _, m := range calibrationWorkloads {
			out = append(out, calibrationRun{name: m.Name, prog: prog})
		}
		return out, nil
	}
	var out []calibrationRun
	for _, pos := range coldCalibrationPositions {
		var marks []analysis.CalibrationMark
		if pos > 0 {
			marks = append(marks, analysis.CalibrationMark{Name: "openat", Pos: pos})
		}
		prog, err := analysis.CalibrationFilter(cmdutil.NativeArch(), analysis.MaxCalibrationChain, marks...)
		if err != nil {
			return nil, err
		}
		out = append(out, calibrationRun{name: "openat", prog: prog})
	}
	return out, nil
}

// quickCalibration measures the cost model on this machine: for each
// calibration workload, runs of CalibrationFilter at calibrationCounts(n)
// with the cache defeated (a calibration point) and as installed (every
// syscall cached: the cached cost at depth n, averaged over the workloads).
func quickCalibration(ctx context.Context, opts *Options, n int) (stats.CostModel, []document.EstimatePoint, string, []string, error) {
	runs, err := calibrationRuns(opts.ColdCalibration)
	if err != nil {
		return stats.CostModel{}, nil, "", nil, err
	}
	counts := calibrationCounts(n)
	var pts []stats.CalibrationPoint
	var js []document.EstimatePoint
	var cached stats.Estimate
	start := time.Now()
	var cachedEsts []stats.Estimate
	for _, m := range runs {
		prog := m.prog
		s, err := workload.Syscall(m.name)
		w := runner.Workload{Spec: s}
		if err != nil {
			return stats.CostModel{}, nil, "", nil, err
		}
		variants := []result.Variant{result.VariantDefeat, result.VariantOn}
		opts.progressf("calibrating: %s, %d trials ...\n", m.name, opts.CalTrials)
		res, err := measureFits(ctx, opts, []*filters.Program{prog}, counts, variants, w, opts.CalTrials, false, runner.Placement{})
		if err != nil {
			return stats.CostModel{}, nil, "", nil, fmt.Errorf("quick calibration: %w", err)
		}
		fit, ok := res.Fit(string(result.VariantDefeat))
		if !ok {
			return stats.CostModel{}, nil, "", nil, fmt.Errorf("quick calibration: no defeat fit for %s: %s", m.name, strings.Join(res.Warnings, "; "))
		}
		nr, _ := cmdutil.NativeArch().Lookup(m.name)
		c, err := analysis.AnalyzeSyscall(filters.Stack{prog.DefeatCache()}, cmdutil.NativeArch(), nr)
		if err != nil {
			return stats.CostModel{}, nil, "", nil, err
		}
		pt := stats.CalibrationPoint{
			Entry:          stats.Estimate{Center: fit.Entry, Lo: fit.EntryLo, Hi: fit.EntryHi},
			PerFilter:      stats.Estimate{Center: fit.PerFilter, Lo: fit.PerFilterLo, Hi: fit.PerFilterHi},
			InsnsPerFilter: float64(c.Executed),
		}
		pts = append(pts, pt)
		js = append(js, document.EstimatePoint{Source: "quick calibration: " + m.name, InsnsPerFilter: pt.InsnsPerFilter, EntryNs: fit.Entry,
			PerFilterNs: fit.PerFilter, PerFilterLowNs: fit.PerFilterLo, PerFilterHiNs: fit.PerFilterHi})
		if onFit, ok := res.Fit(string(result.VariantOn)); ok {
			cachedEsts = append(cachedEsts, stats.AtDepth(stats.Estimate{Center: onFit.Entry, Lo: onFit.EntryLo, Hi: onFit.EntryHi},
				stats.Estimate{Center: onFit.PerFilter, Lo: onFit.PerFilterLo, Hi: onFit.PerFilterHi}, n))
		}
	}
	cached = stats.InverseVarianceMean(cachedEsts)
	m, w, err := stats.FitCostModel(pts, cached, opts.Confidence)
	if err != nil {
		return m, nil, "", nil, err
	}
	kind := "warm: getppid, gettid, getpid"
	if opts.ColdCalibration {
		kind = "cold: openat of a missing path"
	}
	src := fmt.Sprintf("quick calibration on this machine in %s (%s; allow-all linear chain, cache defeated, filters %v, %d trials per workload)",
		time.Since(start).Round(100*time.Millisecond), kind, counts, opts.CalTrials)
	return m, js, src, w, nil
}

// calibrationCounts returns the quick calibration's filter counts for an
// estimate at stack depth n: 0, 1, n/2 and n (at least 0, 1, 2), so the
// per-filter cost is measured where the estimate applies it. Deep stacks
// cost more per instruction than shallow ones on this machine (more JIT
// code per syscall than the instruction cache holds; docs/estimate.md), so
// a calibration at other depths would be biased. n is capped at the
// deepest stack of CalibrationFilter that fits MAX_INSNS_PER_PATH.
func calibrationCounts(n int) []int {
	limit := filters.MaxInsnsPerPath / (analysis.MaxCalibrationChain + 3 + 1 + filters.PathPenalty)
	n = min(max(n, 2), limit)
	c := []int{0, 1, (n + 1) / 2, n}
	slices.Sort(c)
	return slices.Compact(c)
}

// measureFits runs cfg's cells and analyzes them; robust selects medians
// with bootstrap intervals for the cells and their overheads (the fits are
// least squares either way).
//
// placement is the children's pads: the zero value (none) for the
// calibration chain, whose deepest stack must stay within the path limit;
// runner.DefaultPlacement for the estimated stack's own filters.
func measureFits(ctx context.Context, opts *Options, progs []*filters.Program, counts []int, variants []result.Variant, w runner.Workload, trials int, robust bool, placement runner.Placement) (stats.Result, error) {
	// One loader, as the estimated stack is loaded.
	cfg := runner.Config{Programs: progs, Counts: counts, Variants: variants, Workload: w, Trials: trials, Seed: opts.Seed, CPU: opts.runCPU(), Samples: 5,
		Loaders: []result.Loader{opts.loader()}, Placement: placement, OnCPUWait: opts.cpuWait}
	release := interrupt.Hold() // children run: a signal cancels ctx, the runner cleans up
	samples, err := opts.Measure(ctx, cfg)
	release()
	if err != nil {
		return stats.Result{}, err
	}
	return stats.Analyze(runjob.Observations(samples), stats.Options{Confidence: opts.Confidence, Seed: opts.Seed, Variants: runjob.VariantNames(variants), Robust: robust})
}

// runCPU is --cpu as runner.Config.CPU takes it, for every run the
// estimate measures (calibration, validation, --command's children):
// -1 stays -1 (the runner locks the highest allowed CPU that no other
// run measures on; the duet design a second one beside it), a CPU >= 0
// is that CPU, anything below -1 is -2 (no pinning).
func (opts *Options) runCPU() int {
	if opts.CPU < -1 {
		return -2
	}
	return opts.CPU
}

// loader is the loader the estimate models (--loader; default
// unprivileged).
func (o *Options) loader() result.Loader {
	if o.Loader == "" {
		return result.LoaderUnprivileged
	}
	return o.Loader
}

// stackCalibrationTrials is how many times --calibration-trials blocks
// the stack calibration measures.
const stackCalibrationTrials = 3

// stackLoopSyscalls are the loop syscalls stackCalibration tries, in
// order: openat of a missing path first for a cold calibration, getppid
// first for a warm one.
func stackLoopSyscalls(cold bool) []string {
	if cold {
		return []string{"openat", "getppid", "gettid", "getpid"}
	}
	return []string{"getppid", "gettid", "getpid", "openat"}
}

// stackCalibration re-anchors the chain model m on the estimated stack's
// own filters. The calibration chain (CalibrationFilter) is a few hundred
// instructions laid out one way; a real policy's filters are other sizes
// and shapes, and on this project's measurements (docs/estimate-command.md, "Whole
// programs") docker-default's filters cost 20–30 % more per filter than
// the chain at the same number of executed instructions, with the JIT
// images' placement moving that further (kernel/bpf/core.c:
// bpf_jit_binary_pack_alloc). So the stack itself is measured: base cycled
// to calibrationCounts(n), cache defeated, placement sampled as run
// samples it, on the first loop syscall of stackLoopSyscalls whose
// verdict under the stack lets the loop run (ALLOW or ERRNO). Its fit
// gives the entry cost E and the per-filter cost a at x instructions per
// filter; the returned model keeps m's per-instruction slope k (which
// separates syscalls with longer or shorter paths) and sets
//
//	Entry = E,  PerFilter = a − k·x
//
// so that a syscall executing x_s instructions per filter costs
// E + N·(a + k·(x_s − x)). The intervals combine a's and k's (independent
// measurements); Corr is that of PerFilter and PerInsn. ok is false, with
// m unchanged, when no loop syscall can run under the stack.
func stackCalibration(ctx context.Context, opts *Options, base []*filters.Program, n int, m stats.CostModel) (out stats.CostModel, pt document.EstimatePoint, desc string, ok bool, err error) {
	arch := cmdutil.NativeArch()
	stack, err := runner.StackFor(base, result.Cell{Variant: result.VariantDefeat, Filters: n})
	if err != nil {
		return m, pt, "", false, fmt.Errorf("stack calibration: %w", err)
	}
	var name string
	var x float64
	for _, s := range stackLoopSyscalls(opts.ColdCalibration) {
		nr, found := arch.Lookup(s)
		if !found {
			continue
		}
		c, aerr := analysis.AnalyzeSyscall(stack, arch, nr)
		if aerr != nil {
			return m, pt, "", false, fmt.Errorf("stack calibration: %w", aerr)
		}
		if c.Action == filters.ActionAllow || c.Action == filters.ActionErrno {
			name, x = s, float64(c.Executed)/float64(max(len(stack), 1))
			break
		}
	}
	if name == "" {
		return m, pt, "", false, nil
	}
	s, err := workload.Syscall(name)
	w := runner.Workload{Spec: s}
	if err != nil {
		return m, pt, "", false, err
	}
	counts := calibrationCounts(n)
	deep, err := runner.StackFor(base, result.Cell{Variant: result.VariantDefeat, Filters: slices.Max(counts)})
	if err != nil {
		return m, pt, "", false, fmt.Errorf("stack calibration: %w", err)
	}
	if depth, short := analysis.InstallableDepth(deep, arch); short {
		// A strict profile that denies seccomp(2) stacks only so deep:
		// the fit needs two depths above 0.
		if depth < 2 {
			return m, pt, fmt.Sprintf("the policy denies seccomp(2), so it cannot be stacked %d deep for the stack calibration (at most %d filter): the model is the calibration chain's alone", slices.Max(counts), depth), false, nil
		}
		counts = slices.DeleteFunc(counts, func(c int) bool { return c > depth })
	}
	// Three times the chain's blocks: sampled placement spreads this fit
	// over 17 program sizes, and it alone sets the per-filter cost.
	trials := stackCalibrationTrials * opts.CalTrials
	opts.progressf("calibrating: %s under the estimated stack, %d trials ...\n", name, trials)
	res, err := measureFits(ctx, opts, base, counts, []result.Variant{result.VariantDefeat}, w, trials, false, runner.DefaultPlacement())
	if err != nil {
		return m, pt, "", false, fmt.Errorf("stack calibration: %w", err)
	}
	fit, found := res.Fit(string(result.VariantDefeat))
	if !found {
		return m, pt, "", false, fmt.Errorf("stack calibration: no defeat fit for %s: %s", name, strings.Join(res.Warnings, "; "))
	}
	out = stats.ReanchorCostModel(m,
		stats.Estimate{Center: fit.Entry, Lo: fit.EntryLo, Hi: fit.EntryHi},
		stats.Estimate{Center: fit.PerFilter, Lo: fit.PerFilterLo, Hi: fit.PerFilterHi}, x)
	pt = document.EstimatePoint{Source: "stack calibration: " + name + " under the estimated stack", InsnsPerFilter: x, EntryNs: fit.Entry,
		PerFilterNs: fit.PerFilter, PerFilterLowNs: fit.PerFilterLo, PerFilterHiNs: fit.PerFilterHi}
	desc = fmt.Sprintf("re-anchored on the stack's own filters: %s, cache defeated, placement sampled, filters %v, %d trials: %.1f ns per filter at %.1f instructions",
		name, counts, trials, fit.PerFilter, x)
	return out, pt, desc, true, nil
}
