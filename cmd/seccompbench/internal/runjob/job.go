// Package runjob is the pipeline of `seccompbench run`: it opens the
// policies (or a unit's or a process's stack), checks that the stack can be
// measured, runs the randomized blocks of children through runner, analyzes
// them with stats and writes the report.
package runjob

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/interrupt"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/analysis"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/filters/oci"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/runner"
	"github.com/seccompbench/seccompbench/runner/notify"
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/stats"
)

// Job is what `run` measures and where it writes the result, as parsed
// from the command line.
type Job struct {
	Policies []string
	Counts   []int
	Workload runner.Workload
	Cache    string // on, defeat or both
	Trials   int
	Seed     uint64
	CPU      int // -1: pick the highest allowed CPU no other run holds; -2: no pinning
	// CPUWait bounds the wait for a measuring CPU another run holds
	// (runner.Config.CPUWait; negative: refuse at once).
	CPUWait    time.Duration
	Confidence float64
	Format     string
	Output     string // the first -o FILE, "" for stdout
	// Outputs are every -o FILE; Specs is what to write, resolved from
	// them and Format (output.Resolve).
	Outputs    []string
	Specs      []output.Spec
	Iterations uint64
	Samples    int
	// Unpaired turns off the children's paired baselines (--paired=false;
	// runner.Config.Unpaired).
	Unpaired  bool
	SpecAllow bool
	// Pad appends this many unreachable instructions to every filter
	// (--pad) when PadSet; otherwise each child draws its own pad
	// (runner.DefaultPlacement), so every cell averages over JIT image
	// placements.
	Pad    int
	PadSet bool
	// Loader is the --loader value (unprivileged, privileged or both) and
	// Loaders the loaders it measures; LoaderSet reports that --loader was
	// given (else a systemd unit's own loader applies). LoaderReason says
	// why a unit's loader was chosen.
	Loader       string
	Loaders      []result.Loader
	LoaderSet    bool
	LoaderReason string
	Robust       bool
	Quiet        bool
	Parallel     int
	// TargetCI is the per-filter CI half-width to reach: ns, or a fraction
	// of the per-filter estimate when TargetCIRel. 0: fixed --trials.
	TargetCI    float64
	TargetCIRel bool
	// Budget is --budget: the added time per run to judge the deepest
	// count against (budget.go); nil for none.
	Budget    *stats.Budget
	MaxTime   time.Duration
	MaxTrials int
	// SystemdUnit is a unit file whose modeled filter stack goes first;
	// SystemdDirectives is the same given as directive text.
	SystemdUnit       string
	SystemdDirectives string
	// unit is the systemd unit's modeled stack when the policy is one
	// (--systemd-unit, --systemd or a lone unit POLICY), else nil
	// (directives.go).
	unit *filters.Source
	// CountsSet reports that --filters was given (else units pick counts).
	CountsSet bool
	FormatIn  formats.Format
	OCI       oci.Options
	Compiler  scmp.Compiler
	// Open holds the other load options (--profile-name, --base,
	// --thread); its Format, OCI, Compiler and Stdin are replaced by
	// FormatIn, OCI, Compiler and the streams' In.
	Open formats.OpenOptions
	Args []string // the command line, for the report

	// Pid, if set, replays the filter stack dumped from this process
	// (inspect.PidPolicies) instead of policies.
	Pid int
	// Notify configures the notify workload's supervisor (--notify-sync,
	// --notify-reply).
	Notify notify.Options
	// JITMeasure measures the deepest stack's JIT charge (--jit-measure,
	// root: lowers bpf_jit_limit for moments) instead of modelling it.
	JITMeasure bool
}

// target is the job's --target-ci as a stats precision goal.
func (j *Job) target() stats.Target { return stats.Target{CI: j.TargetCI, Rel: j.TargetCIRel} }

// Run measures the job and writes its result. Progress and warnings go to
// ios.ErrOut; now stamps the report. An interrupted run (ctx cancelled)
// returns a *cmdutil.InterruptedError, after writing the partial result
// (marked partial) to the -o files, or to ios.Out without -o.
func Run(ctx context.Context, ios *cmdutil.IOStreams, now func() time.Time, j *Job) error {
	// Refuse an unwritable -o before measuring, not after.
	if err := output.Check(j.Specs); err != nil {
		return err
	}
	progs, pols, err := openSources(ios, j)
	if err != nil {
		return err
	}
	variants := j.variants()
	cache, warnings, err := j.checkDeepest(progs, variants) // clips j.Counts
	if err != nil {
		return err
	}
	maxN := slices.Max(j.Counts)
	warnings = append(warnings, KernelWarnings(runner.CaptureEnvironment().Kernel)...)
	for _, w := range warnings {
		fmt.Fprintln(ios.ErrOut, report.Warning(w))
	}
	cfg, vnames := j.config(ios, progs, variants)
	pl := reportPlacement(cfg.Placement)
	// RunAdaptive calibrates the iterations (unless --iterations) and the
	// children's deadline.
	// From here on a signal only cancels ctx: the runner kills and reaps
	// the children and removes its files, and what was measured is
	// written (interrupt.Hold).
	release := interrupt.Hold()
	defer release()
	samples, info, runErr := runner.RunAdaptive(ctx, cfg)
	cfg.Iterations = info.Iterations
	if info.Runs > 0 {
		cfg.Samples = info.Runs // the command workload: timed runs per child
	}
	partial := runErr != nil
	if err := j.fatalRunError(runErr, len(samples)); err != nil {
		return err
	}
	obs := Observations(samples)
	res, err := stats.Analyze(obs, stats.Options{Confidence: j.Confidence, Robust: j.Robust, Seed: j.Seed, Variants: vnames, Loaders: LoaderNames(cfg.Loaders)})
	if err != nil {
		return fmt.Errorf("analyze samples: %w", err)
	}
	warnings = append(warnings, resultWarnings(j, samples, res, info)...)
	warnings = append(warnings, padCapWarnings(info.PadCaps)...)
	env := runner.CaptureEnvironment()
	setup, jitWarn := j.reportSetup(ctx, progs, variants[0], maxN, obs, &env)
	if jitWarn != "" {
		warnings = append(warnings, jitWarn)
	}
	verdict, budgetErr := j.budgetResult(samples, info)
	rcfg := j.reportConfig(pols, vnames, cfg, info, allPaired(samples), pl)
	rcfg.FilterNames = j.filterNames(progs)
	rcfg.Directives = j.directives()
	doc := report.Build(document.Input{
		Tool:        document.Tool{Name: "seccompbench", Version: cmdutil.Version()},
		Command:     strings.Join(j.Args, " "),
		Created:     now(),
		Environment: env,
		Config:      rcfg,
		Samples:     samples,
		Result:      res,
		Run:         j.runInfo(info),
		Drift:       driftOf(obs, vnames, j.Confidence),
		Linearity:   linearityIfHomogeneous(progs, res, vnames, j.Confidence),
		Cache:       cache,
		Setup:       setup,
		Control:     controlOf(obs, vnames, j.Confidence),
		Partial:     partial,
		Warnings:    warnings,

		CommandWorkload: commandCostOf(j, samples, res, info),
		Budget:          verdict,
	})
	if err := j.writeResult(ios, doc, runErr, len(samples)); err != nil || partial {
		return err
	}
	return budgetErr
}

// fatalRunError returns the error that ends Run after the runner returned
// runErr with children samples: an *cmdutil.InterruptedError when
// interrupted before any child finished, the runner's error wrapped when
// it failed otherwise, nil when what was measured is to be written.
func (j *Job) fatalRunError(runErr error, children int) error {
	if errors.Is(runErr, context.Canceled) && children == 0 {
		where := "nothing written"
		if len(j.Outputs) > 0 {
			where = "nothing written to " + strings.Join(j.Outputs, ", ")
		}
		return &cmdutil.InterruptedError{Msg: "run interrupted before the first child finished; " + where, Err: runErr}
	}
	if runErr != nil && !errors.Is(runErr, context.Canceled) {
		return fmt.Errorf("run: %w", runErr)
	}
	return nil
}

// reportConfig is the job's configuration as the report states it, with
// the iterations and samples per child the run settled on (cfg, info).
func (j *Job) reportConfig(pols []document.Policy, vnames []string, cfg runner.Config, info result.RunInfo, paired bool, pl runner.Placement) document.Config {
	return document.Config{
		Policies: pols, FilterCounts: j.Counts, Workload: j.Workload.Name, Op: j.Workload.Op,
		Cache: j.Cache, Variants: vnames, Trials: j.Trials, Iterations: cfg.Iterations,
		SamplesPerChild: cfg.Samples, Paired: paired, Seed: j.Seed, Confidence: j.Confidence, CPU: runCPU(info),
		SpecAllow: j.SpecAllow, Robust: j.Robust, Pad: j.Pad,
		Loader: j.loaderName(), LoaderReason: j.LoaderReason,
		Placement: string(pl.Mode), PadMin: pl.MinPad, PadMax: pl.MaxPad,
	}
}

// runInfo is how the run went, as the report states it.
func (j *Job) runInfo(info result.RunInfo) *document.RunInfo {
	return &document.RunInfo{Blocks: info.Blocks, StopReason: info.StopReason, ElapsedS: info.Elapsed.Seconds(),
		TargetCINs: j.targetNs(), TargetCIRel: j.targetRel(), Parallel: j.Parallel, CPUs: info.CPUs,
		ForeignLoad: info.ForeignLoad}
}

// reportSetup is the setup cost the report states: the install times of
// obs plus the deepest stack's JIT memory (jitSetup, which may record a
// measured charge in env and return a warning), or nil for a container
// workload, whose runtime's seccomp(2) call and JIT image are its own:
// nothing here timed or sized them.
func (j *Job) reportSetup(ctx context.Context, progs []*filters.Program, v result.Variant, maxN int, obs []stats.Observation, env *result.Environment) (*document.Setup, string) {
	setup, warn := j.jitSetup(ctx, progs, v, maxN, setupOf(obs, j.Confidence), env)
	if j.Workload.Container != nil {
		setup = nil
	}
	return setup, warn
}

// writeResult writes doc to the job's outputs. A run interrupted (runErr
// not nil) after children children returns an *cmdutil.InterruptedError
// saying where the partial result went, or why it could not be written.
func (j *Job) writeResult(ios *cmdutil.IOStreams, doc *document.Document, runErr error, children int) error {
	partial := runErr != nil
	if err := j.write(ios, doc); err != nil {
		if partial {
			// Interrupted is what happened; the write error says where
			// the partial result went instead.
			return &cmdutil.InterruptedError{Msg: fmt.Sprintf("run interrupted after %s; %v", childrenText(children), err), Err: runErr}
		}
		return err
	}
	if partial {
		where := "partial result printed above"
		if len(j.Outputs) > 0 {
			where = "partial result written to " + strings.Join(j.Outputs, ", ")
		}
		return &cmdutil.InterruptedError{Msg: fmt.Sprintf("run interrupted after %s; %s", childrenText(children), where), Err: runErr}
	}
	return nil
}

// checkDeepest clips the default counts to what fits (j.clipCounts),
// refuses a deepest stack whose smallest pad does not fit, and predicts
// the action cache for the workload at that depth. The warnings include
// the clipping.
func (j *Job) checkDeepest(progs []*filters.Program, variants []result.Variant) ([]document.CacheVariant, []string, error) {
	clipped := j.clipCounts(progs, variants)
	denied, err := j.clipInstallable(progs, variants)
	if err != nil {
		return nil, nil, err
	}
	maxN := slices.Max(j.Counts)
	// The smallest pad must fit; random pads that do not are left out of
	// the deepest cells' range (result.RunInfo.PadCaps).
	for _, v := range variants {
		if _, err := runner.StackForPad(progs, result.Cell{Variant: v, Filters: maxN}, j.smallestPad()); err != nil {
			return nil, nil, fmt.Errorf("check stack of %d filters (%s): %w", maxN, v, err)
		}
	}
	cache, warnings, err := predictWorkload(progs, variants, maxN, j.Workload)
	if clipped != "" && denied == "" {
		warnings = append(warnings, clipped)
	}
	if denied != "" {
		warnings = append(warnings, denied)
	}
	if err != nil && clipped != "" {
		// The user asked for no such depth: say where it came from.
		return nil, nil, fmt.Errorf("%w (%d filters is not a count you asked for: it is the most that fit MAX_INSNS_PER_PATH, where the default counts were clipped)", err, maxN)
	}
	if err != nil {
		return nil, nil, err
	}
	return cache, warnings, nil
}

// runCPU is the CPU the run measured on, from the CPUs RunAdaptive locked
// (-1: not pinned).
func runCPU(info result.RunInfo) int {
	if len(info.CPUs) == 0 {
		return -1
	}
	return info.CPUs[0]
}

// variants are the cache variants --cache asks for.
func (j *Job) variants() []result.Variant {
	switch j.Cache {
	case "on":
		return []result.Variant{result.VariantOn}
	case "defeat":
		return []result.Variant{result.VariantDefeat}
	}
	return []result.Variant{result.VariantOn, result.VariantDefeat}
}

// clipCounts: with default counts, a long policy (docker-default fits 20
// times) measures up to the deepest stack that fits instead of failing. It
// returns the warning that says so, or "".
func (j *Job) clipCounts(progs []*filters.Program, variants []result.Variant) string {
	if j.CountsSet {
		return ""
	}
	fit := maxFittingCount(runner.PaddedPrograms(progs, j.smallestPad()), variants)
	if fit >= slices.Max(j.Counts) {
		return ""
	}
	var keep []int
	for _, n := range j.Counts {
		if n < fit {
			keep = append(keep, n)
		}
	}
	j.Counts = append(keep, fit)
	return fmt.Sprintf("at most %d of these filters fit MAX_INSNS_PER_PATH (32768 eBPF instructions), so the default counts stop there: %v (choose others with --filters)", fit, j.Counts)
}

// clipInstallable: with default counts, a stack whose filters deny
// seccomp(2) (a strict container profile) is measured at the depths it
// can be installed (analysis.InstallableDepth: alone, or above the
// filters below it) instead of failing. It returns the warning that says
// so, or "".
func (j *Job) clipInstallable(progs []*filters.Program, variants []result.Variant) (string, error) {
	if j.CountsSet || len(variants) == 0 {
		return "", nil
	}
	maxN := slices.Max(j.Counts)
	stack, err := runner.StackFor(progs, result.Cell{Variant: variants[0], Filters: maxN})
	if err != nil {
		return "", err
	}
	depth, short := analysis.InstallableDepth(stack, cmdutil.NativeArch())
	if !short {
		return "", nil
	}
	var keep []int
	for _, n := range j.Counts {
		if n < depth {
			keep = append(keep, n)
		}
	}
	j.Counts = append(keep, depth)
	return fmt.Sprintf("the policy denies seccomp(2), so at most %d of its filters can be stacked (each filter is installed under the ones before it): measured at the depths it can be installed, %v; per-filter costs need 2 or more depths above 0, so the answer is the cost at %d", depth, j.Counts, depth), nil
}

// config is the runner configuration of the job, and the variant names.
func (j *Job) config(ios *cmdutil.IOStreams, progs []*filters.Program, variants []result.Variant) (runner.Config, []string) {
	// CPU -1 stays -1: runner.RunAdaptive takes the highest allowed CPU
	// no other run has locked, so two runs never share a measuring CPU.
	cfg := runner.Config{
		Programs: progs, Counts: j.Counts, Variants: variants, Workload: j.Workload,
		Trials: j.Trials, Seed: j.Seed, CPU: j.CPU, Iterations: j.Iterations,
		Samples: j.Samples, ControlIters: 200000, SpecAllow: j.SpecAllow, Unpaired: j.Unpaired,
		Parallel: j.Parallel, Notify: j.Notify, Loaders: j.Loaders, Placement: j.placement(),
		CPUWait: j.CPUWait, OnCPUWait: func(msg string) { fmt.Fprintf(ios.ErrOut, "seccompbench: %s\n", msg) },
	}
	vnames := VariantNames(variants)
	if j.TargetCI > 0 {
		cfg.MaxTrials = j.MaxTrials
		cfg.MaxTime = j.MaxTime
		cfg.Stop = func(s []result.Sample) bool {
			return stats.PreciseEnough(Observations(s), vnames, j.Confidence, j.target())
		}
	}
	if j.Budget != nil {
		cfg.MaxTrials = j.MaxTrials
		cfg.MaxTime = j.MaxTime
		cfg.Stop = func(s []result.Sample) bool {
			return j.budgetDecision(s, 0, 0).Verdict != stats.VerdictUndecided
		}
	}
	if cfg.CPU < -1 {
		cfg.CPU = -2
	}
	if j.Workload.Command != nil {
		// A hard bound for the command workload (runner.Config.MaxTime).
		cfg.MaxTime = j.MaxTime
	}
	if !j.Quiet && ios.ErrTTY {
		cfg.Progress = newProgress(ios.ErrOut)
	}
	return cfg, vnames
}

// filterNames names the filters of a systemd stack (a unit or
// --systemd) by their directive and ABI, oldest first, as the unit model
// names them without the unit ("ProtectHostname/x86"); nil for other
// sources, whose filters the policy names already say.
func (j *Job) filterNames(progs []*filters.Program) []string {
	if j.unit == nil {
		return nil
	}
	out := make([]string, len(progs))
	for i, p := range progs {
		_, name, ok := strings.Cut(p.Name, "/")
		if !ok {
			name = p.Name
		}
		out[i] = name
	}
	return out
}

// write renders doc to every -o FILE (atomically) or stdout.
func (j *Job) write(ios *cmdutil.IOStreams, doc *document.Document) error {
	outs := j.Specs
	if len(outs) == 0 {
		outs = []output.Spec{{Format: j.Format}}
	}
	if err := output.WriteResult(outs, ios.Out, ios.ErrOut, doc); err != nil {
		return err
	}
	// With every result in files, the warnings (a busy measuring CPU,
	// drift, noise) would only be in them: repeat them on stderr.
	toStdout := false
	for _, o := range outs {
		toStdout = toStdout || o.Path == "" || o.Path == "-"
	}
	if !toStdout {
		for _, w := range doc.Warnings {
			fmt.Fprintln(ios.ErrOut, report.Warning(w))
		}
	}
	return nil
}

// VariantNames are the names of variants, in order, as stats and the
// report name them.
func VariantNames(variants []result.Variant) []string {
	var names []string
	for _, v := range variants {
		names = append(names, string(v))
	}
	return names
}

// Observations converts measured children to stats observations, one per
// child, keeping the install and control-loop times.
func Observations(samples []result.Sample) []stats.Observation {
	obs := make([]stats.Observation, len(samples))
	for i, s := range samples {
		obs[i] = stats.Observation{Variant: string(s.Variant), Filters: s.Filters, Block: s.Block, Seq: s.Seq, NsPerOp: s.NsPerOp, BaselineNs: s.BaselineNsPerOp,
			InstallNs: s.InstallNs, ControlBeforeNs: s.ControlBeforeNs, ControlAfterNs: s.ControlAfterNs,
			Loader: string(s.Loader), Pad: s.Pad}
	}
	return obs
}

// allPaired reports whether every child took its own baseline.
func allPaired(samples []result.Sample) bool {
	for _, s := range samples {
		if !(s.BaselineNsPerOp > 0) {
			return false
		}
	}
	return len(samples) > 0
}

// maxFittingCount returns the largest filter count whose stack fits the
// kernel's limits for every variant (the defeated programs are one
// instruction longer).
func maxFittingCount(progs []*filters.Program, variants []result.Variant) int {
	fit := -1
	for _, v := range variants {
		if n := filters.MaxStackCount(runner.VariantPrograms(progs, v)); fit < 0 || n < fit {
			fit = n
		}
	}
	return fit
}

// childrenText is "1 child" or "N children".
func childrenText(n int) string {
	if n == 1 {
		return "1 child"
	}
	return fmt.Sprintf("%d children", n)
}
