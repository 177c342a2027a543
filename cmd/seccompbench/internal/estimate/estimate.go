// Package estimate predicts what a seccomp stack adds to a real workload:
// it evaluates every syscall of the workload's profile through the stack,
// calibrates a cost model on this machine (or reads one from run results)
// and, on request, validates the prediction by measuring. It is the
// pipeline of `seccompbench estimate`.
package estimate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/interrupt"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/analysis"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"github.com/seccompbench/seccompbench/filters/systemd"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/runner"
	"github.com/seccompbench/seccompbench/runner/command"
	"github.com/seccompbench/seccompbench/runner/container"
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/stats"
)

// Options say what to estimate and how to calibrate.
type Options struct {
	Policies []string
	// Compiler lays out OCI profiles and systemd filters (--compiler).
	Compiler scmp.Compiler
	// Open are the other load options (cmdutil.LoadFlags); its Compiler
	// is replaced by Compiler.
	Open formats.OpenOptions
	// Systemd is --systemd's directive text, whose modeled stack goes
	// first; "" for none.
	Systemd      string
	Profile      string
	Filters      int    // stack depth, cycling the policies; 0 = one each
	Cache        string // on or defeat
	Calibrations []string
	CalTrials    int
	// SystemdUnit, if set, is a unit file whose modeled filter stack
	// (systemd.ParseUnit) goes first, before Policies.
	SystemdUnit string
	// ColdCalibration makes the quick calibration loop on openat of a
	// missing path (kernel work between filter runs, as in real programs)
	// instead of getppid, gettid and getpid (calibrationRuns).
	ColdCalibration bool
	// StackCalibration re-anchors the quick calibration on the estimated
	// stack's own filters (stackCalibration); false keeps the chain alone.
	StackCalibration bool
	Duration         time.Duration // wall time of the profiled run, 0 if unknown
	Confidence       float64
	Seed             uint64
	CPU              int
	Validate         bool
	Trials           int // validation trials (and --command's blocks)

	// Command, if set (estimate --command -- CMD), is profiled with
	// strace -f -c when Profile is empty, and measured with the command
	// workload at the same stack and variant after the prediction.
	Command []string
	// Indirect runs the indirect-cost probe (calibrateIndirect) when the
	// program's time between syscalls is known (Duration or Command) and
	// adds the indirect part to the prediction.
	Indirect bool
	// ProcessTerm adds the per-process term (processTerm: what the stack
	// adds to a run of /bin/true) to the prediction --command compares.
	ProcessTerm bool
	// Container, if not nil (--bundle, --rootfs), measures the command
	// in containers the runtime starts instead of under the command
	// workload's wrapper (runner.ContainerWorkload).
	Container *container.Spec
	// MaxTime bounds the command's measurement (runner.Config.MaxTime).
	MaxTime time.Duration
	// Budget is --budget: the command is measured in rounds of paired
	// children until its added time per run is decided within or over
	// this budget, or MaxTime passes (runjob.BudgetDecision); nil for the
	// fixed --ab-time measurement.
	Budget *stats.Budget
	// DirectFrequency is the sampling rate per CPU, in Hz, of the direct
	// time measured during --command's runs (directSampler); 0 turns it
	// off.
	DirectFrequency int
	// OpenDirect opens the sampling (openLiveDirect unless a test
	// replaces it).
	OpenDirect DirectOpener
	// directClock is the direct sampler's CLOCK_MONOTONIC (monotonicNs
	// unless a test replaces it).
	directClock func() uint64
	// AB is the A/B design of the command's measurement and of the
	// per-process probe ("": DefaultAB); ABTime the measuring time to
	// spread over Trials blocks (0: the command workload's default child
	// of ~300 ms of runs per cell).
	AB     command.Design
	ABTime time.Duration
	// MeasureCommand runs the command's children (runner.RunAdaptive
	// unless a test replaces it).
	MeasureCommand func(context.Context, runner.Config) ([]result.Sample, result.RunInfo, error)
	// Loader is who loads the estimated stack (--loader): the quick
	// calibration and --validate measure with it, and a calibration
	// file's fits of that loader are used.
	Loader result.Loader

	// Progress receives "calibrating: ..." and "validating: ..." lines;
	// nil for none.
	Progress io.Writer
	// probe is set on processTerm's copy of the options: the command
	// being measured is ProcessProbe, for its share of --ab-time.
	probe bool
	// Measure runs the calibration and validation children
	// (runner.Run unless a test replaces it).
	Measure func(context.Context, runner.Config) ([]result.Sample, error)
}

// startCommand begins --command's phases: from here to the end strace,
// the probes and the command's children run and the profile is a
// temporary file, so the first signal only cancels ctx (every step kills
// and reaps its children, and done removes the profile before the exit
// with 128+N); without --profile it profiles the command with strace and
// points opts.Profile at the result until done. done is never nil and
// must be called, also after an error.
func (opts *Options) startCommand(ctx context.Context) (done func(), err error) {
	if len(opts.Command) == 0 {
		return func() {}, nil
	}
	release := interrupt.Hold()
	if opts.Profile != "" {
		return release, nil
	}
	opts.progressf("profiling: strace -f -c %s ...\n", strings.Join(opts.Command, " "))
	path, cleanup, err := profileCommand(ctx, opts.Command)
	if err != nil {
		return release, err
	}
	opts.Profile = path
	return func() {
		opts.Profile = ""
		cleanup()
		release()
	}, nil
}

// Run computes the estimate (RunHeld) and ends its held phase at once.
func Run(ctx context.Context, opts *Options, warn io.Writer) (*document.Estimate, error) {
	e, done, err := RunHeld(ctx, opts, warn)
	done()
	return e, err
}

// RunHeld computes the estimate. Loader warnings go to warn; the
// estimate's own warnings are in its Warnings. A signal during --command's
// measurements (the per-process probe, --validate, the command itself),
// once the prediction exists, returns the estimate marked partial
// (MarkPartial) with an error wrapping context.Canceled; a signal before
// it (profiling, calibration) returns no estimate. done ends --command's
// held phase (interrupt.Hold) and removes the temporary profile: it is
// never nil, and the caller calls it once the estimate is written, so a
// second signal waits for the write.
func RunHeld(ctx context.Context, opts *Options, warn io.Writer) (e *document.Estimate, done func(), err error) {
	done = func() {}
	o := opts.Open
	o.Compiler = opts.Compiler
	l, err := (&cmdutil.LoadFlags{Systemd: opts.Systemd}).LoadPolicies(opts.Policies, o)
	if err != nil {
		return nil, done, err
	}
	l.PrintWarnings(warn)
	base, err := cmdutil.OneStack(l)
	if err != nil {
		return nil, done, err
	}
	if base, err = withUnit(opts, base); err != nil {
		return nil, done, err
	}
	n := opts.Filters
	if n == 0 {
		n = len(base)
	}
	variant := result.Variant(opts.Cache)
	stack, err := runner.StackFor(base, result.Cell{Variant: variant, Filters: n})
	if err != nil {
		return nil, done, fmt.Errorf("build stack: %w", err)
	}
	straced := len(opts.Command) > 0 && opts.Profile == "" // a temporary file done removes: named by the command
	if done, err = opts.startCommand(ctx); err != nil {
		return nil, done, err
	}
	data, err := formats.ReadInput(opts.Profile)
	if err != nil {
		return nil, done, fmt.Errorf("read profile: %w", err)
	}
	prof, err := analysis.ParseProfile(opts.Profile, data)
	if err != nil {
		return nil, done, err
	}
	out := &document.Estimate{Cache: opts.Cache, Warnings: append([]string{}, prof.Warnings...), OCI: l.OCIResolution(o)}
	evals, err := analysis.EvaluateProfile(stack, prof)
	if err != nil {
		return nil, done, err
	}
	if len(opts.Command) > 0 {
		warnKilled(warn, evals)
	}
	m := measurement{base: base, variant: variant, n: n, evals: evals, straced: straced}
	if err := opts.predict(ctx, out, prof, stack, &m); err != nil {
		return nil, done, err
	}
	if err := opts.measure(ctx, out, &m); err != nil {
		if ctx.Err() == nil {
			return nil, done, err
		}
		MarkPartial(out)
		return out, done, interrupted(ctx, err)
	}
	return out, done, nil
}

// measurement is what the steps after the profile's evaluation share:
// the stack's programs, variant and depth, the evaluated profile, and
// what the prediction leaves to the measurements (the model, the
// indirect-cost calibration, the direct parts).
type measurement struct {
	base    []*filters.Program
	variant result.Variant
	n       int
	evals   []analysis.ProfileCost
	model   stats.CostModel
	ind     *indirectCal
	dparts  directParts
	straced bool // the profile is estimate's own strace of the command
}

// predict calibrates (or reads) the cost model and fills out's
// prediction: the syscalls, the total and its parts.
func (opts *Options) predict(ctx context.Context, out *document.Estimate, prof *analysis.Profile, stack filters.Stack, m *measurement) error {
	model, points, source, mwarn, err := costModel(ctx, opts, m.base, m.n)
	if err != nil {
		return err
	}
	m.model = model
	out.Warnings = append(out.Warnings, mwarn...)
	out.Warnings = append(out.Warnings, negativeCostWarnings(model)...)
	fillEstimate(out, opts, prof, stack, m.evals, model, points, source)
	if m.straced {
		// The profile is a temporary file done removes: name the
		// command that was profiled instead.
		out.Profile.Source = report.StraceProfileSource(opts.Command)
	}
	out.Model.MeasuredOn = measuredOn(opts)
	if opts.probesIndirect() {
		if m.ind, err = calibrateIndirect(ctx, opts, m.base, m.n); err != nil {
			return err
		}
	}
	m.dparts = splitDirect(model, m.evals, m.n)
	fillParts(out, opts, m.ind, m.dparts)
	return nil
}

// measure runs what measures the prediction: --validate's syscall loops
// and --command's measurement of the command.
func (opts *Options) measure(ctx context.Context, out *document.Estimate, m *measurement) error {
	if opts.Validate {
		v, err := validateEstimate(ctx, opts, m.base, m.variant, m.n, m.evals, out.Syscalls, m.model)
		if err != nil {
			return err
		}
		out.Validation = v
	}
	if len(opts.Command) > 0 {
		return validateCommand(ctx, opts, m.base, m.variant, m.n, out, m.ind, m.dparts)
	}
	if opts.Budget != nil {
		return bracketBudget(ctx, opts, m, out)
	}
	return nil
}

// bracketBudget decides --budget without running the program: it
// measures the per-process term (/bin/true under the stack; its floor is
// part of any program's cost), completes the bracket with it and judges
// the budget on the bracket alone: within only when the ceiling is below
// the budget, over only when the floor is above it (Bracket.Decide).
// Its verdict is out.Budget, decided by "bracket", with the floor and
// ceiling as its bounds.
func bracketBudget(ctx context.Context, opts *Options, m *measurement, out *document.Estimate) error {
	proc, _, err := processTerm(ctx, opts, m.base, m.variant, m.n)
	if err != nil {
		return err
	}
	b := NewBracket(time.Duration(out.Total.AddedNs), time.Duration(proc.Center))
	out.Total.Bracket = b.Report(true)
	budget := time.Duration(opts.Budget.Ns)
	out.Budget = &document.BudgetVerdict{Verdict: string(b.Decide(budget)), Budget: opts.Budget.Ns, Unit: "ns",
		Estimate: float64(b.Floor+b.Ceiling) / 2, Lower: float64(b.Floor), Upper: float64(b.Ceiling),
		Confidence: opts.Confidence, DecidedBy: document.BudgetByBracket}
	return nil
}

// MarkPartial marks e as an estimate whose measurements a signal cut
// short: Partial set, every measured figure (Validation) dropped, and
// report.EstimatePartialText first among the warnings. The prediction
// stays.
func MarkPartial(e *document.Estimate) {
	e.Partial = true
	e.Validation = nil
	e.Warnings = append([]string{report.EstimatePartialText}, e.Warnings...)
}

// interrupted is err as the error of an interrupted measurement: it
// wraps context.Canceled (the signal's cause when err does not), so the
// exit code is 128 + the signal's number.
func interrupted(ctx context.Context, err error) error {
	if errors.Is(err, context.Canceled) {
		return err
	}
	return fmt.Errorf("%w (%v)", context.Cause(ctx), err)
}

// probesIndirect reports whether the estimate runs the indirect-cost
// probe: asked for (--indirect), with the quick calibration (calibration
// files measure nothing now), outside containers, and with the program's
// time between syscalls known (--duration, --command).
func (opts *Options) probesIndirect() bool {
	return opts.Indirect && len(opts.Calibrations) == 0 && opts.Container == nil && (opts.Duration > 0 || len(opts.Command) > 0)
}

// warnKilled warns on warn, before a minute of calibration, of every
// syscall of the profile the stack kills or traps (with arguments 0):
// --command will likely fail under the stack.
func warnKilled(warn io.Writer, evals []analysis.ProfileCost) {
	for _, e := range evals {
		if e.Known && e.Calls > 0 && killsOrTraps(e.Cost.Action) {
			fmt.Fprintf(warn, "warning: the stack answers %s with %s (with arguments 0; the profile has %d calls): the command will likely be killed under it, and --command's measurement fail\n",
				e.Name, e.Cost.Action, e.Calls)
		}
	}
}

// costModel returns the cost model for stacks of n filters, the
// calibration points it was fitted to, a description of its source and
// its warnings: from --calibration files, else from a quick calibration,
// refined with --stack-calibration by a loop syscall under base when one
// runs under it.
func costModel(ctx context.Context, opts *Options, base []*filters.Program, n int) (model stats.CostModel, points []document.EstimatePoint, source string, mwarn []string, err error) {
	if len(opts.Calibrations) > 0 {
		return calibrationFromFiles(opts, n)
	}
	model, points, source, mwarn, err = quickCalibration(ctx, opts, n)
	if err == nil && opts.StackCalibration {
		m, pt, desc, ok, serr := stackCalibration(ctx, opts, base, n, model)
		switch {
		case serr != nil:
			err = serr
		case ok:
			model, points, source = m, append(points, pt), source+"; "+desc
		case desc != "":
			mwarn = append(mwarn, desc)
		default:
			mwarn = append(mwarn, "no loop syscall (openat, getppid, gettid, getpid) runs under this stack: the model is the calibration chain's alone, which underestimated real policies' filters by 20-30 % on this project's measurements (docs/estimate.md)")
		}
	}
	return model, points, source, mwarn, err
}

// validateCommand measures --command under the stack of n filters of base
// (and, with --process-term, the process term) and sets
// out.Validation.EstimateCommand, comparing with the estimate's total
// plus, when the probe ran (ind), the indirect part at the command's
// baseline run over the profile's calls; it completes out.Parts.
func validateCommand(ctx context.Context, opts *Options, base []*filters.Program, variant result.Variant, n int, out *document.Estimate, ind *indirectCal, d directParts) error {
	t := out.Total
	syscalls := stats.Estimate{Center: t.AddedNs, Lo: deref(t.CILowNs), Hi: deref(t.CIHighNs)}
	var proc, procCPU stats.Estimate
	if opts.ProcessTerm {
		var err error
		if proc, procCPU, err = processTerm(ctx, opts, base, variant, n); err != nil {
			return err
		}
	}
	c, err := measureCommand(ctx, opts, base, variant, n, syscalls, proc, procCPU)
	if err != nil {
		return err
	}
	if opts.ProcessTerm && out.Parts != nil {
		out.Parts.PerProcess = part(proc, document.PartProcessProbe)
	}
	if opts.ProcessTerm {
		out.Total.Bracket = NewBracket(time.Duration(t.AddedNs), time.Duration(proc.Center)).Report(true)
	}
	if ind != nil && out.Parts != nil && out.Total.Calls > 0 && c.BaselineRunNs > 0 {
		gap := c.BaselineRunNs / float64(out.Total.Calls)
		e := ind.predict(d, gap, "the command's baseline run")
		applyIndirect(c, syscalls, e, proc, procCPU, gap)
		out.Parts.Indirect = part(e, document.PartProbeCurve)
	}
	if out.Validation == nil {
		out.Validation = &document.EstimateValidation{Trials: opts.Trials}
	}
	out.Validation.EstimateCommand = c.Finite()
	out.Budget = c.Budget
	return nil
}

// withUnit puts the filters systemd installs for --systemd-unit before
// base, as run --systemd-unit does; base alone without a unit.
func withUnit(opts *Options, base []*filters.Program) ([]*filters.Program, error) {
	if opts.SystemdUnit == "" {
		return base, nil
	}
	// The unit with its drop-ins, as systemd merges them.
	name, data, dropIns, err := formats.ReadUnit(opts.SystemdUnit, "")
	if err != nil {
		return nil, fmt.Errorf("read systemd unit: %w", err)
	}
	unit, err := systemd.ParseUnit(name, data, systemd.Options{Compiler: opts.Compiler, DropIns: dropIns, SystemdVersion: opts.Open.Systemd.SystemdVersion, VersionNote: opts.Open.Systemd.VersionNote})
	if err != nil {
		return nil, fmt.Errorf("model systemd stack: %w", err)
	}
	if len(unit.Programs) == 0 {
		return nil, fmt.Errorf("model systemd stack: %s installs no seccomp filter", opts.SystemdUnit)
	}
	return append(slices.Clone(unit.Programs), base...), nil
}

// deref returns *p, NaN for nil.
func deref(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// cpuWait says, as run does, that the measurement waits for a CPU another
// run holds (runner.Config.OnCPUWait); on the progress stream.
func (opts *Options) cpuWait(msg string) { opts.progressf("seccompbench: %s\n", msg) }

// progressf writes one progress line, if opts.Progress is set.
func (opts *Options) progressf(format string, args ...any) {
	if opts.Progress != nil {
		fmt.Fprintf(opts.Progress, format, args...)
	}
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
func fillEstimate(out *document.Estimate, opts *Options, prof *analysis.Profile, stack filters.Stack, evals []analysis.ProfileCost, model stats.CostModel, points []document.EstimatePoint, source string) {
	n := len(stack)
	out.Profile.Source, out.Profile.Format, out.Profile.Calls, out.Profile.Syscalls = prof.Source, prof.Format, prof.TotalCalls, len(prof.Entries)
	out.Profile.Seconds = document.Nullable(prof.TotalSeconds)
	if opts.Duration > 0 {
		out.Profile.Duration = document.Nullable(opts.Duration.Seconds())
	}
	for i, p := range stack {
		out.Stack = append(out.Stack, document.StackEntry{Index: i, Name: p.Name, Instructions: p.Len(), SHA256: p.SHA256()})
	}
	out.Model = document.EstimateModel{Source: source,
		EntryNs: model.Entry.Center, EntryCILowNs: document.Nullable(model.Entry.Lo), EntryCIHighNs: document.Nullable(model.Entry.Hi),
		PerFilterNs: model.PerFilter.Center, PerFilterCILowNs: document.Nullable(model.PerFilter.Lo), PerFilterCIHigh: document.Nullable(model.PerFilter.Hi),
		PerInsnNs: model.PerInsn.Center, PerInsnCILowNs: document.Nullable(model.PerInsn.Lo), PerInsnCIHighNs: document.Nullable(model.PerInsn.Hi),
		Corr: model.Corr, CachedNs: model.Cached.Center, CachedCILowNs: document.Nullable(model.Cached.Lo), CachedCIHighNs: document.Nullable(model.Cached.Hi),
		Confidence: model.Confidence, Points: points}
	per, total := model.Predict(estimateItems(evals, n))
	for i, e := range evals {
		s := document.EstimateSyscall{Name: e.Name, Arch: e.Arch, Nr: e.Nr, Known: e.Known, Calls: e.Calls, Errors: e.Errors, Seconds: document.Nullable(e.Seconds)}
		if e.Known {
			s.Action, s.Cached, s.Filters, s.Instructions = e.Cost.Action.String(), e.Cost.Cached, n, e.Cost.Executed
			if !e.Cost.Cached {
				s.CacheReason = e.Cost.CacheReason
			}
			p := per[i]
			s.AddedNs, s.AddedLowNs, s.AddedHighNs = document.Nullable(p.PerCall.Center), document.Nullable(p.PerCall.Lo), document.Nullable(p.PerCall.Hi)
			s.TotalNs, s.TotalLowNs, s.TotalHighNs = document.Nullable(p.Total.Center), document.Nullable(p.Total.Lo), document.Nullable(p.Total.Hi)
			if total.Center != 0 {
				s.Share = document.Nullable(p.Total.Center / total.Center)
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
	out.Total.AddedNs, out.Total.CILowNs, out.Total.CIHighNs = total.Center, document.Nullable(total.Lo), document.Nullable(total.Hi)
	stated := stats.WithModelError(total, ModelError)
	out.Total.ModelErrorPct = 100 * ModelError
	out.Total.StatedCILowNs, out.Total.StatedCIHighNs = document.Nullable(stated.Lo), document.Nullable(stated.Hi)
	out.Total.Bracket = NewBracket(time.Duration(total.Center), 0).Report(false)
	if out.Total.Calls > 0 {
		out.Total.PerCallNs = total.Center / float64(out.Total.Calls)
	}
	if prof.HasSeconds && prof.TotalSeconds > 0 {
		k := 100 / (prof.TotalSeconds * 1e9)
		out.Total.PctOfSyscallTime, out.Total.PctOfSyscallTimeLo, out.Total.PctOfSyscallTimeHi = document.Nullable(total.Center*k), document.Nullable(total.Lo*k), document.Nullable(total.Hi*k)
	}
	if opts.Duration > 0 {
		k := 1 / opts.Duration.Seconds()
		out.Total.NsPerSecond, out.Total.NsPerSecondLow, out.Total.NsPerSecondHigh = document.Nullable(total.Center*k), document.Nullable(total.Lo*k), document.Nullable(total.Hi*k)
	}
	out.Warnings = append(out.Warnings, deniedWarnings(evals)...)
	if out.Total.UnknownCalls > 0 {
		out.Warnings = append(out.Warnings, fmt.Sprintf("%d calls of syscalls unknown to the ABI tables are not estimated", out.Total.UnknownCalls))
	}
}

// deniedWarnings are the warnings for profiled calls the stack does not
// ALLOW at arguments 0. A profile (strace -c's table, a syscall,count CSV)
// records no arguments, so the "would not run" claim is made only for
// syscalls whose verdict no filter takes from an argument word (Cost.Read
// holds no argument: the verdict is the same for every call); for the
// others the warning says the verdict depends on arguments the profile
// lacks (e.g. docker-default's socket rule, which tests the address
// family: socket(AF_INET) passes where socket(0, ...) does not).
func deniedWarnings(evals []analysis.ProfileCost) []string {
	var denied, byArgs []string
	var deniedCalls, byArgsCalls int64
	for _, e := range evals {
		if !e.Known || e.Cost.Action == filters.ActionAllow {
			continue
		}
		item := fmt.Sprintf("%s (%s)", e.Name, e.Cost.Action)
		if e.Cost.Read&filters.FieldArgs != 0 {
			byArgs, byArgsCalls = append(byArgs, item), byArgsCalls+e.Calls
		} else {
			denied, deniedCalls = append(denied, item), deniedCalls+e.Calls
		}
	}
	var out []string
	if len(denied) > 0 {
		out = append(out, fmt.Sprintf("%d profiled calls get a verdict other than ALLOW from the stack whatever their arguments: %s; under this stack the workload would not run as profiled, and their added time counts filter evaluation only, not the syscall work the verdict saves",
			deniedCalls, report.SummarizeNames(denied)))
	}
	if len(byArgs) > 0 {
		out = append(out, fmt.Sprintf("%d profiled calls get a verdict other than ALLOW at arguments 0, from filters that test the arguments: %s; the profile records no arguments, so whether the workload's own calls pass is not known (their added time is estimated at arguments 0)",
			byArgsCalls, report.SummarizeNames(byArgs)))
	}
	return out
}

// negativeCostWarnings flags model parameters whose centre came out
// negative: no filter makes a syscall faster, so such a value is noise
// (another process on the measuring CPU, too few blocks), and totals
// built on it can come out negative too.
func negativeCostWarnings(m stats.CostModel) []string {
	var neg []string
	for _, p := range []struct {
		name string
		e    stats.Estimate
	}{{"entry", m.Entry}, {"per filter", m.PerFilter}, {"per cached syscall", m.Cached}} {
		if p.e.Center < 0 {
			neg = append(neg, fmt.Sprintf("%s %.1f ns", p.name, p.e.Center))
		}
	}
	if len(neg) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("the calibration measured a negative cost (%s), which no filter can cause: the measuring CPU was busy or the blocks too few; quiet the machine or raise --calibration-trials, and read totals built on it with care", strings.Join(neg, ", "))}
}

// killsOrTraps reports whether a verdict stops the calling thread or
// process (SECCOMP_RET_KILL_*, SECCOMP_RET_TRAP: SIGSYS).
func killsOrTraps(a filters.Action) bool {
	return a == filters.ActionKillProcess || a == filters.ActionKillThread || a == filters.ActionTrap
}

// measuredOn names the kernel and CPU model of the calibration: those of
// the calibration files (each distinct pair once), or this machine's for
// a quick calibration.
func measuredOn(opts *Options) string {
	if len(opts.Calibrations) == 0 {
		env := runner.CaptureEnvironment()
		return machineText(env.Kernel, env.CPUModel)
	}
	var out []string
	for _, path := range opts.Calibrations {
		// calibrationFromFiles read each file already; an error here
		// cannot happen for a file it accepted.
		if doc, err := cmdutil.ReadDocument(path, "calibration"); err == nil {
			if m := machineText(doc.Environment.Kernel, doc.Environment.CPUModel); !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	return strings.Join(out, "; ")
}

// machineText is "kernel K, CPU" with "-" for what is not known.
func machineText(kernel, cpu string) string {
	return "kernel " + report.OrDash(kernel) + ", " + report.OrDash(cpu)
}
