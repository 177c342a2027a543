package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/filters/oci"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"github.com/seccompbench/seccompbench/filters/systemd"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/runner"
	"github.com/seccompbench/seccompbench/stats"
)

// defaultSamples and maxSamples bound --samples, the timed samples per
// child (the child reports their median).
const (
	defaultSamples = 5
	maxSamples     = 1000
)

// RunOptions are the flags and arguments of `seccompbench run`.
type RunOptions struct {
	IO      *IOStreams
	Now     func() time.Time
	Context context.Context

	Policies   []string
	Counts     []int
	Workload   runner.Workload
	Cache      string
	Trials     int
	Seed       uint64
	CPU        int
	Confidence float64
	Format     string
	Output     string // the first -o FILE, "" for stdout
	// Outputs are every -o FILE; outputs is what to write, resolved from
	// them and --format (see resolveOutputs).
	Outputs    []string
	outputs    []outputSpec
	Iterations uint64
	Samples    int
	SpecAllow  bool
	// Pad appends this many unreachable instructions to every filter
	// (--pad): a check that a result is not a JIT placement effect.
	Pad      int
	Robust   bool
	Quiet    bool
	Parallel int
	// TargetCI is the per-filter CI half-width to reach: ns, or a fraction
	// of the per-filter estimate when TargetCIRel. 0: fixed --trials.
	TargetCI    float64
	TargetCIRel bool
	MaxTime     time.Duration
	MaxTrials   int
	// SystemdUnit is a unit file whose modeled filter stack goes first;
	// SystemdDirectives is the same given as directive text.
	SystemdUnit       string
	SystemdDirectives string
	// CountsSet reports that --filters was given (else units pick counts).
	CountsSet bool
	FormatIn  formats.Format
	OCI       oci.Options
	Compiler  scmp.Compiler
	Args      []string // the command line, for the report

	// Pid, if set, replays the filter stack dumped from this process
	// (inspect.go: pidPolicies) instead of policies.
	Pid int
}

// NewCmdRun builds `seccompbench run`. runF, if not nil, replaces runRun
// (tests use it to check flag parsing).
func NewCmdRun(f *Factory, runF func(*RunOptions) error) *cobra.Command {
	opts := &RunOptions{IO: f.IO, Now: f.Now}
	var counts, workload, syscallSpec, targetCI string
	var pathDirs int
	var formatIn, caps, compiler string
	cmd := &cobra.Command{
		Use:   "run [POLICY...]",
		Short: "Measure the per-syscall cost of a policy stacked 0..32 deep",
		Long: `Measure what a seccomp policy adds to every syscall, and how that grows as
filters stack. Each (variant, filter count) cell runs in a fresh child
process, in randomized blocks; the child installs the stack on a pinned
thread and times a raw syscall loop.

POLICY is a policy file: YAML or JSON in the Elastic Beats schema, a
Docker/OCI seccomp profile (JSON), or raw BPF (struct sock_filter array, as
bwrap --seccomp reads); the format is detected from the content
(--format-in forces it). "default" is the embedded default policy (used
when none is given), "docker-default" Docker's default profile. A systemd
unit is a stack of filters: give it with --systemd-unit.
Several policies form the stack by cycling: with P1 P2 and 5 filters the
stack is P1 P2 P1 P2 P1, P1 installed first.

Variants: "on" installs the filters as compiled, so the kernel's action cache
(Linux 5.11+) may skip them; "defeat" prepends ld [instruction_pointer] to
each filter, which keeps every verdict but makes every filter run on every
syscall (as on older kernels or with argument rules).`,
		Example: `  seccompbench run
  seccompbench run --cache defeat --workload getpid --filters 0,1,2,4,8,16,32
  seccompbench run testdata/policies/denylist.yaml --filters 0-32/8 --format json -o result.json`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Context = cmd.Context()
			opts.Policies = args
			if len(opts.Policies) == 0 {
				opts.Policies = []string{"default"}
			}
			var err error
			opts.CountsSet = cmd.Flags().Changed("filters")
			if opts.FormatIn, err = formats.ParseFormat(formatIn); err != nil {
				return &FlagError{Err: fmt.Errorf("--format-in: %w", err)}
			}
			if opts.Compiler, err = scmp.ParseCompiler(compiler); err != nil {
				return &FlagError{Err: fmt.Errorf("--compiler: %w", err)}
			}
			if caps != "" {
				if opts.OCI.Caps, err = oci.ParseCaps(caps); err != nil {
					return &FlagError{Err: fmt.Errorf("--caps: %w", err)}
				}
			}
			if opts.SystemdUnit != "" && opts.SystemdDirectives != "" {
				return flagErrorf("--systemd-unit and --systemd exclude each other")
			}
			if (opts.SystemdUnit != "" || opts.SystemdDirectives != "") && len(args) == 0 {
				opts.Policies = nil
			}
			if opts.Pid != 0 {
				if opts.Pid < 0 || len(args) > 0 {
					return flagErrorf("--pid: give a positive PID and no POLICY (the process's own stack is replayed)")
				}
				opts.Policies = nil
			}
			if opts.Counts, err = ParseCounts(counts); err != nil {
				return &FlagError{Err: fmt.Errorf("--filters: %w", err)}
			}
			if opts.Workload, err = runner.LookupWorkload(workload); err != nil {
				return &FlagError{Err: fmt.Errorf("--workload: %w", err)}
			}
			if cmd.Flags().Changed("path-dirs") {
				if workload != "execvpe-miss" || pathDirs < 1 || pathDirs > 64 {
					return flagErrorf("--path-dirs: needs --workload execvpe-miss and a value from 1 to 64")
				}
				opts.Workload = runner.ExecvpeMissWorkload(pathDirs)
			}
			if syscallSpec != "" {
				if cmd.Flags().Changed("workload") {
					return flagErrorf("--syscall and --workload exclude each other")
				}
				if opts.Workload, err = runner.SyscallWorkload(syscallSpec); err != nil {
					return &FlagError{Err: fmt.Errorf("--syscall: %w; safe list:\n  %s", err, strings.Join(runner.SafeSyscalls(), "\n  "))}
				}
			}
			if targetCI != "" {
				v := strings.TrimSuffix(targetCI, "%")
				x, err := strconv.ParseFloat(v, 64)
				if err != nil || !(x > 0) {
					return flagErrorf("--target-ci: %q is not a positive number of ns or a percentage like 5%%", targetCI)
				}
				opts.TargetCI, opts.TargetCIRel = x, v != targetCI
				if opts.TargetCIRel {
					opts.TargetCI = x / 100
				}
			}
			if opts.CPU >= 0 {
				if allowed := runner.AllowedCPUs(); allowed != nil && !slices.Contains(allowed, opts.CPU) {
					return flagErrorf("--cpu: CPU %d is not one this process may run on (allowed: %v); use -1 to pick one or -2 for no pinning", opts.CPU, allowed)
				}
			} else if opts.CPU != -1 && opts.CPU != -2 {
				return flagErrorf("--cpu: %d is not a CPU number, -1 (pick) or -2 (no pinning)", opts.CPU)
			}
			if opts.Parallel < 1 || opts.Parallel > 256 {
				return flagErrorf("--parallel: %d is not between 1 and 256", opts.Parallel)
			}
			if allowed := runner.AllowedCPUs(); opts.Parallel > 1 && opts.CPU != -2 && allowed != nil && opts.Parallel > len(allowed) {
				return flagErrorf("--parallel: %d copies but this process may run on %d CPUs (%v): pinned copies would share CPUs and time each other's waits; use at most %d, or --cpu -2 to run them unpinned on purpose",
					opts.Parallel, len(allowed), allowed, len(allowed))
			}
			switch opts.Cache {
			case "on", "defeat", "both":
			default:
				return flagErrorf("--cache: %q is not on, defeat or both", opts.Cache)
			}
			if opts.outputs, err = resolveOutputs(opts.Format, cmd.Flags().Changed("format"), opts.Outputs); err != nil {
				return err
			}
			if len(opts.Outputs) > 0 {
				opts.Output = opts.Outputs[0]
			}
			if err := stats.CheckConfidence(opts.Confidence); err != nil {
				return &FlagError{Err: fmt.Errorf("--confidence: %w", err)}
			}
			if opts.Trials < 2 {
				return flagErrorf("--trials: need at least 2 trials for a confidence interval, got %d", opts.Trials)
			}
			if opts.Pad < 0 || opts.Pad > filters.MaxInsns {
				return flagErrorf("--pad: %d instructions; want 0 to %d", opts.Pad, filters.MaxInsns)
			}
			if opts.Samples < 1 || opts.Samples > maxSamples {
				return flagErrorf("--samples: %d timed samples per child; want 1 to %d", opts.Samples, maxSamples)
			}
			opts.Args = os.Args
			if runF != nil {
				return runF(opts)
			}
			return runRun(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&counts, "filters", "0,1,2,4,8,16,32", "filter `counts` to measure: a list (0,1,2), ranges (0-32) and strides (0-32/4)")
	fl.StringVar(&workload, "workload", "mix", "timed loop: mix, getpid, close (UnixBench syscall.c modes), exec (UnixBench execl) or execvpe-miss")
	fl.StringVar(&syscallSpec, "syscall", "", "loop on one syscall from the safe list instead, `NAME[:a0,a1,a2]` (e.g. getppid, read:-1, openat)")
	fl.IntVar(&pathDirs, "path-dirs", 8, "execvpe-miss: PATH directories searched, the program is in the last")
	fl.IntVar(&opts.Parallel, "parallel", 1, "run N pinned copies of the workload at once per cell")
	fl.StringVar(&targetCI, "target-ci", "", "keep adding blocks until the per-filter CI half-width is at most `NS`, or a % of the estimate (e.g. 5%; for estimates ~0, that % of 1% of the 0-filter ns/op)")
	fl.DurationVar(&opts.MaxTime, "max-time", 60*time.Second, "with --target-ci: stop adding blocks after this long")
	fl.IntVar(&opts.MaxTrials, "max-trials", 200, "with --target-ci: at most this many blocks")
	fl.StringVar(&opts.Cache, "cache", "both", "measure the filters as installed (on), with the action cache defeated (defeat), or both")
	fl.IntVar(&opts.Trials, "trials", 20, "randomized blocks; each runs every cell once in a fresh child")
	fl.Uint64Var(&opts.Seed, "seed", 1, "seed of the block shuffles and the bootstrap")
	fl.IntVar(&opts.CPU, "cpu", -1, "CPU to pin the measuring thread to (-1: the highest allowed CPU, as the kernel selftest does; -2: no pinning)")
	fl.Float64Var(&opts.Confidence, "confidence", 0.95, "confidence level of every interval, a fraction in (0,1)")
	fl.StringVar(&opts.Format, "format", "table", "output format: table, json, markdown, csv, benchstat, svg or png")
	fl.StringArrayVarP(&opts.Outputs, "output", "o", nil, "write the result to `FILE` (atomically) instead of stdout; repeat for several formats, each from its extension (.txt .json .md .csv .bench .svg .png)")
	fl.Uint64Var(&opts.Iterations, "iterations", 0, "loop iterations per sample (0: calibrate to ~2ms per sample)")
	fl.IntVar(&opts.Samples, "samples", defaultSamples, "timed samples per child; the child's value is their median")
	fl.BoolVar(&opts.SpecAllow, "spec-allow", false, "install filters with SECCOMP_FILTER_FLAG_SPEC_ALLOW (no speculative store bypass mitigation)")
	fl.IntVar(&opts.Pad, "pad", 0, "append `N` unreachable instructions to every filter: same verdicts and paths, another program size (a check for JIT placement effects; see docs/libseccomp.md)")
	fl.BoolVar(&opts.Robust, "robust", false, "use medians with bootstrap CIs instead of means with t CIs")
	fl.BoolVarP(&opts.Quiet, "quiet", "q", false, "no progress on stderr")
	fl.IntVar(&opts.Pid, "pid", 0, "replay exactly the filter stack of running process `PID` (dumped as inspect does; counts default to 0 and the full depth)")
	fl.StringVar(&opts.SystemdUnit, "systemd-unit", "", "put the filter stack systemd 252 installs for this unit `FILE` first (counts default to 0, each directive's prefix and the full stack)")
	fl.StringVar(&opts.SystemdDirectives, "systemd", "", "like --systemd-unit, from directive text, e.g. 'SystemCallFilter=@system-service'")
	fl.StringVar(&formatIn, "format-in", "", "force the policy format: policy (Beats YAML/JSON), oci, raw, systemd (default: detect from content)")
	fl.StringVar(&compiler, "compiler", "native", "who lays out OCI profiles and systemd filters: native or libseccomp (as runc and systemd install them; needs a -tags libseccomp build)")
	fl.StringVar(&caps, "caps", "", "OCI profiles: capabilities to resolve includes/excludes with, e.g. default,-net_raw or all (default: Docker's default set)")
	fl.StringVar(&opts.OCI.KernelVersion, "kernel-version", "", "OCI profiles: kernel version for minKernel conditions (default: "+oci.DefaultKernelVersion+")")
	return cmd
}

// ParseCounts parses a --filters value: comma-separated counts, ranges
// "a-b" and strided ranges "a-b/s". The result is sorted and deduplicated.
// Counts must lie in [0, 4096].
func ParseCounts(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, fmt.Errorf("empty element in %q", s)
		}
		rng, step := part, 1
		if r, st, ok := strings.Cut(part, "/"); ok {
			n, err := strconv.Atoi(st)
			if err != nil || n < 1 {
				return nil, fmt.Errorf("bad stride %q in %q: want a positive integer", st, part)
			}
			rng, step = r, n
		}
		lo, hi := 0, 0
		if strings.HasPrefix(rng, "-") {
			return nil, fmt.Errorf("negative count %q: counts go from 0 to 4096", part)
		}
		if a, b, ok := strings.Cut(rng, "-"); ok {
			var err1, err2 error
			lo, err1 = strconv.Atoi(a)
			hi, err2 = strconv.Atoi(b)
			if err1 != nil || err2 != nil || lo > hi {
				return nil, fmt.Errorf("bad range %q: want LOW-HIGH with LOW <= HIGH", rng)
			}
		} else {
			n, err := strconv.Atoi(rng)
			if err != nil {
				return nil, fmt.Errorf("bad count %q: want a number, a range 0-32 or 0-32/4", part)
			}
			lo, hi = n, n
		}
		if lo < 0 || hi > 4096 {
			return nil, fmt.Errorf("count out of range in %q: counts go from 0 to 4096", part)
		}
		for n := lo; n <= hi; n += step {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

func runRun(opts *RunOptions) error {
	ctx := opts.Context
	if ctx == nil {
		ctx = context.Background()
	}
	// Refuse an unwritable -o before measuring, not after.
	if err := checkOutputs(opts.outputs); err != nil {
		return err
	}
	progs, pols, err := openPolicies(opts.Policies, formats.OpenOptions{Format: opts.FormatIn, OCI: opts.OCI, Compiler: opts.Compiler})
	printWarnings(opts.IO.ErrOut, progs)
	if err != nil {
		return err
	}
	if opts.Pid > 0 {
		if progs, pols, err = pidPolicies(opts.Pid); err != nil {
			return err
		}
		if !opts.CountsSet {
			opts.Counts = []int{0, len(progs)}
		}
	}
	if opts.SystemdUnit != "" || opts.SystemdDirectives != "" {
		unit, upol, err := openSystemd(opts)
		if err != nil {
			return err
		}
		for _, w := range unit.Warnings {
			fmt.Fprintf(opts.IO.ErrOut, "warning: %s\n", w)
		}
		// The unit's filters go first, in the order systemd installs them;
		// policies given as arguments go on top. Counts up to the unit's
		// depth are its prefixes.
		progs = append(append([]*filters.Program(nil), unit.Programs...), progs...)
		pols = append([]report.Policy{upol}, pols...)
		if !opts.CountsSet {
			counts := append([]int{0}, unit.Prefixes()...)
			if len(progs) > len(unit.Programs) {
				counts = append(counts, len(progs))
			}
			slices.Sort(counts)
			opts.Counts = slices.Compact(counts)
		}
	}
	// Padding comes after every source is in (policies, a unit's stack, a
	// process's filters); the report's policy lengths stay unpadded and
	// its header names the padding.
	for i, p := range progs {
		progs[i] = p.Padded(opts.Pad)
	}
	var variants []runner.Variant
	switch opts.Cache {
	case "on":
		variants = []runner.Variant{runner.VariantOn}
	case "defeat":
		variants = []runner.Variant{runner.VariantDefeat}
	default:
		variants = []runner.Variant{runner.VariantOn, runner.VariantDefeat}
	}
	var clipped string
	if !opts.CountsSet {
		// Default counts: a long policy (docker-default fits 20 times)
		// measures up to the deepest stack that fits instead of failing.
		if fit := maxFittingCount(progs, variants); fit < slices.Max(opts.Counts) {
			var keep []int
			for _, n := range opts.Counts {
				if n < fit {
					keep = append(keep, n)
				}
			}
			opts.Counts = append(keep, fit)
			clipped = fmt.Sprintf("at most %d of these filters fit MAX_INSNS_PER_PATH (32768 eBPF instructions), so the default counts stop there: %v (choose others with --filters)", fit, opts.Counts)
		}
	}
	maxN := slices.Max(opts.Counts)
	for _, v := range variants {
		if _, err := runner.StackFor(progs, runner.Cell{Variant: v, Filters: maxN}); err != nil {
			return fmt.Errorf("check stack of %d filters (%s): %w", maxN, v, err)
		}
	}
	cache, warnings, err := predictWorkload(progs, variants, maxN, opts.Workload)
	if clipped != "" {
		warnings = append(warnings, clipped)
	}
	if err != nil {
		return err
	}
	warnings = append(warnings, kernelWarnings(runner.CaptureEnvironment().Kernel)...)
	for _, w := range warnings {
		fmt.Fprintf(opts.IO.ErrOut, "warning: %s\n", w)
	}
	cpu := opts.CPU
	if cpu == -1 {
		cpu = runner.HighestCPU()
	}
	cfg := runner.Config{
		Programs: progs, Counts: opts.Counts, Variants: variants, Workload: opts.Workload,
		Trials: opts.Trials, Seed: opts.Seed, CPU: cpu, Iterations: opts.Iterations,
		Samples: opts.Samples, ControlIters: 200000, SpecAllow: opts.SpecAllow,
		Parallel: opts.Parallel,
	}
	var vnames []string
	for _, v := range variants {
		vnames = append(vnames, string(v))
	}
	if opts.TargetCI > 0 {
		cfg.MaxTrials = opts.MaxTrials
		cfg.MaxTime = opts.MaxTime
		cfg.Stop = func(s []runner.Sample) bool { return preciseEnough(s, vnames, opts) }
	}
	if cfg.CPU < 0 {
		cfg.CPU = -2
	}
	if !opts.Quiet && opts.IO.ErrTTY {
		cfg.Progress = newProgress(opts.IO.ErrOut)
	}
	// RunAdaptive calibrates the iterations (unless --iterations) and the
	// children's deadline.
	samples, info, runErr := runner.RunAdaptive(ctx, cfg)
	cfg.Iterations = info.Iterations
	partial := runErr != nil
	if errors.Is(runErr, context.Canceled) && (opts.Output == "" || len(samples) == 0) {
		if opts.Output == "" {
			return &interruptedError{msg: fmt.Sprintf("run interrupted after %d children; no result written (with -o FILE a partial result is kept)", len(samples)), err: runErr}
		}
		return &interruptedError{msg: fmt.Sprintf("run interrupted before the first child finished; nothing written to %s", strings.Join(opts.Outputs, ", ")), err: runErr}
	}
	if runErr != nil && !errors.Is(runErr, context.Canceled) {
		return fmt.Errorf("run: %w", runErr)
	}
	obs := make([]stats.Observation, len(samples))
	for i, s := range samples {
		obs[i] = stats.Observation{Variant: string(s.Variant), Filters: s.Filters, Block: s.Block, Seq: s.Seq, NsPerOp: s.NsPerOp}
	}
	res, err := stats.Analyze(obs, stats.Options{Confidence: opts.Confidence, Robust: opts.Robust, Seed: opts.Seed, Variants: vnames})
	if err != nil {
		return fmt.Errorf("analyze samples: %w", err)
	}
	if out, n := countOutliers(res); n > 0 && float64(out) > 0.05*float64(n) {
		advice := "means and t CIs suffer first: quiet the machine, add --trials, or use --robust (medians, bootstrap CIs)"
		if opts.Robust {
			advice = "quiet the machine or add --trials"
		}
		warnings = append(warnings, fmt.Sprintf("the machine looks noisy: %d of %d children are outliers by the median/MAD rule (kept in every estimate); %s", out, n, advice))
	}
	for _, s := range samples {
		if s.PinErr != "" {
			warnings = append(warnings, "the measuring thread ran unpinned: "+s.PinErr+"; results are noisier (choose an allowed CPU with --cpu)")
			break
		}
	}
	if len(samples) > 0 && samples[0].FiltersSeen < 0 {
		warnings = append(warnings, "this kernel does not report Seccomp_filters in /proc (before Linux 5.9): the installed filter count could not be verified")
	}
	if opts.TargetCI > 0 && (info.StopReason == runner.StopMaxTime || info.StopReason == runner.StopMaxTrials) {
		for _, f := range res.Fits {
			if preciseFit(f, opts) {
				continue
			}
			raise := "--max-time"
			if info.StopReason == runner.StopMaxTrials {
				raise = "--max-trials"
			}
			warnings = append(warnings, fmt.Sprintf("variant %q: --target-ci %s not reached (per-filter CI half-width %.2f ns after %d blocks, stopped by %s): the machine is too noisy for this precision in this budget; raise %s or quiet the machine",
				f.Variant, targetString(opts), f.PerFilterHalfWidth(), info.Blocks, info.StopReason, raise))
		}
	}
	doc := report.Build(report.Input{
		Tool:        report.Tool{Name: "seccompbench", Version: version()},
		Command:     strings.Join(opts.Args, " "),
		Created:     opts.Now(),
		Environment: runner.CaptureEnvironment(),
		Config: report.Config{
			Policies: pols, FilterCounts: opts.Counts, Workload: opts.Workload.Name, Op: opts.Workload.Op,
			Cache: opts.Cache, Variants: vnames, Trials: opts.Trials, Iterations: cfg.Iterations,
			SamplesPerChild: cfg.Samples, Seed: opts.Seed, Confidence: opts.Confidence, CPU: cfg.CPU,
			SpecAllow: opts.SpecAllow, Robust: opts.Robust, Pad: opts.Pad,
		},
		Samples: samples,
		Result:  res,
		Run: &report.RunInfo{Blocks: info.Blocks, StopReason: info.StopReason, ElapsedS: info.Elapsed.Seconds(),
			TargetCINs: targetNs(opts), TargetCIRel: targetRel(opts), Parallel: opts.Parallel, CPUs: info.CPUs},
		Drift:     driftTrends(samples, vnames, opts.Confidence),
		Linearity: linearityIfHomogeneous(progs, res, vnames, opts.Confidence),
		Cache:     cache,
		Setup:     setupCost(samples, opts.Confidence),
		Control:   controlSlowdown(samples, vnames, opts.Confidence),
		Partial:   partial,
		Warnings:  warnings,
	})
	if err := writeResult(opts, doc); err != nil {
		if partial {
			// Interrupted is what happened; the write error says where
			// the partial result went instead.
			return &interruptedError{msg: fmt.Sprintf("run interrupted after %d children; %v", len(samples), err), err: runErr}
		}
		return err
	}
	if partial {
		return &interruptedError{msg: fmt.Sprintf("run interrupted after %d children; partial result written to %s", len(samples), strings.Join(opts.Outputs, ", ")), err: runErr}
	}
	return nil
}

// openSystemd models the unit's filter stack and describes it for the
// report as one policy entry (instructions summed over its filters).
func openSystemd(opts *RunOptions) (*systemd.Stack, report.Policy, error) {
	t0 := time.Now()
	var unit *systemd.Stack
	var err error
	var sum [32]byte
	if opts.SystemdUnit != "" {
		data, rerr := os.ReadFile(opts.SystemdUnit)
		if rerr != nil {
			return nil, report.Policy{}, fmt.Errorf("read systemd unit: %w", rerr)
		}
		sum = sha256.Sum256(data)
		unit, err = systemd.ParseUnit(opts.SystemdUnit, data, systemd.Options{Compiler: opts.Compiler})
	} else {
		sum = sha256.Sum256([]byte(opts.SystemdDirectives))
		unit, err = systemd.ParseDirectives("--systemd", opts.SystemdDirectives, systemd.Options{Compiler: opts.Compiler})
	}
	if err != nil {
		return nil, report.Policy{}, fmt.Errorf("model systemd stack: %w", err)
	}
	if len(unit.Programs) == 0 {
		return nil, report.Policy{}, fmt.Errorf("model systemd stack: %s installs no seccomp filter (no SystemCallFilter= or hardening directive that uses seccomp)", unit.Unit)
	}
	n := 0
	for _, p := range unit.Programs {
		n += p.Len()
	}
	src := opts.SystemdUnit
	if src == "" {
		src = "--systemd " + opts.SystemdDirectives
	}
	return unit, report.Policy{Path: fmt.Sprintf("%s (systemd stack of %d filters)", src, len(unit.Programs)), SHA256: hex.EncodeToString(sum[:]),
		Instructions: n, CompileUs: float64(time.Since(t0).Nanoseconds()) / 1e3}, nil
}

// openPolicies opens each policy argument and describes it for the report.
func openPolicies(specs []string, o formats.OpenOptions) ([]*filters.Program, []report.Policy, error) {
	var progs []*filters.Program
	var pols []report.Policy
	for _, s := range specs {
		t0 := time.Now()
		p, err := formats.OpenWith(s, o)
		if errors.Is(err, formats.ErrUnsupportedFormat) {
			return nil, nil, &FlagError{Err: fmt.Errorf("open policy: %w", err)}
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, fmt.Errorf("open policy: %w; POLICY is a file, \"default\" or %q", err, oci.DockerDefaultName)
		}
		var pe *fs.PathError
		if errors.As(err, &pe) && errors.Is(pe.Err, syscall.EISDIR) {
			return nil, nil, fmt.Errorf("open policy %s: is a directory; POLICY is a file, \"default\" or %q", s, oci.DockerDefaultName)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("open policy: %w", err)
		}
		compile := time.Since(t0)
		progs = append(progs, p)
		pols = append(pols, report.Policy{Path: p.Source, SHA256: p.SourceSHA256, Instructions: p.Len(),
			CompileUs: float64(compile.Nanoseconds()) / 1e3})
	}
	return progs, pols, nil
}

// writeResult renders doc to every -o FILE (atomically) or stdout.
func writeResult(opts *RunOptions, doc *report.Document) error {
	outs := opts.outputs
	if len(outs) == 0 {
		outs = []outputSpec{{Format: opts.Format}}
	}
	return writeOutputs(outs, opts.IO.Out, opts.IO.ErrOut, doc)
}

// writeFileAtomic writes path through a temporary file in the same
// directory, renamed over path only when complete: a failed or interrupted
// write leaves any previous file untouched.
//
// A symbolic link is followed (the link stays, its target is replaced).
// Devices and pipes (/dev/null, /dev/stdout) cannot be replaced and are
// written directly; a directory is refused.
func writeFileAtomic(path string, render func(io.Writer) error) error {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		if fi.IsDir() {
			return fmt.Errorf("write %s: is a directory; give a file name", path)
		}
		return writeDirect(path, render)
	}
	target, err := outputTarget(path)
	if err != nil {
		return err
	}
	fail := func(err error) error {
		return fmt.Errorf("write %s: %w (any previous %s is untouched)", path, unwrapPath(err), path)
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".tmp*")
	if err != nil {
		return fail(err)
	}
	defer os.Remove(tmp.Name())
	if err := render(tmp); err != nil {
		tmp.Close()
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		return fail(err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp.Name(), target); err != nil {
		return fail(err)
	}
	return nil
}

// writeDirect renders into an existing device or pipe.
func writeDirect(path string, render func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := render(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, unwrapPath(err))
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, unwrapPath(err))
	}
	return nil
}

// setupCost summarizes the seccomp(2) install times over all children.
func setupCost(samples []runner.Sample, conf float64) *report.Setup {
	var per []float64
	var stackNs []float64
	maxN := 0
	for _, s := range samples {
		maxN = max(maxN, s.Filters)
	}
	for _, s := range samples {
		var tot int64
		for _, ns := range s.InstallNs {
			per = append(per, float64(ns))
			tot += ns
		}
		if s.Filters == maxN && maxN > 0 {
			stackNs = append(stackNs, float64(tot))
		}
	}
	if len(per) < 2 {
		return nil
	}
	sum := stats.Normal(per, conf)
	return &report.Setup{PerFilterNs: sum.Mean, PerFilterCILowNs: sum.Lo, PerFilterCIHiNs: sum.Hi,
		StackNs: stats.Normal(stackNs, conf).Mean, StackFilter: maxN}
}

// controlSlowdown compares the control loop after installing with before,
// per variant, over children with at least one filter.
func controlSlowdown(samples []runner.Sample, variants []string, conf float64) []report.Control {
	var out []report.Control
	for _, v := range variants {
		var before, after []float64
		for _, s := range samples {
			if string(s.Variant) == v && s.Filters > 0 && s.ControlBeforeNs > 0 {
				before = append(before, s.ControlBeforeNs)
				after = append(after, s.ControlAfterNs)
			}
		}
		if len(before) < 2 {
			continue
		}
		d := stats.Welch(before, after, conf)
		c := report.Control{Variant: v, BeforeNs: stats.Normal(before, conf).Mean, AfterNs: stats.Normal(after, conf).Mean,
			SlowdownPct: d.Pct, SlowdownPctLow: d.PctLo, SlowdownPctHigh: d.PctHi}
		if math.IsNaN(c.SlowdownPct) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// version returns the module version and VCS revision from build info
// ("devel" without either: a build with -buildvcs=false, as GOFLAGS on the
// project's machines sets, records no revision).
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	v := bi.Main.Version
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	for _, s := range bi.Settings {
		// A pseudo-version (v0.0.0-date-rev) already names the revision.
		if s.Key == "vcs.revision" && len(s.Value) >= 12 && !strings.Contains(v, s.Value[:12]) {
			v += "+" + s.Value[:12]
		}
	}
	return v
}

// preciseEnough reports whether every variant's per-filter CI half-width
// meets --target-ci.
func preciseEnough(samples []runner.Sample, variants []string, opts *RunOptions) bool {
	for _, v := range variants {
		var obs []stats.Observation
		for _, s := range samples {
			if string(s.Variant) == v {
				obs = append(obs, stats.Observation{Variant: v, Filters: s.Filters, Block: s.Block, Seq: s.Seq, NsPerOp: s.NsPerOp})
			}
		}
		f, err := stats.FitStack(obs, opts.Confidence)
		if err != nil || !preciseFit(f, opts) {
			return false
		}
	}
	return true
}

// preciseFit reports whether one variant's fit meets --target-ci. A
// relative target is a fraction of the per-filter estimate; when that
// estimate is indistinguishable from 0 (its interval includes 0, as for
// syscalls the action cache serves), no fraction of it can be reached, so
// the target becomes that fraction of 1 % of the 0-filter baseline:
// 5 % means "per-filter cost known to ±0.05 ns" for a 100 ns syscall.
func preciseFit(f stats.Fit, opts *RunOptions) bool {
	if !opts.TargetCIRel {
		return f.PreciseTo(opts.TargetCI, 0)
	}
	if f.PerFilterLo <= 0 && f.PerFilterHi >= 0 && !math.IsNaN(f.Baseline) {
		return f.PreciseTo(opts.TargetCI*0.01*math.Abs(f.Baseline), 0)
	}
	return f.PreciseTo(0, opts.TargetCI)
}

func targetString(o *RunOptions) string {
	if o.TargetCIRel {
		return fmt.Sprintf("%g%%", o.TargetCI*100)
	}
	return fmt.Sprintf("%g ns", o.TargetCI)
}

func targetNs(o *RunOptions) float64 {
	if o.TargetCIRel {
		return 0
	}
	return o.TargetCI
}

func targetRel(o *RunOptions) float64 {
	if o.TargetCIRel {
		return o.TargetCI
	}
	return 0
}

// driftTrends estimates, per variant, the drift of the baseline (N = 0)
// cells over the run: they recur in every block, so their trend is the
// machine's.
func driftTrends(samples []runner.Sample, variants []string, conf float64) []report.Drift {
	var out []report.Drift
	for _, v := range variants {
		var base []stats.Observation
		for _, s := range samples {
			if string(s.Variant) == v && s.Filters == 0 {
				base = append(base, stats.Observation{Variant: v, Filters: 0, Block: s.Block, Seq: s.Seq, NsPerOp: s.NsPerOp})
			}
		}
		tr, err := stats.DriftEstimate(base, conf)
		if err != nil || math.IsNaN(tr.SlopeLo) || math.IsNaN(tr.SlopeHi) {
			continue // too few baseline children for an interval
		}
		out = append(out, report.Drift{Variant: v, SlopeNsPerChild: tr.Slope, SlopeCILow: tr.SlopeLo, SlopeCIHigh: tr.SlopeHi,
			OverRunNs: tr.Slope * float64(tr.SeqSpan), P: tr.P})
	}
	return out
}

// countOutliers returns the children flagged as outliers and all children.
func countOutliers(res stats.Result) (out, n int) {
	for _, c := range res.Cells {
		out += c.Outliers
		n += c.Summary.N
	}
	return out, n
}

// linearity compares, per variant, the per-filter cost between the two
// smallest filter counts ≥ 1 with that between the two largest: a linear
// model assumes they are equal. They differ when their intervals do not
// overlap.
func linearity(res stats.Result, variants []string, conf float64) []report.Linearity {
	var out []report.Linearity
	for _, v := range variants {
		var cells []stats.CellResult
		for _, c := range res.Cells {
			if c.Variant == v && c.Filters >= 1 {
				cells = append(cells, c)
			}
		}
		if len(cells) < 4 {
			continue
		}
		slope := func(a, b stats.CellResult) (float64, float64, float64) {
			d := stats.Welch(a.Samples, b.Samples, conf)
			n := float64(b.Filters - a.Filters)
			return d.Delta / n, d.Lo / n, d.Hi / n
		}
		lo, hi := cells[:2], cells[len(cells)-2:]
		l := report.Linearity{Variant: v, LowFrom: lo[0].Filters, LowTo: lo[1].Filters, HighFrom: hi[0].Filters, HighTo: hi[1].Filters}
		l.LowNs, l.LowCILowNs, l.LowCIHighNs = slope(lo[0], lo[1])
		l.HighNs, l.HighCILowNs, l.HighCIHighNs = slope(hi[0], hi[1])
		if math.IsNaN(l.LowNs) || math.IsNaN(l.HighNs) || math.IsNaN(l.LowCILowNs) || math.IsNaN(l.HighCILowNs) {
			continue
		}
		l.DiffersFromFit = l.LowCIHighNs < l.HighCILowNs || l.HighCIHighNs < l.LowCILowNs
		out = append(out, l)
	}
	return out
}

// linearityIfHomogeneous runs the depth check only when every filter of the
// stack is the same program: in a stack of different filters (a systemd
// unit's, or several policies cycled) a slope between two counts also
// depends on which filters those counts add.
func linearityIfHomogeneous(progs []*filters.Program, res stats.Result, variants []string, conf float64) []report.Linearity {
	for _, p := range progs[1:] {
		if p.SHA256() != progs[0].SHA256() {
			return nil
		}
	}
	return linearity(res, variants, conf)
}

// interruptedError reports an interrupted run in the user's words; it
// unwraps to the context's error (context.Canceled), which maps to exit
// code 130.
type interruptedError struct {
	msg string
	err error
}

func (e *interruptedError) Error() string { return e.msg }
func (e *interruptedError) Unwrap() error { return e.err }

// maxFittingCount returns the largest filter count whose stack fits the
// kernel's limits for every variant (the defeated programs are one
// instruction longer).
func maxFittingCount(progs []*filters.Program, variants []runner.Variant) int {
	fit := -1
	for _, v := range variants {
		if n := filters.MaxStackCount(runner.VariantPrograms(progs, v)); fit < 0 || n < fit {
			fit = n
		}
	}
	return fit
}
