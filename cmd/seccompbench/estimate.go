package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/estimate"
	"github.com/seccompbench/seccompbench/runner"
)

// EstimateOptions are the flags and arguments of `seccompbench estimate`:
// the streams and context, the estimate's inputs, and how to show it.
type EstimateOptions struct {
	IO      *cmdutil.IOStreams
	Context context.Context

	estimate.Options
	estimate.View
}

// NewCmdEstimate builds `seccompbench estimate`. runF, if not nil, replaces
// estimateRun (tests use it to check flag parsing).
func NewCmdEstimate(f *cmdutil.Factory, runF func(*EstimateOptions) error) *cobra.Command {
	opts := &EstimateOptions{IO: f.IO, Options: estimate.Options{Measure: runner.Run}}
	var fl estimate.Flags
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
they do not include model error. Without --command the total is also
given as a bracket: the warm loop's cost as floor, and as ceiling the cold
factors measured on real programs (docs/estimate-command.md, "Bracket"). --validate
measures the profile's syscalls that runner can loop on safely under the
real stack and prints the prediction error. --duration gives the profiled run's wall time, for the
added time per second of work.

--command -- CMD [ARG...] profiles CMD with strace -f -c (unless --profile
is given), predicts, then measures CMD itself with run's command workload
at the same stack and variant (children at 0 and N filters, --trials
blocks) and prints predicted against measured added time per run, both
with intervals, their ratio, and whether the prediction's stated interval
(calibration and model error) covers the measurement. See docs/estimate.md.` + cmdutil.BudgetExitStatusHelp("with --budget, the command's added time is over the budget"),
		Example: `  strace -f -c -o git.strace git status
  seccompbench estimate default --profile git.strace --duration 12ms
  seccompbench estimate default --filters 8 --cache defeat --profile git.strace
  seccompbench estimate testdata/policies/positions.yaml --filters 8 --cache defeat --profile docs/validation-profile.csv --validate
  seccompbench estimate docker-default --filters 16 --cache defeat --command -- find /usr/share -name x`,
		Args: func(cmd *cobra.Command, args []string) error {
			if opts.SystemdUnit != "" {
				return nil
			}
			return fl.Load.PolicyArgs(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Context = cmd.Context()
			var command []string
			if dash := cmd.ArgsLenAtDash(); dash >= 0 {
				args, command = args[:dash], args[dash:]
			}
			specs, err := opts.Parse(&fl, args, command, f.IO.In, cmd.Flags().Changed)
			if err != nil {
				return err
			}
			opts.Specs, opts.Format, opts.Top, opts.Quiet = specs, fl.Out.Format, fl.Top, opts.IO.Quiet
			opts.Explain = fl.Out.Explain
			if runF != nil {
				return runF(opts)
			}
			return estimateRun(opts)
		},
	}
	estimate.AddFlags(cmd.Flags(), &opts.Options, &fl)
	return cmd
}

// estimateRun computes and writes the estimate (estimate.Execute) with
// the command's streams and context.
func estimateRun(opts *EstimateOptions) error {
	return estimate.Execute(opts.Context, opts.IO, &opts.Options, &opts.View)
}
