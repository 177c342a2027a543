package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/runjob"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"github.com/seccompbench/seccompbench/runner"
	"github.com/seccompbench/seccompbench/runner/command"
	"github.com/seccompbench/seccompbench/runner/cpulock"
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/stats"
)

// defaultSamples and maxSamples bound --samples, the timed samples per
// child (the child reports their median).
const (
	defaultSamples = 5
	maxSamples     = 1000
)

// RunOptions are the flags and arguments of `seccompbench run`: the
// streams, clock and context, and the job to measure.
type RunOptions struct {
	IO      *cmdutil.IOStreams
	Now     func() time.Time
	Context context.Context

	runjob.Job
}

// NewCmdRun builds `seccompbench run`. runF, if not nil, replaces runRun
// (tests use it to check flag parsing).
func NewCmdRun(f *cmdutil.Factory, runF func(*RunOptions) error) *cobra.Command {
	opts := &RunOptions{IO: f.IO, Now: f.Now}
	var counts, workload, syscallSpec, targetCI string
	var pathDirs int
	var paired bool
	var cpuWait time.Duration
	var compiler, notifyReply string
	var load cmdutil.LoadFlags
	var cmdSpec command.Spec
	cmd := &cobra.Command{
		Use:   "run [POLICY...] [--workload command -- CMD [ARG...]]",
		Short: "Measure the per-syscall cost of a policy stacked 0..32 deep",
		Long: `Measure what a seccomp policy adds to every syscall, and how that grows as
filters stack. Each (variant, filter count) cell runs in a fresh child
process, in randomized blocks; the child installs the stack on a pinned
thread and times a raw syscall loop.

POLICY is a policy file: YAML or JSON in the Elastic Beats schema, a
Docker/OCI seccomp profile (JSON), raw BPF (struct sock_filter array, as
bwrap --seccomp reads), a systemd unit (its modeled stack; counts default
as with --systemd-unit), a Kubernetes SeccompProfile, a Firecracker
seccompiler file (--thread picks the filter), an LXC/Incus policy or a
minijail policy; the format is detected from the content (--format-in
forces it); "-" reads standard input. "default" is the embedded default
policy (used when none is given), "docker-default" Docker's default profile.
Several policies form the stack by cycling: with P1 P2 and 5 filters the
stack is P1 P2 P1 P2 P1, P1 installed first.

Variants: "on" installs the filters as compiled, so the kernel's action cache
(Linux 5.11+) may skip them; "defeat" prepends ld [instruction_pointer] to
each filter, which keeps every verdict but makes every filter run on every
syscall (as on older kernels or with argument rules).

--workload command -- CMD [ARG...] times a whole program instead of a loop:
each run of CMD is a fresh process under the stack (installed on all its
threads with SECCOMP_FILTER_FLAG_TSYNC, as a runtime does; its children
inherit it), stdin /dev/null, output discarded; ns/op is one run, from
execve to reaping, and its CPU time is reported beside it. The report
separates what installing the stack costs once per process from what CMD
pays while running, and says which dominates. Every run must exit 0
(--ignore-failure keeps failing runs); a run killed by the stack names the
syscall when the kernel logged it. --max-time bounds the whole run.`,
		Example: `  seccompbench run
  seccompbench run --cache defeat --workload getpid --filters 0,1,2,4,8,16,32
  seccompbench run testdata/policies/denylist.yaml --filters 0-32/8 --format json -o result.json
  seccompbench run default --workload command -- find /usr/share -name x`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Context = cmd.Context()
			if dash := cmd.ArgsLenAtDash(); dash >= 0 {
				cmdSpec.Argv = args[dash:]
				args = args[:dash]
			}
			opts.Policies = args
			if len(opts.Policies) == 0 {
				opts.Policies = []string{"default"}
			}
			var err error
			opts.CountsSet = cmd.Flags().Changed("filters")
			if opts.Open, err = load.Options(nil); err != nil {
				return err
			}
			if err := cmdutil.CheckLocalArch("run", opts.Open); err != nil {
				return err
			}
			opts.FormatIn, opts.OCI = opts.Open.Format, opts.Open.OCI
			if opts.Compiler, err = scmp.ParseCompiler(compiler); err != nil {
				return &cmdutil.FlagError{Err: fmt.Errorf("--compiler: %w", err)}
			}
			if opts.SystemdUnit != "" && opts.SystemdDirectives != "" {
				return cmdutil.FlagErrorf("--systemd-unit and --systemd exclude each other")
			}
			if (opts.SystemdUnit != "" || opts.SystemdDirectives != "") && len(args) == 0 {
				opts.Policies = nil
			}
			if opts.Pid != 0 {
				if opts.Pid < 0 || len(args) > 0 {
					return cmdutil.FlagErrorf("--pid: give a positive PID and no POLICY (the process's own stack is replayed)")
				}
				opts.Policies = nil
			}
			if opts.Counts, err = ParseCounts(counts); err != nil {
				return &cmdutil.FlagError{Err: fmt.Errorf("--filters: %w", err)}
			}
			if workload == "command" {
				if len(cmdSpec.Argv) == 0 {
					return cmdutil.FlagErrorf("--workload command: give the command after --, e.g. run default --workload command -- find /usr/share -name x")
				}
				if opts.Workload, err = runner.CommandWorkload(cmdSpec); err != nil {
					return &cmdutil.FlagError{Err: fmt.Errorf("--workload command: %w", err)}
				}
			} else {
				if len(cmdSpec.Argv) > 0 {
					return cmdutil.FlagErrorf("a command after -- needs --workload command")
				}
				for _, f := range []string{"prepare", "warmup", "runs", "ignore-failure", "show-output"} {
					if cmd.Flags().Changed(f) {
						return cmdutil.FlagErrorf("--%s: needs --workload command", f)
					}
				}
				if opts.Workload, err = runner.LookupWorkload(workload); err != nil {
					return &cmdutil.FlagError{Err: fmt.Errorf("--workload: %w", err)}
				}
			}
			if cmd.Flags().Changed("path-dirs") {
				if wi, _ := runner.FindWorkload(workload); !wi.PathDirsParam || pathDirs < 1 || pathDirs > 64 {
					return cmdutil.FlagErrorf("--path-dirs: needs --workload execvpe-miss and a value from 1 to 64")
				}
				opts.Workload = runner.ExecvpeMissWorkload(pathDirs)
			}
			if cmd.Flags().Changed("notify-sync") || cmd.Flags().Changed("notify-reply") {
				if !opts.Workload.IsNotify() {
					return cmdutil.FlagErrorf("--notify-sync and --notify-reply need --workload notify")
				}
			}
			if opts.Notify.Errno, err = parseNotifyReply(notifyReply); err != nil {
				return &cmdutil.FlagError{Err: fmt.Errorf("--notify-reply: %w", err)}
			}
			if syscallSpec != "" && opts.Workload.IsNotify() {
				// --syscall names the notified syscall.
				if opts.Workload, err = runner.NotifyWorkload(syscallSpec); err != nil {
					return &cmdutil.FlagError{Err: fmt.Errorf("--syscall: %w; safe list:\n  %s", err, strings.Join(runner.SafeSyscalls(), "\n  "))}
				}
				syscallSpec = ""
			}
			if syscallSpec != "" {
				if cmd.Flags().Changed("workload") {
					return cmdutil.FlagErrorf("--syscall and --workload exclude each other")
				}
				if opts.Workload, err = runner.SyscallWorkload(syscallSpec); err != nil {
					return &cmdutil.FlagError{Err: fmt.Errorf("--syscall: %w; safe list:\n  %s", err, strings.Join(runner.SafeSyscalls(), "\n  "))}
				}
			}
			if targetCI != "" {
				v := strings.TrimSuffix(targetCI, "%")
				x, err := strconv.ParseFloat(v, 64)
				if err != nil || !(x > 0) {
					return cmdutil.FlagErrorf("--target-ci: %q is not a positive number of ns or a percentage like 5%%", targetCI)
				}
				opts.TargetCI, opts.TargetCIRel = x, v != targetCI
				if opts.TargetCIRel {
					opts.TargetCI = x / 100
				}
			}
			if opts.CPU >= 0 {
				if allowed := cpulock.AllowedCPUs(); allowed != nil && !slices.Contains(allowed, opts.CPU) {
					return cmdutil.FlagErrorf("--cpu: CPU %d is not one this process may run on (allowed: %v); use -1 to pick one or -2 for no pinning", opts.CPU, allowed)
				}
			} else if opts.CPU != -1 && opts.CPU != -2 {
				return cmdutil.FlagErrorf("--cpu: %d is not a CPU number, -1 (pick) or -2 (no pinning)", opts.CPU)
			}
			switch {
			case cpuWait < 0:
				return cmdutil.FlagErrorf("--cpu-wait: %v is negative", cpuWait)
			case cpuWait == 0:
				opts.CPUWait = -1 // refuse at once
			default:
				opts.CPUWait = cpuWait
			}
			if opts.Parallel < 1 || opts.Parallel > 256 {
				return cmdutil.FlagErrorf("--parallel: %d is not between 1 and 256", opts.Parallel)
			}
			if allowed := cpulock.AllowedCPUs(); opts.Parallel > 1 && opts.CPU != -2 && allowed != nil && opts.Parallel > len(allowed) {
				return cmdutil.FlagErrorf("--parallel: %d copies but this process may run on %d CPUs (%v): pinned copies would share CPUs and time each other's waits; use at most %d, or --cpu -2 to run them unpinned on purpose",
					opts.Parallel, len(allowed), allowed, len(allowed))
			}
			switch opts.Cache {
			case "on", "defeat", "both":
			default:
				return cmdutil.FlagErrorf("--cache: %q is not on, defeat or both", opts.Cache)
			}
			if opts.Specs, err = output.Resolve(opts.Format, cmd.Flags().Changed("format"), opts.Outputs); err != nil {
				return err
			}
			if len(opts.Outputs) > 0 {
				opts.Output = opts.Outputs[0]
			}
			if err := stats.CheckConfidence(opts.Confidence); err != nil {
				return &cmdutil.FlagError{Err: fmt.Errorf("--confidence: %w", err)}
			}
			if opts.Trials < 2 {
				return cmdutil.FlagErrorf("--trials: need at least 2 trials for a confidence interval, got %d", opts.Trials)
			}
			if opts.Pad < 0 || opts.Pad > filters.MaxInsns {
				return cmdutil.FlagErrorf("--pad: %d instructions; want 0 to %d", opts.Pad, filters.MaxInsns)
			}
			opts.PadSet = cmd.Flags().Changed("pad")
			opts.Unpaired = !paired
			if opts.Loaders, err = result.Loaders(opts.Loader); err != nil {
				return &cmdutil.FlagError{Err: fmt.Errorf("--loader: %w", err)}
			}
			opts.LoaderSet = cmd.Flags().Changed("loader")
			if opts.Samples < 1 || opts.Samples > maxSamples {
				return cmdutil.FlagErrorf("--samples: %d timed samples per child; want 1 to %d", opts.Samples, maxSamples)
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
	fl.StringVar(&workload, "workload", "mix", runner.WorkloadUsage()+", or command (a whole program: --workload command -- CMD [ARG...])")
	fl.StringVar(&cmdSpec.Prepare, "prepare", "", "command workload: shell `CMD` run before every run of the command (unfiltered, untimed), e.g. to drop caches")
	fl.IntVar(&cmdSpec.Warmup, "warmup", 1, "command workload: untimed runs per child before the timed ones")
	fl.IntVar(&cmdSpec.Runs, "runs", 0, "command workload: timed runs per child, R (0: calibrate to ~300ms of runs per child)")
	fl.BoolVar(&cmdSpec.IgnoreFailure, "ignore-failure", false, "command workload: keep runs that exit non-zero or are killed instead of failing the cell")
	fl.BoolVar(&cmdSpec.ShowOutput, "show-output", false, "command workload: send the command's output to stderr (shown with a failing cell) instead of /dev/null")
	fl.StringVar(&syscallSpec, "syscall", "", "loop on one syscall from the safe list instead, `NAME[:a0,a1,a2]` (e.g. getppid, read:-1, openat)")
	fl.IntVar(&pathDirs, "path-dirs", 8, "execvpe-miss: PATH directories searched, the program is in the last")
	fl.BoolVar(&opts.Notify.Sync, "notify-sync", false, "notify workload: set SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP on the listener (Linux 6.6+)")
	fl.StringVar(&notifyReply, "notify-reply", "continue", "notify workload: the supervisor's answer, `continue` (SECCOMP_USER_NOTIF_FLAG_CONTINUE: the syscall runs), errno (EPERM) or errno:N")
	fl.BoolVar(&opts.JITMeasure, "jit-measure", false, "measure the deepest stack's JIT memory (root: lowers bpf_jit_limit for moments, restores it) instead of modelling it")
	fl.IntVar(&opts.Parallel, "parallel", 1, "run N pinned copies of the workload at once per cell")
	fl.StringVar(&targetCI, "target-ci", "", "keep adding blocks until the per-filter CI half-width is at most `NS`, or a % of the estimate (e.g. 5%; for estimates ~0, that % of 1% of the 0-filter ns/op)")
	fl.DurationVar(&opts.MaxTime, "max-time", 60*time.Second, "with --target-ci: stop adding blocks after this long; with --workload command: a hard bound on the whole run (no block starts after it once two are done)")
	fl.IntVar(&opts.MaxTrials, "max-trials", 200, "with --target-ci: at most this many blocks")
	fl.StringVar(&opts.Cache, "cache", "both", "measure the filters as installed (on), with the action cache defeated (defeat), or both")
	fl.IntVar(&opts.Trials, "trials", 20, "randomized blocks; each runs every cell once in a fresh child")
	fl.Uint64Var(&opts.Seed, "seed", 1, "seed of the block shuffles and the bootstrap")
	fl.IntVar(&opts.CPU, "cpu", -1, "CPU to pin the measuring thread to (-1: the highest allowed CPU that no other run is measuring on; -2: no pinning)")
	fl.DurationVar(&cpuWait, "cpu-wait", cpulock.DefaultCPUWait, "how long to wait for a measuring CPU another seccompbench run holds before refusing (0: refuse at once)")
	fl.Float64Var(&opts.Confidence, "confidence", 0.95, "confidence level of every interval, a fraction in (0,1)")
	fl.StringVar(&opts.Format, "format", "table", "output format: table, json, markdown, csv, benchstat, svg or png")
	fl.StringArrayVarP(&opts.Outputs, "output", "o", nil, "write the result to `FILE` (atomically) instead of stdout; repeat for several formats, each from its extension (.txt .json .md .csv .bench .svg .png)")
	fl.Uint64Var(&opts.Iterations, "iterations", 0, "loop iterations per sample (0: calibrate to ~2ms per sample)")
	fl.IntVar(&opts.Samples, "samples", defaultSamples, "timed samples per child; the child's value is their median")
	fl.BoolVar(&paired, "paired", true, "each child also times the workload before installing its stack, and the fit adjusts for that baseline (docs/methodology.md); --paired=false for the unpaired design")
	fl.BoolVar(&opts.SpecAllow, "spec-allow", false, "install filters with SECCOMP_FILTER_FLAG_SPEC_ALLOW (no speculative store bypass mitigation)")
	fl.IntVar(&opts.Pad, "pad", 0, "append exactly `N` unreachable instructions to every filter in every child (default: each child draws its own pad from 0-16 from the seed, so the CI covers JIT placement; see docs/methodology.md)")
	fl.StringVar(&opts.Loader, "loader", "unprivileged", "load the filters without CAP_SYS_ADMIN as runc and non-root services do (unprivileged), with it (privileged), or both as separate variants (with --systemd-unit the default follows the unit)")
	fl.BoolVar(&opts.Robust, "robust", false, "use medians with bootstrap CIs instead of means with t CIs")
	fl.BoolVarP(&opts.Quiet, "quiet", "q", false, "no progress on stderr")
	fl.IntVar(&opts.Pid, "pid", 0, "replay exactly the filter stack of running process `PID` (dumped as inspect does; counts default to 0 and the full depth)")
	fl.StringVar(&opts.SystemdUnit, "systemd-unit", "", "put the filter stack systemd 252 installs for this unit `FILE` first (counts default to 0, each directive's prefix and the full stack)")
	fl.StringVar(&opts.SystemdDirectives, "systemd", "", "like --systemd-unit, from directive text, e.g. 'SystemCallFilter=@system-service'")
	fl.StringVar(&compiler, "compiler", "native", "who lays out OCI profiles and systemd filters: native or libseccomp (as runc and systemd install them; needs a -tags libseccomp build)")
	cmdutil.AddLoadFlags(fl, &load)
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

// runRun measures the job (runjob.Run) with the command's streams, clock
// and context.
func runRun(opts *RunOptions) error {
	ctx := opts.Context
	if ctx == nil {
		ctx = context.Background()
	}
	return runjob.Run(ctx, opts.IO, opts.Now, &opts.Job)
}

// parseNotifyReply parses --notify-reply: "continue" (0) or "errno" /
// "errno:N" (N a positive errno up to 4095, default EPERM).
func parseNotifyReply(s string) (syscall.Errno, error) {
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
