package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/budget"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
)

// BudgetOptions are the flags and arguments of `seccompbench budget`: the
// streams and context, and the job.
type BudgetOptions struct {
	IO      *cmdutil.IOStreams
	Context context.Context

	budget.Job
	// Load are the policy flags every command that reads a policy has;
	// their options go to Job.Open.
	Load cmdutil.LoadFlags
}

// NewCmdBudget builds `seccompbench budget`. runF, if not nil, replaces
// budgetRun (tests use it to check flag parsing).
func NewCmdBudget(f *cmdutil.Factory, runF func(*BudgetOptions) error) *cobra.Command {
	opts := &BudgetOptions{IO: f.IO}
	var out output.Flags
	cmd := &cobra.Command{
		Use:   "budget [POLICY...]",
		Short: "How many processes with this filter stack fit under bpf_jit_limit",
		Long: `Every seccomp filter is JIT-compiled into executable kernel memory charged
against /proc/sys/net/core/bpf_jit_limit (kernel/bpf/core.c:
bpf_jit_charge_modmem). Past the limit, seccomp(2) fails with errno 524
(ENOTSUPP) for loaders without CAP_BPF or CAP_SYS_ADMIN, and container
starts fail. budget says how many processes, each loading the stack (a
--systemd-unit stack first, then the policies in order), fit at the node's
current charge, and which one gets errno 524 first:

  fit = floor((bpf_jit_limit - current charge) / stack bytes)

The stack's bytes come from the model of the JIT allocator for this kernel
(64-byte chunks since Linux 5.18 on x86_64, whole pages before), or are
measured with --measure. The kernel does not export the current charge:
without --measure it is bounded from above by the bpf_prog_pack areas of
/proc/vmallocinfo (root), which makes the fit a lower bound, or taken as 0
(an upper bound) when that is unreadable. --measure (root) derives both by
lowering bpf_jit_limit for moments and loading probe filters in children
without capabilities until errno 524; the limit is restored on every exit
path, signals included. --validate checks the prediction: the limit is
lowered to a little above the charge and stacks are loaded in children
without capabilities until the first errno 524 (docs/budget.md). Other
unprivileged BPF loaders on the machine fail while the limit is low: do not
use --measure or --validate on a busy production node.

Forked processes share their parent's filters and add no charge: only
separate loads (--per-node) count, not --processes.` + cmdutil.ExitStatusHelp(""),
		Example: `  seccompbench budget docker-default
  seccompbench budget --systemd-unit nginx.service --per-node 40 --processes 4
  sudo seccompbench budget docker-default --validate`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Context = cmd.Context()
			opts.Policies = args
			if len(args) == 0 && opts.SystemdUnit == "" {
				return cmdutil.FlagErrorf("budget: give a POLICY or --systemd-unit FILE")
			}
			var err error
			if opts.Specs, err = out.Resolve(budget.Formats, cmd.Flags().Changed("format")); err != nil {
				return err
			}
			if opts.Open, err = opts.Load.Options(opts.IO.In); err != nil {
				return err
			}
			if opts.PerNode < 0 || opts.Processes < 1 {
				return cmdutil.FlagErrorf("--per-node: want a count >= 0; --processes: want a count >= 1")
			}
			if opts.ValidateCount < 1 || opts.ValidateCount > 200 {
				return cmdutil.FlagErrorf("--validate-count: %d; want 1 to 200", opts.ValidateCount)
			}
			if runF != nil {
				return runF(opts)
			}
			return budgetRun(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.SystemdUnit, "systemd-unit", "", "put the filter stack "+cmdutil.ChosenSystemd+" installs for this unit `FILE` first")
	fl.Int64Var(&opts.PerNode, "per-node", 0, "planned separate loads of the stack on the node (containers, services): says whether they fit")
	fl.Int64Var(&opts.Processes, "processes", 1, "processes sharing each load (forked children inherit the filters and add no charge)")
	fl.BoolVar(&opts.Measure, "measure", false, "measure the current charge and the stack's charge (root: lowers bpf_jit_limit for moments, restores it)")
	fl.BoolVar(&opts.Validate, "validate", false, "check the prediction: lower bpf_jit_limit to a little above the charge and load stacks without capabilities until errno 524 (root)")
	fl.IntVar(&opts.ValidateCount, "validate-count", 20, "with --validate: the number of stacks the lowered limit is set to hold")
	output.AddFlags(fl, &out, budget.Formats, "text", "the budget")
	cmdutil.AddCompilerFlag(fl, &opts.Compiler)
	cmdutil.AddLoadFlags(fl, &opts.Load)
	return cmd
}

// budgetRun computes the budget (budget.Run) with the command's streams
// and context.
func budgetRun(opts *BudgetOptions) error {
	ctx := opts.Context
	if ctx == nil {
		ctx = context.Background()
	}
	return budget.Run(ctx, opts.IO, &opts.Job)
}
