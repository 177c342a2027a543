package main

import (
	"context"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/exporter"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/interrupt"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/top"
	"github.com/seccompbench/seccompbench/runner"
	"github.com/seccompbench/seccompbench/runner/live"
)

// TopOptions are the flags of `seccompbench top`.
type TopOptions struct {
	IO      *cmdutil.IOStreams
	Context context.Context

	top.Options
	top.Flags
}

// NewCmdTop builds `seccompbench top`. runF, if not nil, replaces topRun
// (tests use it to check flag parsing).
func NewCmdTop(f *cmdutil.Factory, runF func(*TopOptions) error) *cobra.Command {
	opts := &TopOptions{IO: f.IO, Options: top.DefaultOptions()}
	var pids []string
	cmd := &cobra.Command{
		Use:   "top (--pid PID... [--children] | --cgroup PATH | --all) [--duration D]",
		Short: "Measure what running processes spend in seccomp, live",
		Long: `Sample running processes and report, per process, its CPU time in the
window, the part of it spent in seccomp (the syscall entry's seccomp call,
the action cache check and every filter run), that share with a confidence
interval, its filter stack, and the syscalls that spend most in seccomp with
their call counts and seccomp time per call. Nothing is restarted.

Method: perf's software cpu-clock event samples every CPU at --frequency; a
BPF program on each sample records the kernel callchain and the thread's
syscall number (orig_ax of its entry registers). A sample is seccomp time
when __secure_computing or __seccomp_filter is on its callchain, or when it
sits in an unnamed JIT image (a classic filter has no kallsyms entry) while
its thread is inside a syscall. Successive samples are not independent, so
the share's interval comes from batch means (--batch). Calls are counted by
a sys_exit raw tracepoint attached for --count-duty of each second, since it
slows every syscall on the machine while attached; counts are scaled to the
window by the process's CPU time. The counter's measured cost is printed.

The prediction line scales each syscall's measured seccomp time by the cost
model's ratio for a merged stack (seccompbench merge) and a merged stack laid
out for the measured mix: a prediction, not a measurement.

--children adds the --pid targets' descendants: those running when top
starts (a walk of /proc) and every process they fork from then on (a
sched_process_fork raw tracepoint), each reported as its own process.

Needs CAP_PERFMON and CAP_BPF (or root), Linux 5.15+ on x86_64; dumping the
stack for hashes and predictions needs CAP_SYS_ADMIN and ptrace permission.
Without --duration the view refreshes every --refresh until interrupted.
--serve ADDR keeps measuring windows of --refresh and serves them as
Prometheus metrics on /metrics instead (docs/fleet.md).
See docs/top.md.` + cmdutil.BudgetExitStatusHelp("with --budget, the seccomp share is over the budget"),
		Example: `  seccompbench top --pid 1234 --duration 5s
  seccompbench top --pid 812 --children --duration 10s
  seccompbench top --cgroup /sys/fs/cgroup/system.slice/nginx.service
  seccompbench top --all --duration 10s --format json -o top.json
  seccompbench top --all --serve :9464`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Context = cmd.Context()
			if opts.Context == nil {
				opts.Context = context.Background()
			}
			if err := opts.Resolve(&opts.Options, pids, cmd.Flags().Changed("format")); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return topRun(opts)
		},
	}
	addTopFlags(cmd.Flags(), opts, &pids)
	return cmd
}

// addTopFlags defines the flags of `top` on fl, bound to opts, with the
// --pid values going to *pids as written (resolve parses them).
func addTopFlags(fl *pflag.FlagSet, opts *TopOptions, pids *[]string) {
	fl.StringSliceVar(pids, "pid", nil, "watch process `PID` (repeat or comma-separate for several)")
	fl.StringVar(&opts.Cgroup, "cgroup", "", "watch every process in the cgroup directory `PATH` and below (re-read each window)")
	fl.BoolVar(&opts.All, "all", false, "watch every process on the machine")
	fl.BoolVar(&opts.Children, "children", false, "with --pid: also watch the targets' descendants, those running now and those they fork (needs the kernel's BTF)")
	fl.DurationVar(&opts.Duration, "duration", 0, "sample one window this long and print a report (default: a live view)")
	fl.DurationVar(&opts.Refresh, "refresh", 2*time.Second, "live view: window per refresh")
	fl.IntVar(&opts.Frequency, "frequency", opts.Frequency, "cpu-clock samples per second per CPU, in Hz")
	fl.DurationVar(&opts.Batch, "batch", opts.Batch, "batch length of the share's batch-means interval (0: a twentieth of the window, at least 50ms)")
	fl.Float64Var(&opts.CountDuty, "count-duty", opts.CountDuty, "share of each second the syscall counter is attached (0: no call counts)")
	fl.Float64Var(&opts.Confidence, "confidence", opts.Confidence, "confidence level of the intervals, a fraction in (0,1)")
	fl.BoolVar(&opts.Predict, "predict", opts.Predict, "predict what merging each stack would save (dumps the stack: CAP_SYS_ADMIN)")
	output.AddFlags(fl, &opts.Out, top.Formats, "table", "the report")
	output.AddExplainFlag(fl, &opts.Out)
	fl.IntVar(&opts.MaxSyscalls, "syscalls", 8, "syscalls listed per process in the table")
	fl.StringVar(&opts.BudgetText, "budget", "", "decide whether the targets' seccomp share of their CPU time is within `PCT` (e.g. 1%): windows of --refresh, one observation each, until a one-sided anytime-valid bound at --confidence decides or --max-time passes; prints the last window with the verdict (exit 0 within, 3 over, 4 undecided)")
	fl.DurationVar(&opts.MaxTime, "max-time", 60*time.Second, "with --budget: stop undecided after this long")
	fl.StringVar(&opts.Serve, "serve", "", "keep sampling windows of --refresh and serve OpenMetrics on http://`ADDR`/metrics (docs/fleet.md)")
	fl.IntVar(&opts.ServeTop, "serve-top", exporter.DefaultTopN, "with --serve: cgroups exported with their own series, by seccomp seconds; the rest sum into cgroup=\"other\"")
}

func topRun(opts *TopOptions) error {
	release := interrupt.Hold()
	defer release()
	if opts.Serve != "" {
		return serveTop(opts)
	}
	return top.Report(opts.Context, &opts.Options, opts.View(), opts.IO.Out, opts.IO.ErrOut)
}

// serveTop is `top --serve`: windows of --refresh go to an exporter
// served on opts.Serve until the context ends.
func serveTop(opts *TopOptions) error {
	// The exposition has no prediction, and merging every sampled
	// process's stack with its proof each window was most of the
	// exporter's CPU (24 % of a CPU with four 16-filter processes).
	opts.Predict = false
	w, err := top.Open(&opts.Options)
	if err != nil {
		return err
	}
	defer w.Close()
	e := exporter.New(exporter.Config{TopN: opts.ServeTop, Cgroup: exporter.ReadCgroup, Env: runner.CaptureEnvironment(),
		SelfCPU: func() (time.Duration, error) { return live.TaskCPU(os.Getpid()) }})
	return exporter.Listen(opts.Context, opts.Serve, w, e, opts.Refresh, opts.IO.ErrOut)
}
