package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/estimate"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/runner"
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/stats"
)

// EstimateOptions are the flags and arguments of `seccompbench estimate`:
// the streams and context, the estimate's inputs, and how to show it.
type EstimateOptions struct {
	IO      *cmdutil.IOStreams
	Context context.Context

	estimate.Options
	Top    int
	Format string
	Quiet  bool
	// Load are --format-in, --caps, --kernel-version, --arch,
	// --profile-name, --base and --thread.
	Load cmdutil.LoadFlags
}

// NewCmdEstimate builds `seccompbench estimate`. runF, if not nil, replaces
// estimateRun (tests use it to check flag parsing).
func NewCmdEstimate(f *cmdutil.Factory, runF func(*EstimateOptions) error) *cobra.Command {
	opts := &EstimateOptions{IO: f.IO, Options: estimate.Options{Measure: runner.Run}}
	var calTrials int
	var withCommand bool
	var loader string
	cmd := &cobra.Command{
		Use:   "estimate [POLICY...] [--systemd-unit FILE] (--profile FILE | --command -- CMD [ARG...])",
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
they do not include model error. The total is also stated with the model
error measured on real programs (docs/estimate.md) added. --validate
measures the profile's syscalls that runner can loop on safely under the
real stack and prints the prediction error. --duration gives the profiled run's wall time, for the
added time per second of work.

--command -- CMD [ARG...] profiles CMD with strace -f -c (unless --profile
is given), predicts, then measures CMD itself with run's command workload
at the same stack and variant (children at 0 and N filters, --trials
blocks) and prints predicted against measured added time per run, both
with intervals, their ratio, and whether the prediction's stated interval
(calibration and model error) covers the measurement. See docs/estimate.md.`,
		Example: `  strace -f -c -o git.strace git status
  seccompbench estimate default --profile git.strace --duration 12ms
  seccompbench estimate default --filters 8 --cache defeat --profile git.strace
  seccompbench estimate testdata/policies/positions.yaml --filters 8 --cache defeat --profile docs/validation-profile.csv --validate
  seccompbench estimate docker-default --filters 16 --cache defeat --command -- find /usr/share -name x`,
		Args: func(cmd *cobra.Command, args []string) error {
			if opts.SystemdUnit != "" {
				return nil
			}
			return opts.Load.PolicyArgs(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Context = cmd.Context()
			opts.Policies = args
			if dash := cmd.ArgsLenAtDash(); dash >= 0 {
				opts.Policies, opts.Command = args[:dash], args[dash:]
			}
			if withCommand != (len(opts.Command) > 0) {
				return cmdutil.FlagErrorf("--command: give it with the command after --, e.g. estimate docker-default --command -- find /usr/share -name x")
			}
			if len(opts.Policies) == 0 && opts.SystemdUnit == "" && opts.Load.Systemd == "" {
				return cmdutil.FlagErrorf("requires at least 1 arg: give at least one POLICY (or --systemd-unit FILE)")
			}
			if opts.Profile == "" && !withCommand {
				return cmdutil.FlagErrorf("--profile FILE is required (or --command -- CMD [ARG...])")
			}
			switch opts.Cache {
			case "on", "defeat":
			default:
				return cmdutil.FlagErrorf("--cache: %q is not on or defeat", opts.Cache)
			}
			switch opts.Format {
			case "table", "json":
			default:
				return cmdutil.FlagErrorf("--format: %q is not table or json", opts.Format)
			}
			if err := stats.CheckConfidence(opts.Confidence); err != nil {
				return &cmdutil.FlagError{Err: fmt.Errorf("--confidence: %w", err)}
			}
			if opts.Filters < 0 {
				return cmdutil.FlagErrorf("--filters: negative count %d", opts.Filters)
			}
			if opts.Duration < 0 {
				return cmdutil.FlagErrorf("--duration: negative %s", opts.Duration)
			}
			ls, err := result.Loaders(loader)
			if err != nil {
				return &cmdutil.FlagError{Err: fmt.Errorf("--loader: %w", err)}
			}
			if len(ls) != 1 {
				return cmdutil.FlagErrorf("--loader: an estimate models one loader; give unprivileged or privileged (run --loader both measures their difference)")
			}
			opts.Loader = ls[0]
			opts.CalTrials = calTrials
			if opts.CalTrials < 2 || opts.Trials < 2 {
				return cmdutil.FlagErrorf("--calibration-trials and --trials: need at least 2 for a confidence interval")
			}
			if opts.Open, err = opts.Load.Options(f.IO.In); err != nil {
				return err
			}
			if err := cmdutil.CheckLocalArch("estimate", opts.Open); err != nil {
				return err
			}
			opts.Systemd = opts.Load.Systemd
			if runF != nil {
				return runF(opts)
			}
			return estimateRun(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Profile, "profile", "", "syscall profile `FILE`: strace -c / strace -f -c output, or syscall,count[,seconds] CSV")
	fl.IntVar(&opts.Filters, "filters", 0, "stack depth, cycling the policies (0: one filter per policy)")
	cmdutil.AddCompilerFlag(fl, &opts.Compiler)
	cmdutil.AddSystemdFlag(fl, &opts.Load)
	cmdutil.AddLoadFlags(fl, &opts.Load)
	fl.StringVar(&opts.Cache, "cache", "on", "evaluate the filters as installed (on) or with the action cache defeated (defeat: pre-5.11 kernels, argument rules)")
	fl.StringArrayVar(&opts.Calibrations, "calibration", nil, "a run --format json result `FILE` with a defeat fit (repeatable); default: a quick calibration now")
	fl.IntVar(&calTrials, "calibration-trials", 8, "randomized blocks per workload of the quick calibration")
	fl.StringVar(&opts.SystemdUnit, "systemd-unit", "", "put the filter stack systemd 252 installs for this unit `FILE` first (with no POLICY: that stack alone)")
	fl.BoolVar(&opts.ColdCalibration, "cold", false, "quick calibration with openat of a missing path (kernel work between filter runs, as in real programs) instead of getppid, gettid and getpid; see docs/estimate.md")
	fl.BoolVar(&opts.StackCalibration, "stack-calibration", true, "re-anchor the quick calibration on the estimated stack's own filters (cache defeated, placement sampled), keeping the chain's per-instruction slope; =false: the calibration chain alone")
	fl.DurationVar(&opts.Duration, "duration", 0, "wall time of the profiled run (e.g. 12ms), for the added time per second of work")
	fl.IntVar(&opts.Top, "top", 15, "syscall rows in the table, most added time first (0: all)")
	fl.StringVar(&opts.Format, "format", "table", "output format: table or json")
	fl.Float64Var(&opts.Confidence, "confidence", 0.95, "confidence level of every interval, a fraction in (0,1)")
	fl.Uint64Var(&opts.Seed, "seed", 1, "seed of the block shuffles")
	fl.IntVar(&opts.CPU, "cpu", -1, "CPU to pin measuring threads to (-1: the highest allowed CPU; -2: no pinning)")
	fl.StringVar(&loader, "loader", "unprivileged", "who loads the estimated stack: unprivileged (without CAP_SYS_ADMIN, as runc and non-root services) or privileged; the calibration and --validate measure with it")
	fl.BoolVar(&opts.Validate, "validate", false, "also measure each profiled syscall that runner can loop on under the stack, and report the prediction error")
	fl.IntVar(&opts.Trials, "trials", 10, "randomized blocks per syscall for --validate, and for measuring --command")
	fl.BoolVar(&withCommand, "command", false, "profile (unless --profile) and measure the command given after --, and compare the prediction with the measurement")
	fl.BoolVar(&opts.ProcessTerm, "process-term", true, "with --command: also measure what the stack adds to a run of /bin/true (starting and ending a process under a freshly installed stack, beyond the install) and add it to the prediction")
	fl.DurationVar(&opts.MaxTime, "max-time", 2*time.Minute, "with --command: a hard bound on measuring the command (no block starts after it once two are done)")
	fl.BoolVarP(&opts.Quiet, "quiet", "q", false, "no progress on stderr")
	return cmd
}

func estimateRun(opts *EstimateOptions) error {
	ctx := opts.Context
	if ctx == nil {
		ctx = context.Background()
	}
	if !opts.Quiet {
		opts.Progress = opts.IO.ErrOut
	}
	e, err := estimate.Run(ctx, &opts.Options, opts.IO.ErrOut)
	if err != nil {
		return err
	}
	if opts.Format == "json" {
		return report.WriteEstimateJSON(opts.IO.Out, e)
	}
	for _, w := range e.Warnings {
		fmt.Fprintf(opts.IO.ErrOut, "warning: %s\n", w)
	}
	report.WriteEstimateText(opts.IO.Out, e, opts.Top)
	return nil
}
