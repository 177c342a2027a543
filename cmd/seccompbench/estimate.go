package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/analysis"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/runner"
	"github.com/seccompbench/seccompbench/stats"
)

func init() {
	extraCommands = append(extraCommands, func(f *Factory) *cobra.Command { return NewCmdEstimate(f, nil) })
}

// EstimateOptions are the flags and arguments of `seccompbench estimate`.
type EstimateOptions struct {
	IO      *IOStreams
	Context context.Context

	Policies []string
	// Compiler lays out OCI profiles and systemd filters (--compiler).
	Compiler     scmp.Compiler
	Profile      string
	Filters      int    // stack depth, cycling the policies; 0 = one each
	Cache        string // on or defeat
	Calibrations []string
	CalTrials    int
	Duration     time.Duration // wall time of the profiled run, 0 if unknown
	Top          int
	Format       string
	Confidence   float64
	Seed         uint64
	CPU          int
	Validate     bool
	Trials       int // validation trials
	Quiet        bool

	// Measure runs the calibration and validation children
	// (runner.Run unless a test replaces it).
	Measure func(context.Context, runner.Config) ([]runner.Sample, error)
}

// NewCmdEstimate builds `seccompbench estimate`. runF, if not nil, replaces
// estimateRun (tests use it to check flag parsing).
func NewCmdEstimate(f *Factory, runF func(*EstimateOptions) error) *cobra.Command {
	opts := &EstimateOptions{IO: f.IO, Measure: runner.Run}
	var calTrials int
	cmd := &cobra.Command{
		Use:   "estimate POLICY... --profile FILE",
		Short: "Predict what a policy costs a real workload, from its syscall profile",
		Long: `Predict the time a seccomp stack adds to a real workload, from the workload's
syscall profile and a cost model calibrated on this machine.

The profile is the summary table of strace -c or strace -f -c (tables for
the 32-bit and x32 personalities count for those ABIs), or a CSV of
syscall,count[,seconds] lines. Every syscall is evaluated through the stack
(the policies in order, the first installed first; --filters N cycles them)
with all arguments 0: verdict, whether the kernel's action cache serves it,
and the BPF instructions the filters execute.

The cost model, in ns per syscall:
  cached syscall:                          cached
  uncached, n filters, E instructions:     entry + per_filter·n + per_insn·E
Without --calibration, a quick calibration measures it here: an allow-all
linear-chain filter at 0, 1, N/2 and N filters (N: the estimated stack's
depth, at least 2) with getppid, gettid and getpid at 4, 128 and 253
instructions per filter. With the cache defeated this separates the
per-filter from the per-instruction cost; as installed (every syscall
cached) it gives the cached cost. --calibration FILE uses the "defeat" and
"on" fits of a run --format json result instead; repeat it with runs at
different instruction counts (e.g. run --syscall getppid and --syscall
getpid on testdata/policies/positions.yaml) to separate the two; with one
file, the whole per-filter cost is charged per instruction.

Intervals propagate the calibration's confidence intervals (delta method);
they do not include model error: --validate measures the profile's syscalls
that runner can loop on safely under the real stack and prints the
prediction error. --duration gives the profiled run's wall time, for the
added time per second of work. See docs/estimate.md.`,
		Example: `  strace -f -c -o git.strace git status
  seccompbench estimate default --profile git.strace --duration 12ms
  seccompbench estimate default --filters 8 --cache defeat --profile git.strace
  seccompbench estimate testdata/policies/positions.yaml --filters 8 --cache defeat --profile docs/validation-profile.csv --validate`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Context = cmd.Context()
			opts.Policies = args
			if opts.Profile == "" {
				return flagErrorf("--profile FILE is required")
			}
			switch opts.Cache {
			case "on", "defeat":
			default:
				return flagErrorf("--cache: %q is not on or defeat", opts.Cache)
			}
			switch opts.Format {
			case "table", "json":
			default:
				return flagErrorf("--format: %q is not table or json", opts.Format)
			}
			if err := stats.CheckConfidence(opts.Confidence); err != nil {
				return &FlagError{Err: fmt.Errorf("--confidence: %w", err)}
			}
			if opts.Filters < 0 {
				return flagErrorf("--filters: negative count %d", opts.Filters)
			}
			if opts.Duration < 0 {
				return flagErrorf("--duration: negative %s", opts.Duration)
			}
			opts.CalTrials = calTrials
			if opts.CalTrials < 2 || opts.Trials < 2 {
				return flagErrorf("--calibration-trials and --trials: need at least 2 for a confidence interval")
			}
			if runF != nil {
				return runF(opts)
			}
			return estimateRun(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Profile, "profile", "", "syscall profile `FILE`: strace -c / strace -f -c output, or syscall,count[,seconds] CSV")
	fl.IntVar(&opts.Filters, "filters", 0, "stack depth, cycling the policies (0: one filter per policy)")
	addCompilerFlag(fl, &opts.Compiler)
	fl.StringVar(&opts.Cache, "cache", "on", "evaluate the filters as installed (on) or with the action cache defeated (defeat: pre-5.11 kernels, argument rules)")
	fl.StringArrayVar(&opts.Calibrations, "calibration", nil, "a run --format json result `FILE` with a defeat fit (repeatable); default: a quick calibration now")
	fl.IntVar(&calTrials, "calibration-trials", 8, "randomized blocks per workload of the quick calibration")
	fl.DurationVar(&opts.Duration, "duration", 0, "wall time of the profiled run (e.g. 12ms), for the added time per second of work")
	fl.IntVar(&opts.Top, "top", 15, "syscall rows in the table, most added time first (0: all)")
	fl.StringVar(&opts.Format, "format", "table", "output format: table or json")
	fl.Float64Var(&opts.Confidence, "confidence", 0.95, "confidence level of every interval, a fraction in (0,1)")
	fl.Uint64Var(&opts.Seed, "seed", 1, "seed of the block shuffles")
	fl.IntVar(&opts.CPU, "cpu", -1, "CPU to pin measuring threads to (-1: the highest allowed CPU; -2: no pinning)")
	fl.BoolVar(&opts.Validate, "validate", false, "also measure each profiled syscall that runner can loop on under the stack, and report the prediction error")
	fl.IntVar(&opts.Trials, "trials", 10, "randomized blocks per syscall for --validate")
	fl.BoolVarP(&opts.Quiet, "quiet", "q", false, "no progress on stderr")
	return cmd
}

// estModelJSON is the cost model of an estimate. Times in ns.
type estModelJSON struct {
	Source           string       `json:"source"`
	EntryNs          float64      `json:"entry_ns"`
	EntryCILowNs     *float64     `json:"entry_ci_low_ns"`
	EntryCIHighNs    *float64     `json:"entry_ci_high_ns"`
	PerFilterNs      float64      `json:"per_filter_ns"`
	PerFilterCILowNs *float64     `json:"per_filter_ci_low_ns"`
	PerFilterCIHigh  *float64     `json:"per_filter_ci_high_ns"`
	PerInsnNs        float64      `json:"per_insn_ns"`
	PerInsnCILowNs   *float64     `json:"per_insn_ci_low_ns"`
	PerInsnCIHighNs  *float64     `json:"per_insn_ci_high_ns"`
	Corr             float64      `json:"per_filter_per_insn_corr"`
	CachedNs         float64      `json:"cached_ns"`
	CachedCILowNs    *float64     `json:"cached_ci_low_ns"`
	CachedCIHighNs   *float64     `json:"cached_ci_high_ns"`
	Confidence       float64      `json:"confidence"`
	Points           []estPointJS `json:"points"`
}

type estPointJS struct {
	Source         string  `json:"source"`
	InsnsPerFilter float64 `json:"insns_per_filter"`
	EntryNs        float64 `json:"entry_ns"`
	PerFilterNs    float64 `json:"per_filter_ns"`
	PerFilterLowNs float64 `json:"per_filter_ci_low_ns"`
	PerFilterHiNs  float64 `json:"per_filter_ci_high_ns"`
}

// estSyscallJSON is one profiled syscall of an estimate.
type estSyscallJSON struct {
	Name         string   `json:"name"`
	Arch         string   `json:"arch"`
	Nr           int      `json:"nr"`
	Known        bool     `json:"known"`
	Calls        int64    `json:"calls"`
	Errors       int64    `json:"errors"`
	Seconds      *float64 `json:"seconds"`
	Action       string   `json:"action,omitempty"`
	Cached       bool     `json:"cached"`
	CacheReason  string   `json:"cache_reason,omitempty"`
	Filters      int      `json:"filters"`
	Instructions int      `json:"instructions"`
	AddedNs      *float64 `json:"added_ns_per_call"`
	AddedLowNs   *float64 `json:"added_ci_low_ns"`
	AddedHighNs  *float64 `json:"added_ci_high_ns"`
	TotalNs      *float64 `json:"added_ns_total"`
	TotalLowNs   *float64 `json:"total_ci_low_ns"`
	TotalHighNs  *float64 `json:"total_ci_high_ns"`
	// Share is this syscall's fraction of the total added time.
	Share *float64 `json:"share"`
}

type estTotalJSON struct {
	AddedNs     float64  `json:"added_ns"`
	CILowNs     *float64 `json:"ci_low_ns"`
	CIHighNs    *float64 `json:"ci_high_ns"`
	PerCallNs   float64  `json:"per_call_ns"`
	Calls       int64    `json:"calls"`
	CachedCalls int64    `json:"cached_calls"`
	// UnknownCalls are calls of syscalls not in the ABI's table: not
	// estimated.
	UnknownCalls int64 `json:"unknown_calls"`
	// PctOfSyscallTime is the added time as a percentage of the profile's
	// time in syscalls (when the profile has times).
	PctOfSyscallTime   *float64 `json:"pct_of_syscall_time"`
	PctOfSyscallTimeLo *float64 `json:"pct_of_syscall_time_ci_low"`
	PctOfSyscallTimeHi *float64 `json:"pct_of_syscall_time_ci_high"`
	// NsPerSecond is the added time per second of the profiled run's wall
	// time (with --duration), in ns per s.
	NsPerSecond     *float64 `json:"ns_per_second"`
	NsPerSecondLow  *float64 `json:"ns_per_second_ci_low"`
	NsPerSecondHigh *float64 `json:"ns_per_second_ci_high"`
}

type estValidationRow struct {
	Name           string   `json:"name"`
	Calls          int64    `json:"calls"`
	Workload       string   `json:"workload"`
	PredictedNs    float64  `json:"predicted_ns"`
	PredictedLowNs *float64 `json:"predicted_ci_low_ns"`
	PredictedHiNs  *float64 `json:"predicted_ci_high_ns"`
	MeasuredNs     float64  `json:"measured_ns"`
	MeasuredLowNs  *float64 `json:"measured_ci_low_ns"`
	MeasuredHiNs   *float64 `json:"measured_ci_high_ns"`
	BaselineNs     float64  `json:"baseline_ns"`
	ErrorNs        float64  `json:"error_ns"`
	ErrorPct       *float64 `json:"error_pct"`
}

type estValidationJSON struct {
	Rows []estValidationRow `json:"syscalls"`
	// Skipped are profiled syscalls runner cannot loop on safely.
	Skipped []string `json:"skipped"`
	// Totals weight each validated syscall by its profile calls, in ns.
	PredictedTotalNs float64  `json:"predicted_total_ns"`
	PredictedLowNs   *float64 `json:"predicted_total_ci_low_ns"`
	PredictedHighNs  *float64 `json:"predicted_total_ci_high_ns"`
	MeasuredTotalNs  float64  `json:"measured_total_ns"`
	MeasuredLowNs    *float64 `json:"measured_total_ci_low_ns"`
	MeasuredHighNs   *float64 `json:"measured_total_ci_high_ns"`
	ErrorPct         *float64 `json:"total_error_pct"`
	// MeanAbsErrorPct is the mean over syscalls of |error %|.
	MeanAbsErrorPct *float64 `json:"mean_abs_error_pct"`
	Trials          int      `json:"trials"`
}

// estimateJSON is the result of `seccompbench estimate --format json`.
type estimateJSON struct {
	Profile struct {
		Source   string   `json:"source"`
		Format   string   `json:"format"`
		Calls    int64    `json:"calls"`
		Syscalls int      `json:"syscalls"`
		Seconds  *float64 `json:"seconds"`
		Duration *float64 `json:"duration_s"`
	} `json:"profile"`
	Stack      []simStackJSON     `json:"stack"`
	Cache      string             `json:"cache"`
	Model      estModelJSON       `json:"model"`
	Syscalls   []estSyscallJSON   `json:"syscalls"`
	Total      estTotalJSON       `json:"total"`
	Validation *estValidationJSON `json:"validation,omitempty"`
	Warnings   []string           `json:"warnings"`
}

// num returns &x, or nil for NaN and ±Inf (JSON has no NaN).
func num(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

func estimateRun(opts *EstimateOptions) error {
	ctx := opts.Context
	if ctx == nil {
		ctx = context.Background()
	}
	base, _, err := openPolicies(opts.Policies, formats.OpenOptions{Compiler: opts.Compiler})
	if err != nil {
		return err
	}
	printWarnings(opts.IO.ErrOut, base)
	n := opts.Filters
	if n == 0 {
		n = len(base)
	}
	variant := runner.Variant(opts.Cache)
	stack, err := runner.StackFor(base, runner.Cell{Variant: variant, Filters: n})
	if err != nil {
		return fmt.Errorf("build stack: %w", err)
	}
	data, err := os.ReadFile(opts.Profile)
	if err != nil {
		return fmt.Errorf("read profile: %w", err)
	}
	prof, err := analysis.ParseProfile(opts.Profile, data)
	if err != nil {
		return err
	}
	out := &estimateJSON{Cache: opts.Cache, Warnings: append([]string{}, prof.Warnings...)}
	evals, err := analysis.EvaluateProfile(stack, prof)
	if err != nil {
		return err
	}
	var model stats.CostModel
	var points []estPointJS
	var source string
	var mwarn []string
	if len(opts.Calibrations) > 0 {
		model, points, source, mwarn, err = calibrationFromFiles(opts, n)
	} else {
		model, points, source, mwarn, err = quickCalibration(ctx, opts, n)
	}
	if err != nil {
		return err
	}
	out.Warnings = append(out.Warnings, mwarn...)
	fillEstimate(out, opts, prof, stack, evals, model, points, source)
	if opts.Validate {
		v, err := validateEstimate(ctx, opts, base, variant, n, evals, out.Syscalls, model)
		if err != nil {
			return err
		}
		out.Validation = v
	}
	if opts.Format == "json" {
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	for _, w := range out.Warnings {
		fmt.Fprintf(opts.IO.ErrOut, "warning: %s\n", w)
	}
	writeEstimateText(opts.IO.Out, out, opts)
	return nil
}

// estimateItems turns evaluated profile entries into cost items; unknown
// entries get no calls.
func estimateItems(evals []analysis.ProfileCost, n int) []stats.CostItem {
	items := make([]stats.CostItem, len(evals))
	for i, e := range evals {
		if !e.Known {
			continue
		}
		items[i] = stats.CostItem{Calls: float64(e.Calls), Cached: e.Cost.Cached, Filters: float64(n), Instructions: float64(e.Cost.Executed)}
	}
	return items
}

// fillEstimate predicts every entry and the total and fills out.
func fillEstimate(out *estimateJSON, opts *EstimateOptions, prof *analysis.Profile, stack filters.Stack, evals []analysis.ProfileCost, model stats.CostModel, points []estPointJS, source string) {
	n := len(stack)
	out.Profile.Source, out.Profile.Format, out.Profile.Calls, out.Profile.Syscalls = prof.Source, prof.Format, prof.TotalCalls, len(prof.Entries)
	out.Profile.Seconds = num(prof.TotalSeconds)
	if opts.Duration > 0 {
		out.Profile.Duration = num(opts.Duration.Seconds())
	}
	for i, p := range stack {
		out.Stack = append(out.Stack, simStackJSON{Index: i, Name: p.Name, Instructions: p.Len(), SHA256: p.SHA256()})
	}
	out.Model = estModelJSON{Source: source,
		EntryNs: model.Entry.Center, EntryCILowNs: num(model.Entry.Lo), EntryCIHighNs: num(model.Entry.Hi),
		PerFilterNs: model.PerFilter.Center, PerFilterCILowNs: num(model.PerFilter.Lo), PerFilterCIHigh: num(model.PerFilter.Hi),
		PerInsnNs: model.PerInsn.Center, PerInsnCILowNs: num(model.PerInsn.Lo), PerInsnCIHighNs: num(model.PerInsn.Hi),
		Corr: model.Corr, CachedNs: model.Cached.Center, CachedCILowNs: num(model.Cached.Lo), CachedCIHighNs: num(model.Cached.Hi),
		Confidence: model.Confidence, Points: points}
	per, total := model.Predict(estimateItems(evals, n))
	for i, e := range evals {
		s := estSyscallJSON{Name: e.Name, Arch: e.Arch, Nr: e.Nr, Known: e.Known, Calls: e.Calls, Errors: e.Errors, Seconds: num(e.Seconds)}
		if e.Known {
			s.Action, s.Cached, s.Filters, s.Instructions = e.Cost.Action.String(), e.Cost.Cached, n, e.Cost.Executed
			if !e.Cost.Cached {
				s.CacheReason = e.Cost.CacheReason
			}
			p := per[i]
			s.AddedNs, s.AddedLowNs, s.AddedHighNs = num(p.PerCall.Center), num(p.PerCall.Lo), num(p.PerCall.Hi)
			s.TotalNs, s.TotalLowNs, s.TotalHighNs = num(p.Total.Center), num(p.Total.Lo), num(p.Total.Hi)
			if total.Center != 0 {
				s.Share = num(p.Total.Center / total.Center)
			}
			out.Total.Calls += e.Calls
			if e.Cost.Cached {
				out.Total.CachedCalls += e.Calls
			}
		} else {
			out.Total.UnknownCalls += e.Calls
		}
		out.Syscalls = append(out.Syscalls, s)
	}
	out.Total.AddedNs, out.Total.CILowNs, out.Total.CIHighNs = total.Center, num(total.Lo), num(total.Hi)
	if out.Total.Calls > 0 {
		out.Total.PerCallNs = total.Center / float64(out.Total.Calls)
	}
	if prof.HasSeconds && prof.TotalSeconds > 0 {
		k := 100 / (prof.TotalSeconds * 1e9)
		out.Total.PctOfSyscallTime, out.Total.PctOfSyscallTimeLo, out.Total.PctOfSyscallTimeHi = num(total.Center*k), num(total.Lo*k), num(total.Hi*k)
	}
	if opts.Duration > 0 {
		k := 1 / opts.Duration.Seconds()
		out.Total.NsPerSecond, out.Total.NsPerSecondLow, out.Total.NsPerSecondHigh = num(total.Center*k), num(total.Lo*k), num(total.Hi*k)
	}
	var denied []string
	var deniedCalls int64
	for _, e := range evals {
		if e.Known && e.Cost.Action != filters.ActionAllow {
			denied = append(denied, fmt.Sprintf("%s (%s)", e.Name, e.Cost.Action))
			deniedCalls += e.Calls
		}
	}
	if len(denied) > 0 {
		out.Warnings = append(out.Warnings, fmt.Sprintf("%d profiled calls get a verdict other than ALLOW from the stack (with arguments 0): %s; under this stack the workload would not run as profiled, and their added time counts filter evaluation only, not the syscall work the verdict saves",
			deniedCalls, summarizeNames(denied)))
	}
	if out.Total.UnknownCalls > 0 {
		out.Warnings = append(out.Warnings, fmt.Sprintf("%d calls of syscalls unknown to the ABI tables are not estimated", out.Total.UnknownCalls))
	}
}

// calibrationFromFiles reads run results and fits the model from their
// "defeat" fits; the first file with an all-cached "on" variant gives the
// cached cost at the stack depth n.
func calibrationFromFiles(opts *EstimateOptions, n int) (stats.CostModel, []estPointJS, string, []string, error) {
	var pts []stats.CalibrationPoint
	var js []estPointJS
	var warnings []string
	var cached stats.Estimate
	haveCached := false
	env := runner.CaptureEnvironment()
	for _, path := range opts.Calibrations {
		f, err := os.Open(path)
		if err != nil {
			return stats.CostModel{}, nil, "", nil, fmt.Errorf("read calibration: %w", err)
		}
		doc, err := report.ReadJSON(f)
		f.Close()
		if err != nil {
			return stats.CostModel{}, nil, "", nil, fmt.Errorf("read calibration %s: %w", path, err)
		}
		pt, c, ok, err := pointFromDoc(doc, n)
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
		js = append(js, estPointJS{Source: path + " (" + doc.Config.Workload + ")", InsnsPerFilter: pt.InsnsPerFilter, EntryNs: pt.Entry.Center,
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
func pointFromDoc(doc *report.Document, n int) (pt stats.CalibrationPoint, cached stats.Estimate, haveCached bool, err error) {
	var def, on *report.Fit
	for i := range doc.Fits {
		switch doc.Fits[i].Variant {
		case "defeat":
			def = &doc.Fits[i]
		case "on":
			on = &doc.Fits[i]
		}
	}
	if def == nil {
		return pt, cached, false, errors.New("no \"defeat\" fit: calibrate with run --cache defeat (or both) at two or more filter counts above 0 and at 0")
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
		cached = cachedAt(stats.Estimate{Center: on.EntryNs, Lo: on.EntryCILowNs, Hi: on.EntryCIHighNs},
			stats.Estimate{Center: on.PerFilterNs, Lo: on.PerFilterCILowNs, Hi: on.PerFilterCIHighNs}, n)
	}
	return pt, cached, allCachedOn, nil
}

// cachedAt evaluates an "on" fit of an all-cached workload at n filters:
// entry + n·per_filter, half-widths combined as independent.
func cachedAt(entry, perFilter stats.Estimate, n int) stats.Estimate {
	c := entry.Center + float64(n)*perFilter.Center
	he, hp := (entry.Hi-entry.Lo)/2, (perFilter.Hi-perFilter.Lo)/2*float64(n)
	hw := math.Sqrt(he*he + hp*hp)
	return stats.Estimate{Center: c, Lo: c - hw, Hi: c + hw}
}

// calibrationWorkloads are the quick calibration's syscalls and their
// positions in CalibrationFilter's chain (0: unmarked, the chain's end).
var calibrationWorkloads = []analysis.CalibrationMark{{Name: "getppid", Pos: 1}, {Name: "gettid", Pos: 125}, {Name: "getpid", Pos: 0}}

// quickCalibration measures the cost model on this machine: for each
// calibration workload, runs of CalibrationFilter at calibrationCounts(n)
// with the cache defeated (a calibration point) and as installed (every
// syscall cached: the cached cost at depth n, averaged over the workloads).
func quickCalibration(ctx context.Context, opts *EstimateOptions, n int) (stats.CostModel, []estPointJS, string, []string, error) {
	var marks []analysis.CalibrationMark
	for _, m := range calibrationWorkloads {
		if m.Pos > 0 {
			marks = append(marks, m)
		}
	}
	prog, err := analysis.CalibrationFilter(filters.ArchX86_64, analysis.MaxCalibrationChain, marks...)
	if err != nil {
		return stats.CostModel{}, nil, "", nil, err
	}
	counts := calibrationCounts(n)
	var pts []stats.CalibrationPoint
	var js []estPointJS
	var cached stats.Estimate
	start := time.Now()
	var cachedEsts []stats.Estimate
	for _, m := range calibrationWorkloads {
		w, err := runner.SyscallWorkload(m.Name)
		if err != nil {
			return stats.CostModel{}, nil, "", nil, err
		}
		variants := []runner.Variant{runner.VariantDefeat, runner.VariantOn}
		if !opts.Quiet {
			fmt.Fprintf(opts.IO.ErrOut, "calibrating: %s, %d trials ...\n", m.Name, opts.CalTrials)
		}
		res, err := measureFits(ctx, opts, []*filters.Program{prog}, counts, variants, w, opts.CalTrials, false)
		if err != nil {
			return stats.CostModel{}, nil, "", nil, fmt.Errorf("quick calibration: %w", err)
		}
		fit, ok := res.Fit(string(runner.VariantDefeat))
		if !ok {
			return stats.CostModel{}, nil, "", nil, fmt.Errorf("quick calibration: no defeat fit for %s: %s", m.Name, strings.Join(res.Warnings, "; "))
		}
		nr, _ := filters.ArchX86_64.Lookup(m.Name)
		c, err := analysis.AnalyzeSyscall(filters.Stack{prog.DefeatCache()}, filters.ArchX86_64, nr)
		if err != nil {
			return stats.CostModel{}, nil, "", nil, err
		}
		pt := stats.CalibrationPoint{
			Entry:          stats.Estimate{Center: fit.Entry, Lo: fit.EntryLo, Hi: fit.EntryHi},
			PerFilter:      stats.Estimate{Center: fit.PerFilter, Lo: fit.PerFilterLo, Hi: fit.PerFilterHi},
			InsnsPerFilter: float64(c.Executed),
		}
		pts = append(pts, pt)
		js = append(js, estPointJS{Source: "quick calibration: " + m.Name, InsnsPerFilter: pt.InsnsPerFilter, EntryNs: fit.Entry,
			PerFilterNs: fit.PerFilter, PerFilterLowNs: fit.PerFilterLo, PerFilterHiNs: fit.PerFilterHi})
		if onFit, ok := res.Fit(string(runner.VariantOn)); ok {
			cachedEsts = append(cachedEsts, cachedAt(stats.Estimate{Center: onFit.Entry, Lo: onFit.EntryLo, Hi: onFit.EntryHi},
				stats.Estimate{Center: onFit.PerFilter, Lo: onFit.PerFilterLo, Hi: onFit.PerFilterHi}, n))
		}
	}
	cached = inverseVarianceMean(cachedEsts)
	m, w, err := stats.FitCostModel(pts, cached, opts.Confidence)
	if err != nil {
		return m, nil, "", nil, err
	}
	src := fmt.Sprintf("quick calibration on this machine in %s (allow-all linear chain, cache defeated, filters %v, %d trials per workload)",
		time.Since(start).Round(100*time.Millisecond), counts, opts.CalTrials)
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

// inverseVarianceMean combines estimates of one quantity, weighting each by
// 1/half-width²; without usable intervals it returns their plain mean with
// NaN bounds, and all zero for none.
func inverseVarianceMean(es []stats.Estimate) stats.Estimate {
	if len(es) == 0 {
		return stats.Estimate{}
	}
	var sw, swx, sum float64
	ok := true
	for _, e := range es {
		hw := (e.Hi - e.Lo) / 2
		sum += e.Center
		if !(hw > 0) {
			ok = false
			continue
		}
		sw += 1 / (hw * hw)
		swx += e.Center / (hw * hw)
	}
	if !ok {
		c := sum / float64(len(es))
		return stats.Estimate{Center: c, Lo: math.NaN(), Hi: math.NaN()}
	}
	c, hw := swx/sw, 1/math.Sqrt(sw)
	return stats.Estimate{Center: c, Lo: c - hw, Hi: c + hw}
}

// measureFits runs cfg's cells and analyzes them; robust selects medians
// with bootstrap intervals for the cells and their overheads (the fits are
// least squares either way).
func measureFits(ctx context.Context, opts *EstimateOptions, progs []*filters.Program, counts []int, variants []runner.Variant, w runner.Workload, trials int, robust bool) (stats.Result, error) {
	cpu := opts.CPU
	if cpu == -1 {
		cpu = runner.HighestCPU()
	}
	if cpu < 0 {
		cpu = -2
	}
	cfg := runner.Config{Programs: progs, Counts: counts, Variants: variants, Workload: w, Trials: trials, Seed: opts.Seed, CPU: cpu, Samples: 5}
	samples, err := opts.Measure(ctx, cfg)
	if err != nil {
		return stats.Result{}, err
	}
	var vnames []string
	for _, v := range variants {
		vnames = append(vnames, string(v))
	}
	obs := make([]stats.Observation, len(samples))
	for i, s := range samples {
		obs[i] = stats.Observation{Variant: string(s.Variant), Filters: s.Filters, Block: s.Block, Seq: s.Seq, NsPerOp: s.NsPerOp}
	}
	return stats.Analyze(obs, stats.Options{Confidence: opts.Confidence, Seed: opts.Seed, Variants: vnames, Robust: robust})
}

// validateEstimate measures, for every profiled x86_64 syscall on runner's
// safe list, the time the real stack adds (children at 0 and n filters; the
// difference of the medians over children, with a bootstrap interval, so
// that a child disturbed by other load on the machine does not decide it)
// and compares it with the prediction.
func validateEstimate(ctx context.Context, opts *EstimateOptions, base []*filters.Program, variant runner.Variant, n int, evals []analysis.ProfileCost, rows []estSyscallJSON, model stats.CostModel) (*estValidationJSON, error) {
	v := &estValidationJSON{Trials: opts.Trials, Skipped: []string{}}
	var items []stats.CostItem
	var measTot, measVar, absErr float64
	for i, e := range evals {
		if !e.Known || e.Arch != filters.ArchX86_64.Name {
			continue
		}
		w, err := runner.SyscallWorkload(e.Name)
		if err != nil {
			v.Skipped = append(v.Skipped, e.Name)
			continue
		}
		if !opts.Quiet {
			fmt.Fprintf(opts.IO.ErrOut, "validating: %s under %d filters, %d trials ...\n", e.Name, n, opts.Trials)
		}
		res, err := measureFits(ctx, opts, base, []int{0, n}, []runner.Variant{variant}, w, opts.Trials, true)
		if err != nil {
			return nil, fmt.Errorf("validate %s: %w", e.Name, err)
		}
		var cell *stats.CellResult
		var baseline float64
		for k := range res.Cells {
			switch res.Cells[k].Filters {
			case n:
				cell = &res.Cells[k]
			case 0:
				baseline = res.Cells[k].Summary.Center
			}
		}
		if cell == nil {
			return nil, fmt.Errorf("validate %s: no cell at %d filters", e.Name, n)
		}
		d := cell.Overhead
		r := rows[i]
		row := estValidationRow{Name: e.Name, Calls: e.Calls, Workload: w.Op,
			PredictedNs: *r.AddedNs, PredictedLowNs: r.AddedLowNs, PredictedHiNs: r.AddedHighNs,
			MeasuredNs: d.Delta, MeasuredLowNs: num(d.Lo), MeasuredHiNs: num(d.Hi), BaselineNs: baseline}
		row.ErrorNs = row.PredictedNs - row.MeasuredNs
		if math.Abs(d.Delta) > 0 {
			row.ErrorPct = num(100 * row.ErrorNs / d.Delta)
			if row.ErrorPct != nil {
				absErr += math.Abs(*row.ErrorPct)
			}
		}
		v.Rows = append(v.Rows, row)
		items = append(items, estimateItems([]analysis.ProfileCost{e}, n)...)
		c := float64(e.Calls)
		measTot += c * d.Delta
		hw := (d.Hi - d.Lo) / 2
		measVar += c * c * hw * hw
	}
	if len(v.Rows) == 0 {
		return v, nil
	}
	_, pt := model.Predict(items)
	v.PredictedTotalNs, v.PredictedLowNs, v.PredictedHighNs = pt.Center, num(pt.Lo), num(pt.Hi)
	hw := math.Sqrt(measVar)
	v.MeasuredTotalNs, v.MeasuredLowNs, v.MeasuredHighNs = measTot, num(measTot-hw), num(measTot+hw)
	if measTot != 0 {
		v.ErrorPct = num(100 * (pt.Center - measTot) / measTot)
	}
	v.MeanAbsErrorPct = num(absErr / float64(len(v.Rows)))
	return v, nil
}

// fmtNs formats a time in ns with a unit that keeps 3-4 significant digits.
func fmtNs(ns float64) string { return nsFormatter(ns)(ns) }

// nsFormatter returns a formatter that writes times in ns in ref's unit
// (s, ms, µs or ns) with the decimals that give ref 3 (s, ns) or 4 (ms, µs)
// significant digits, so that a value and its CI bounds share unit and
// decimals: "26.05 ms [24.60 ms, 27.49 ms]".
func nsFormatter(ref float64) func(float64) string {
	scale, unit, sig := 1.0, "ns", 3
	switch a := math.Abs(ref); {
	case a >= 1e9:
		scale, unit = 1e9, "s"
	case a >= 1e6:
		scale, unit, sig = 1e6, "ms", 4
	case a >= 1e3:
		scale, unit, sig = 1e3, "µs", 4
	}
	dec := decimalsFor(ref/scale, sig)
	return func(ns float64) string { return fixed(ns/scale, dec) + " " + unit }
}

// pctFormatter is nsFormatter for percentages: 3 significant digits of
// ref, the same decimals for every value ("0.806% [0.776%, 0.836%]").
func pctFormatter(ref float64) func(float64) string {
	dec := decimalsFor(ref, 3)
	return func(p float64) string { return fixed(p, dec) + "%" }
}

// decimalsFor returns the number of decimals that shows x with sig
// significant digits (0 for 0, NaN, ±Inf or large x).
func decimalsFor(x float64, sig int) int {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return max(sig-1-int(math.Floor(math.Log10(math.Abs(x)))), 0)
}

// fixed formats x with dec decimals; a negative x that rounds to zero
// prints as 0, not -0.
func fixed(x float64, dec int) string {
	s := strconv.FormatFloat(x, 'f', dec, 64)
	if s[0] == '-' && strings.Trim(s[1:], "0.") == "" {
		return s[1:]
	}
	return s
}

// plural writes "1 filter" or "n filters".
func plural[T int | int64](n T, one string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.FormatInt(int64(n), 10) + " " + one + "s"
}

func fmtCI(lo, hi *float64, f func(float64) string) string {
	if lo == nil || hi == nil {
		return "[no CI]"
	}
	return "[" + f(*lo) + ", " + f(*hi) + "]"
}

func fmtEst(c float64, lo, hi *float64, f func(float64) string) string {
	return f(c) + " " + fmtCI(lo, hi, f)
}

func writeEstimateText(w io.Writer, e *estimateJSON, opts *EstimateOptions) {
	pct := fmt.Sprintf("%.0f%%", e.Model.Confidence*100)
	p := e.Profile
	fmt.Fprintf(w, "profile   %s (%s): %s of %s", p.Source, p.Format, plural(p.Calls, "call"), plural(p.Syscalls, "syscall"))
	if p.Seconds != nil {
		fmt.Fprintf(w, ", %s in syscalls", fmtNs(*p.Seconds*1e9))
	}
	if p.Duration != nil {
		fmt.Fprintf(w, ", %s wall time (--duration)", fmtNs(*p.Duration*1e9))
	}
	fmt.Fprintln(w)
	var names []string
	for _, s := range e.Stack {
		names = append(names, s.Name)
	}
	cacheText := "as installed (action cache on)"
	if e.Cache == "defeat" {
		cacheText = "action cache defeated (every filter runs on every syscall)"
	}
	fmt.Fprintf(w, "stack     %s (%s), %s\n", plural(len(e.Stack), "filter"), summarizeNames(names), cacheText)
	m := e.Model
	fmt.Fprintf(w, "model     %s\n", m.Source)
	fmt.Fprintf(w, "          per uncached syscall: entry %s + per filter %s × filters + per instruction %s × instructions\n",
		fmtEst(m.EntryNs, m.EntryCILowNs, m.EntryCIHighNs, nsShort), fmtEst(m.PerFilterNs, m.PerFilterCILowNs, m.PerFilterCIHigh, nsShort),
		fmtEst(m.PerInsnNs, m.PerInsnCILowNs, m.PerInsnCIHighNs, nsFine))
	fmt.Fprintf(w, "          per cached syscall: %s   (%s CIs; ns)\n", fmtEst(m.CachedNs, m.CachedCILowNs, m.CachedCIHighNs, nsShort), pct)
	fmt.Fprintln(w)

	rows := append([]estSyscallJSON(nil), e.Syscalls...)
	sort.SliceStable(rows, func(i, j int) bool { return val(rows[i].TotalNs) > val(rows[j].TotalNs) })
	shown := rows
	if opts.Top > 0 && len(shown) > opts.Top {
		shown = shown[:opts.Top]
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "SYSCALL\tCALLS\tVERDICT\tCACHED\tINSNS\tADDED ns/CALL\t%s CI\tTOTAL\t%s CI\tSHARE\t\n", pct, pct)
	for _, s := range shown {
		if !s.Known {
			fmt.Fprintf(tw, "%s\t%d\tunknown\t-\t-\t-\t\t-\t\t\t\n", s.Name, s.Calls)
			continue
		}
		name := s.Name
		if s.Arch != filters.ArchX86_64.Name {
			name += " (" + s.Arch + ")"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t\n", name, s.Calls, s.Action, yesNo(s.Cached), s.Instructions,
			nsShort(val(s.AddedNs)), fmtCI(s.AddedLowNs, s.AddedHighNs, nsShort), fmtNs(val(s.TotalNs)),
			fmtCI(s.TotalLowNs, s.TotalHighNs, nsFormatter(val(s.TotalNs))), fmtPct(s.Share))
	}
	tw.Flush()
	if len(shown) < len(rows) {
		fmt.Fprintf(w, "(%d more syscalls; --top 0 shows all)\n", len(rows)-len(shown))
	}
	fmt.Fprintln(w)
	t := e.Total
	fmt.Fprintf(w, "total     +%s over %s (%s ns per call on average; %d calls cached)\n",
		fmtEst(t.AddedNs, t.CILowNs, t.CIHighNs, nsFormatter(t.AddedNs)), plural(t.Calls, "call"), nsShort(t.PerCallNs), t.CachedCalls)
	if t.PctOfSyscallTime != nil {
		fmt.Fprintf(w, "          = %s of the %s the profile spent in syscalls\n",
			fmtEst(*t.PctOfSyscallTime, t.PctOfSyscallTimeLo, t.PctOfSyscallTimeHi, pctFormatter(*t.PctOfSyscallTime)), fmtNs(*p.Seconds*1e9))
	}
	if t.NsPerSecond != nil {
		fmt.Fprintf(w, "          = %s per second of run time (%s of the %s run)\n",
			fmtEst(*t.NsPerSecond, t.NsPerSecondLow, t.NsPerSecondHigh, nsFormatter(*t.NsPerSecond)), pctFormatter(*t.NsPerSecond/1e7)(*t.NsPerSecond/1e7), fmtNs(*p.Duration*1e9))
	} else {
		fmt.Fprintln(w, "          (give --duration, the profiled run's wall time, for the cost per second of work)")
	}
	fmt.Fprintf(w, "dominant  %s\n", dominant(rows))
	fmt.Fprintln(w, "          (intervals: calibration uncertainty only; args 0 for every verdict and path; see --validate for model error)")
	if v := e.Validation; v != nil {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "validation: each syscall timed in a loop under the stack (children without filters and with %s, %s; medians), added ns per call\n", plural(len(e.Stack), "filter"), plural(v.Trials, "trial"))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "SYSCALL\tCALLS\tBASELINE ns\tPREDICTED\t%s CI\tMEASURED\t%s CI\tERROR\t\n", pct, pct)
		for _, r := range v.Rows {
			fmt.Fprintf(tw, "%s\t%d\t%.1f\t%s\t%s\t%s\t%s\t%s\t\n", r.Name, r.Calls, r.BaselineNs, nsShort(r.PredictedNs), fmtCI(r.PredictedLowNs, r.PredictedHiNs, nsShort),
				nsShort(r.MeasuredNs), fmtCI(r.MeasuredLowNs, r.MeasuredHiNs, nsShort), fmtSignedPct(r.ErrorPct))
		}
		tw.Flush()
		if len(v.Rows) > 0 {
			fmt.Fprintf(w, "profile-weighted total of these syscalls: predicted %s, measured %s: error %s; mean |error| per syscall %s\n",
				fmtEst(v.PredictedTotalNs, v.PredictedLowNs, v.PredictedHighNs, nsFormatter(v.PredictedTotalNs)),
				fmtEst(v.MeasuredTotalNs, v.MeasuredLowNs, v.MeasuredHighNs, nsFormatter(v.MeasuredTotalNs)),
				fmtSignedPct(v.ErrorPct), fmtUnsignedPct(v.MeanAbsErrorPct))
		}
		if len(v.Skipped) > 0 {
			fmt.Fprintf(w, "not validated (not on runner's safe list): %s\n", strings.Join(v.Skipped, ", "))
		}
	}
}

func nsShort(x float64) string { return fixed(x, 1) }
func nsFine(x float64) string  { return fixed(x, 3) }

func val(p *float64) float64 {
	if p == nil {
		return math.Inf(-1)
	}
	return *p
}

func fmtPct(share *float64) string {
	if share == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", *share*100)
}

func fmtSignedPct(p *float64) string {
	if p == nil {
		return "-"
	}
	s := fixed(*p, 1)
	if s[0] != '-' {
		s = "+" + s
	}
	return s + "%"
}

// fmtUnsignedPct formats a percentage that has no sign of its own, such as
// a mean absolute error: "7.1%", not "+7.1%".
func fmtUnsignedPct(p *float64) string {
	if p == nil {
		return "-"
	}
	return fixed(*p, 1) + "%"
}

// summarizeNames lists names, collapsing runs of one name: "a ×3, b".
func summarizeNames(names []string) string {
	var parts []string
	for i := 0; i < len(names); {
		j := i
		for j < len(names) && names[j] == names[i] {
			j++
		}
		if j-i > 1 {
			parts = append(parts, fmt.Sprintf("%s ×%d", names[i], j-i))
		} else {
			parts = append(parts, names[i])
		}
		i = j
	}
	if len(parts) > 6 {
		parts = append(parts[:6], "…")
	}
	return strings.Join(parts, ", ")
}

// dominant names the syscalls that make up most of the added time (up to
// 80% of it, at most 4), with their share and cache state.
func dominant(sorted []estSyscallJSON) string {
	var parts []string
	cum := 0.0
	for _, s := range sorted {
		if s.Share == nil || *s.Share <= 0 || len(parts) == 4 || cum >= 0.8 {
			break
		}
		state := "cached"
		if !s.Cached {
			state = fmt.Sprintf("not cached, %d insns", s.Instructions)
		}
		parts = append(parts, fmt.Sprintf("%s %.0f%% (%s)", s.Name, *s.Share*100, state))
		cum += *s.Share
	}
	if len(parts) == 0 {
		return "none: nothing adds time"
	}
	return strings.Join(parts, ", ")
}
