package runjob

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"github.com/seccompbench/seccompbench/runner"
	"github.com/seccompbench/seccompbench/runner/command"
	"github.com/seccompbench/seccompbench/runner/cpulock"
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/runner/workload"
	"github.com/seccompbench/seccompbench/stats"
)

// DefaultSamples and MaxSamples bound --samples, the timed samples per
// child (the child reports their median).
const (
	DefaultSamples = 5
	MaxSamples     = 1000
)

// Flags are the values of run's flags that are parsed into a Job by
// Job.Parse: text the user typed, and values whose meaning depends on
// other flags.
type Flags struct {
	Counts, Workload, Syscall, TargetCI, Compiler, NotifyReply string
	// Budget is --budget (stats.ParseBudget); "" for none.
	Budget string
	// AB is --ab, the command workload's A/B design.
	AB       string
	PathDirs int
	// Paired is --paired: each child also times the workload before
	// installing its stack (Job.Unpaired is its negation).
	Paired  bool
	CPUWait time.Duration
	Load    cmdutil.LoadFlags
	// Command holds the command workload's flags; its Argv is what follows
	// "--".
	Command command.Spec
	// Container holds the runtime path's flags (--bundle, --rootfs).
	Container cmdutil.ContainerFlags
	Out       output.Flags
}

// DefaultCounts is run's --filters default: the stack depths measured
// when neither --filters nor a systemd unit or --pid picks them.
const DefaultCounts = "0,1,2,4,8,16,32"

// DefaultDepth is the deepest of DefaultCounts, in filters: the stack lint
// checks seccomp(2) installs under when --filters is not given.
const DefaultDepth = 32

// AddFlags adds run's flags to fs, storing into j and fl.
func AddFlags(fs *pflag.FlagSet, j *Job, fl *Flags) {
	fs.StringVar(&fl.Counts, "filters", DefaultCounts, "filter `counts` to measure: a list (0,1,2), ranges (0-32) and strides (0-32/4)")
	fs.StringVar(&fl.Workload, "workload", "mix", workload.Usage()+", or command (a whole program: --workload command -- CMD [ARG...])")
	fs.StringVar(&fl.Command.Prepare, "prepare", "", "command workload: shell `CMD` run before every run of the command (unfiltered, untimed), e.g. to drop caches")
	fs.IntVar(&fl.Command.Warmup, "warmup", 1, "command workload: untimed runs per child before the timed ones")
	fs.IntVar(&fl.Command.Runs, "runs", 0, "command workload: timed runs per child, R (0: calibrate to ~300ms of runs per child)")
	fs.BoolVar(&fl.Command.IgnoreFailure, "ignore-failure", false, "command workload: keep runs that exit non-zero or are killed instead of failing the cell")
	fs.StringVar(&fl.AB, "ab", string(command.DesignChildren), "command workload: children (each child runs under its cell's stack), pairs (each child alternates runs without filters and with its cell's stack, order random per pair: the added time from pair differences) or duet (a pair's two runs at once on two CPUs)")
	fs.BoolVar(&fl.Command.ShowOutput, "show-output", false, "command workload: send the command's output to stderr (shown with a failing cell) instead of /dev/null")
	fs.StringVar(&fl.Syscall, "syscall", "", "loop on one syscall from the safe list instead, `NAME[:a0,a1,a2]` (e.g. getppid, read:-1, openat)")
	fs.IntVar(&fl.PathDirs, "path-dirs", 8, "execvpe-miss: PATH directories searched, the program is in the last")
	fs.BoolVar(&j.Notify.Sync, "notify-sync", false, "notify workload: set SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP on the listener (Linux 6.6+)")
	fs.StringVar(&fl.NotifyReply, "notify-reply", "continue", "notify workload: the supervisor's answer, `continue` (SECCOMP_USER_NOTIF_FLAG_CONTINUE: the syscall runs), errno (EPERM) or errno:N")
	fs.BoolVar(&j.JITMeasure, "jit-measure", false, "measure the deepest stack's JIT memory (root: lowers bpf_jit_limit for moments, restores it) instead of modelling it")
	fs.BoolVar(&fl.Paired, "paired", true, "each child also times the workload before installing its stack, and the fit adjusts for that baseline (docs/methodology-variation.md); --paired=false for the unpaired design")
	fs.IntVar(&j.Parallel, "parallel", 1, "run N pinned copies of the workload at once per cell")
	fs.StringVar(&fl.TargetCI, "target-ci", "", "keep adding blocks until the per-filter CI half-width is at most `NS`, or a % of the estimate (e.g. 5%; for estimates ~0, that % of 1% of the 0-filter ns/op)")
	fs.StringVar(&fl.Budget, "budget", "", "decide whether the added cost is within `BUDGET`, measuring in rounds until a one-sided bound at --confidence decides or --max-time passes (exit 0 within, 3 over, 4 undecided): per syscall for a loop (50ns, or 25% of the bare op; the per-filter cost at the deepest count and the entry cost), per run with --workload command (5ms, or 2% of the unfiltered run; wall and CPU time; implies --ab pairs)")
	fs.DurationVar(&j.MaxTime, "max-time", 60*time.Second, "with --target-ci or --budget: stop adding blocks after this long; with --workload command: a hard bound on the whole run (no block starts after it once two are done)")
	fs.IntVar(&j.MaxTrials, "max-trials", 200, "with --target-ci: at most this many blocks")
	fs.StringVar(&j.Cache, "cache", "both", "measure the filters as installed (on), with the action cache defeated (defeat), or both")
	fs.IntVar(&j.Trials, "trials", 20, "randomized blocks; each runs every cell once in a fresh child")
	fs.Uint64Var(&j.Seed, "seed", 1, "seed of the block shuffles and the bootstrap")
	fs.IntVar(&j.CPU, "cpu", -1, "CPU to pin the measuring thread to (-1: the highest allowed CPU that no other run is measuring on; -2: no pinning)")
	fs.DurationVar(&fl.CPUWait, "cpu-wait", cpulock.DefaultCPUWait, "how long to wait for a measuring CPU another seccompbench run holds before refusing (0: refuse at once)")
	fs.Float64Var(&j.Confidence, "confidence", 0.95, "confidence level of every interval, a fraction in (0,1)")
	output.AddFlags(fs, &fl.Out, output.RunFormats, "table", "the result")
	output.AddExplainFlag(fs, &fl.Out)
	fs.Uint64Var(&j.Iterations, "iterations", 0, "loop iterations per sample (0: calibrate to ~2ms per sample)")
	fs.IntVar(&j.Samples, "samples", DefaultSamples, "timed samples per child; the child's value is their median")
	fs.BoolVar(&j.SpecAllow, "spec-allow", false, "install filters with SECCOMP_FILTER_FLAG_SPEC_ALLOW (no speculative store bypass mitigation)")
	fs.IntVar(&j.Pad, "pad", 0, "append exactly `N` unreachable instructions to every filter in every child (default: each child draws its own pad from 0-16 from the seed, so the CI covers JIT placement; see docs/methodology-kernel.md)")
	fs.StringVar(&j.Loader, "loader", "unprivileged", "load the filters without CAP_SYS_ADMIN as runc and non-root services do (unprivileged), with it (privileged), or both as separate variants (with --systemd-unit the default follows the unit)")
	fs.BoolVar(&j.Robust, "robust", false, "use medians with bootstrap CIs instead of means with t CIs")
	fs.IntVar(&j.Pid, "pid", 0, "replay exactly the filter stack of running process `PID` (dumped as inspect does; counts default to 0 and the full depth)")
	fs.StringVar(&j.SystemdUnit, "systemd-unit", "", "put the filter stack "+cmdutil.ChosenSystemd+" installs for this unit `FILE` first (counts default to 0, each directive's prefix and the full stack)")
	fs.StringVar(&j.SystemdDirectives, "systemd", "", "like --systemd-unit, from directive text, e.g. 'SystemCallFilter=@system-service'")
	fs.StringVar(&fl.Compiler, "compiler", "native", "who lays out OCI profiles and systemd filters: native or libseccomp (as runc and systemd install them; needs a -tags libseccomp build)")
	cmdutil.AddContainerFlags(fs, &fl.Container)
	cmdutil.AddLoadFlags(fs, &fl.Load)
}

// Parse fills j from fl and the arguments: policies are the positional
// arguments before "--", argv what follows it; changed reports whether
// the user gave a flag (cobra's Flags().Changed). Every error is a
// *cmdutil.FlagError (exit code 2) naming the flag.
func (j *Job) Parse(fl *Flags, policies, argv []string, changed func(string) bool) error {
	fl.Command.Argv = argv
	j.Unpaired = !fl.Paired
	for _, step := range []func(*Flags, []string, func(string) bool) error{j.parseSources, j.parseWorkload, j.parseMeasure, j.parseOutput} {
		if err := step(fl, policies, changed); err != nil {
			return err
		}
	}
	return nil
}

// parseSources decides where the stack comes from: the policies (the
// embedded default without any), a systemd unit or directives, or a
// process (--pid).
func (j *Job) parseSources(fl *Flags, args []string, changed func(string) bool) error {
	j.Policies = args
	if len(j.Policies) == 0 {
		j.Policies = []string{"default"}
	}
	var err error
	j.CountsSet = changed("filters")
	if j.Open, err = fl.Load.Options(nil); err != nil {
		return err
	}
	if err := cmdutil.CheckLocalArch("run", j.Open); err != nil {
		return err
	}
	j.FormatIn, j.OCI = j.Open.Format, j.Open.OCI
	if j.Compiler, err = scmp.ParseCompiler(fl.Compiler); err != nil {
		return &cmdutil.FlagError{Err: fmt.Errorf("--compiler: %w", err)}
	}
	if j.SystemdUnit != "" && j.SystemdDirectives != "" {
		return cmdutil.FlagErrorf("--systemd-unit and --systemd exclude each other")
	}
	if (j.SystemdUnit != "" || j.SystemdDirectives != "") && len(args) == 0 {
		j.Policies = nil
	}
	if j.Pid != 0 {
		if j.Pid < 0 || len(args) > 0 {
			return cmdutil.FlagErrorf("--pid: give a positive PID and no POLICY (the process's own stack is replayed)")
		}
		j.Policies = nil
	}
	if j.Counts, err = ParseCounts(fl.Counts); err != nil {
		return &cmdutil.FlagError{Err: fmt.Errorf("--filters: %w", err)}
	}
	return nil
}

// parseWorkload decides what each child times: a loop of --workload or
// --syscall, the notify workload, or a command given after "--".
func (j *Job) parseWorkload(fl *Flags, policies []string, changed func(string) bool) error {
	var err error
	if fl.Workload == "command" {
		if len(fl.Command.Argv) == 0 {
			return cmdutil.FlagErrorf("--workload command: give the command after --, e.g. run default --workload command -- find /usr/share -name x")
		}
		if fl.Command.Design, err = command.ParseDesign(fl.AB); err != nil {
			return &cmdutil.FlagError{Err: fmt.Errorf("--ab: %w", err)}
		}
		if fl.Budget != "" {
			// The verdict rests on pair differences (stats.Decide).
			if !changed("ab") {
				fl.Command.Design = command.DesignPairs
			} else if !fl.Command.Design.Paired() {
				return cmdutil.FlagErrorf("--budget: needs a paired design (--ab pairs or duet), not --ab %s", fl.AB)
			}
		}
		if fl.Command.Design != command.DesignChildren && fl.Container.Set() {
			return cmdutil.FlagErrorf("--ab %s: containers (--bundle, --rootfs) are measured with --ab children only", fl.AB)
		}
		if j.Workload, err = runner.CommandWorkload(fl.Command); err != nil {
			return &cmdutil.FlagError{Err: fmt.Errorf("--workload command: %w", err)}
		}
	} else {
		if len(fl.Command.Argv) > 0 {
			return cmdutil.FlagErrorf("a command after -- needs --workload command")
		}
		if fl.Budget != "" && !fl.Paired {
			return cmdutil.FlagErrorf("--budget: a loop workload is judged on each child's paired baseline; drop --paired=false")
		}
		for _, f := range []string{"prepare", "warmup", "runs", "ignore-failure", "show-output", "ab"} {
			if changed(f) {
				return cmdutil.FlagErrorf("--%s: needs --workload command", f)
			}
		}
		s, err := workload.Lookup(fl.Workload)
		if err != nil {
			return &cmdutil.FlagError{Err: fmt.Errorf("--workload: %w", err)}
		}
		j.Workload = runner.Workload{Spec: s}
	}
	if changed("path-dirs") {
		if wi, _ := workload.Find(fl.Workload); !wi.PathDirsParam || fl.PathDirs < 1 || fl.PathDirs > 64 {
			return cmdutil.FlagErrorf("--path-dirs: needs --workload execvpe-miss and a value from 1 to 64")
		}
		j.Workload = runner.Workload{Spec: workload.ExecvpeMiss(fl.PathDirs)}
	}
	if (changed("notify-sync") || changed("notify-reply")) && !j.Workload.IsNotify() {
		return cmdutil.FlagErrorf("--notify-sync and --notify-reply need --workload notify")
	}
	if j.Notify.Errno, err = ParseNotifyReply(fl.NotifyReply); err != nil {
		return &cmdutil.FlagError{Err: fmt.Errorf("--notify-reply: %w", err)}
	}
	if err := j.parseSyscall(fl.Syscall, changed); err != nil {
		return err
	}
	return j.parseContainer(fl, policies, changed)
}

// parseSyscall applies --syscall: the notified syscall of the notify
// workload, else a loop on that syscall.
func (j *Job) parseSyscall(spec string, changed func(string) bool) error {
	if spec == "" {
		return nil
	}
	safe := func(err error) error {
		return &cmdutil.FlagError{Err: fmt.Errorf("--syscall: %w; safe list:\n  %s", err, strings.Join(workload.SafeSyscalls(), "\n  "))}
	}
	if j.Workload.IsNotify() {
		s, err := workload.Notify(spec)
		if err != nil {
			return safe(err)
		}
		j.Workload = runner.Workload{Spec: s}
		return nil
	}
	if changed("workload") {
		return cmdutil.FlagErrorf("--syscall and --workload exclude each other")
	}
	s, err := workload.Syscall(spec)
	if err != nil {
		return safe(err)
	}
	j.Workload = runner.Workload{Spec: s}
	return nil
}

// parseMeasure checks how the cells are measured: precision goal, CPUs,
// copies, variants, confidence, blocks, pads, loaders and samples.
func (j *Job) parseMeasure(fl *Flags, _ []string, changed func(string) bool) error {
	if err := j.parseTargetCI(fl.TargetCI); err != nil {
		return err
	}
	if err := j.parseBudget(fl.Budget, changed); err != nil {
		return err
	}
	if err := j.parseCPUs(fl.CPUWait); err != nil {
		return err
	}
	switch j.Cache {
	case "on", "defeat", "both":
	default:
		return cmdutil.FlagErrorf("--cache: %q is not on, defeat or both", j.Cache)
	}
	if err := stats.CheckConfidence(j.Confidence); err != nil {
		return &cmdutil.FlagError{Err: fmt.Errorf("--confidence: %w", err)}
	}
	if j.Trials < 2 {
		return cmdutil.FlagErrorf("--trials: need at least 2 trials for a confidence interval, got %d", j.Trials)
	}
	if j.Pad < 0 || j.Pad > filters.MaxInsns {
		return cmdutil.FlagErrorf("--pad: %d instructions; want 0 to %d", j.Pad, filters.MaxInsns)
	}
	j.PadSet = changed("pad")
	var err error
	if j.Loaders, err = result.Loaders(j.Loader); err != nil {
		return &cmdutil.FlagError{Err: fmt.Errorf("--loader: %w", err)}
	}
	j.LoaderSet = changed("loader")
	if j.Samples < 1 || j.Samples > MaxSamples {
		return cmdutil.FlagErrorf("--samples: %d timed samples per child; want 1 to %d", j.Samples, MaxSamples)
	}
	return nil
}

// parseBudget parses --budget into j.Budget. A budget measures in
// rounds from the first two blocks on (--trials 2 unless given, up to
// --max-trials, default 1000 then), so it cannot go with --target-ci.
// Without --filters it measures only what it judges: the policy alone (1
// filter) for the command workload, 1 and DefaultDepth filters for a loop
// (the entry cost and the per-filter cost at depth); a systemd unit or
// --pid still sets its own counts (openSources).
func (j *Job) parseBudget(s string, changed func(string) bool) error {
	if s == "" {
		return nil
	}
	b, err := stats.ParseBudget(s)
	if err != nil {
		return &cmdutil.FlagError{Err: fmt.Errorf("--budget: %w", err)}
	}
	if j.TargetCI > 0 {
		return cmdutil.FlagErrorf("--budget and --target-ci: give one stop rule")
	}
	j.Budget = &b
	if !changed("trials") {
		j.Trials = 2
	}
	if !changed("max-trials") {
		j.MaxTrials = 1000
	}
	if !changed("filters") {
		j.Counts = []int{1, DefaultDepth}
		if j.Workload.Command != nil {
			j.Counts = []int{1}
		}
	}
	return nil
}

// parseTargetCI parses --target-ci: ns, or a percentage like 5%.
func (j *Job) parseTargetCI(s string) error {
	if s == "" {
		return nil
	}
	v := strings.TrimSuffix(s, "%")
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || !(x > 0) {
		return cmdutil.FlagErrorf("--target-ci: %q is not a positive number of ns or a percentage like 5%%", s)
	}
	j.TargetCI, j.TargetCIRel = x, v != s
	if j.TargetCIRel {
		j.TargetCI = x / 100
	}
	return nil
}

// parseCPUs checks --cpu, --cpu-wait and --parallel against the CPUs this
// process may run on.
func (j *Job) parseCPUs(cpuWait time.Duration) error {
	if err := runner.CheckCPU(j.CPU); err != nil {
		return &cmdutil.FlagError{Err: fmt.Errorf("--cpu: %w", err)}
	}
	allowed := cpulock.AllowedCPUs()
	switch {
	case cpuWait < 0:
		return cmdutil.FlagErrorf("--cpu-wait: %v is negative", cpuWait)
	case cpuWait == 0:
		j.CPUWait = -1 // refuse at once
	default:
		j.CPUWait = cpuWait
	}
	if j.Parallel < 1 || j.Parallel > 256 {
		return cmdutil.FlagErrorf("--parallel: %d is not between 1 and 256", j.Parallel)
	}
	if j.Parallel > 1 && j.CPU != -2 && allowed != nil && j.Parallel > len(allowed) {
		return cmdutil.FlagErrorf("--parallel: %d copies but this process may run on %d CPUs (%v): pinned copies would share CPUs and time each other's waits; use at most %d, or --cpu -2 to run them unpinned on purpose",
			j.Parallel, len(allowed), allowed, len(allowed))
	}
	return nil
}

// parseOutput resolves --format and -o into what to write.
func (j *Job) parseOutput(fl *Flags, _ []string, changed func(string) bool) error {
	var err error
	j.Format, j.Outputs = fl.Out.Format, fl.Out.Outputs
	if j.Specs, err = fl.Out.Resolve(output.RunFormats, changed("format")); err != nil {
		return err
	}
	if len(j.Outputs) > 0 {
		j.Output = j.Outputs[0]
	}
	return nil
}

// ParseCounts parses a --filters value: comma-separated counts, ranges
// "a-b" and strided ranges "a-b/s". The result is sorted and deduplicated.
// Counts must lie in [0, 4096].
func ParseCounts(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, step, err := parseCountRange(s, strings.TrimSpace(part))
		if err != nil {
			return nil, err
		}
		for n := lo; n <= hi; n += step {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// parseCountRange parses one element of the --filters value s.
func parseCountRange(s, part string) (lo, hi, step int, err error) {
	if part == "" {
		return 0, 0, 0, fmt.Errorf("empty element in %q", s)
	}
	rng, step := part, 1
	if r, st, ok := strings.Cut(part, "/"); ok {
		n, err := strconv.Atoi(st)
		if err != nil || n < 1 {
			return 0, 0, 0, fmt.Errorf("bad stride %q in %q: want a positive integer", st, part)
		}
		rng, step = r, n
	}
	if strings.HasPrefix(rng, "-") {
		return 0, 0, 0, fmt.Errorf("negative count %q: counts go from 0 to 4096", part)
	}
	if a, b, ok := strings.Cut(rng, "-"); ok {
		var err1, err2 error
		lo, err1 = strconv.Atoi(a)
		hi, err2 = strconv.Atoi(b)
		if err1 != nil || err2 != nil || lo > hi {
			return 0, 0, 0, fmt.Errorf("bad range %q: want LOW-HIGH with LOW <= HIGH", rng)
		}
	} else {
		n, err := strconv.Atoi(rng)
		if err != nil {
			return 0, 0, 0, fmt.Errorf("bad count %q: want a number, a range 0-32 or 0-32/4", part)
		}
		lo, hi = n, n
	}
	if lo < 0 || hi > 4096 {
		return 0, 0, 0, fmt.Errorf("count out of range in %q: counts go from 0 to 4096", part)
	}
	return lo, hi, step, nil
}

// ParseNotifyReply parses --notify-reply: "continue" (0) or "errno" /
// "errno:N" (N a positive errno up to 4095, default EPERM).
func ParseNotifyReply(s string) (syscall.Errno, error) {
	switch s {
	case "continue":
		return 0, nil
	case "errno":
		return syscall.EPERM, nil
	}
	if v, ok := strings.CutPrefix(s, "errno:"); ok {
		if n, err := strconv.Atoi(v); err == nil && n > 0 && n <= 4095 {
			return syscall.Errno(n), nil
		}
	}
	return 0, fmt.Errorf("%q is not continue, errno or errno:N (N from 1 to 4095)", s)
}
