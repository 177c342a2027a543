package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/compare"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
	"github.com/seccompbench/seccompbench/stats"
)

// CompareOptions are the flags and arguments of `seccompbench compare`:
// the streams, and what to compare and how to write it.
type CompareOptions struct {
	IO *cmdutil.IOStreams

	compare.Options
}

// compareFormats are the output formats of `compare`.
var compareFormats = []string{"table", "markdown", "json", "html"}

// NewCmdCompare builds `seccompbench compare`. runF, if not nil, replaces
// compareRun (tests use it to check flag parsing).
func NewCmdCompare(f *cmdutil.Factory, runF func(*CompareOptions) error) *cobra.Command {
	opts := &CompareOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "compare BASE.json NEW.json [MORE.json...]",
		Short: "Compare run results: what changed, with confidence intervals and p-values",
		Long: `Compare results written by 'seccompbench run --format json'. The first file is
the base; every other file is compared with it.

For each variant and filter count, the change in mean ns/op is tested with
Welch's t-test (two-sided, unequal variances) on the per-child values: each
child process is one independent measurement. The change is shown with its
confidence interval and p-value, or as "~" when it is not significant.

For each variant's fitted model, the change in the per-filter cost (the
slope) and in the entry cost is the difference of two independent
estimates. Their intervals are combined by a normal approximation: each
interval is read as estimate ± z·SE, the difference has SE = √(SE₁² + SE₂²).
This is conservative (too wide rather than too narrow) for the t intervals
that run writes.

The p-value is the probability of seeing a difference at least this large
if nothing had changed. A change is significant when p < 1 - confidence
(0.05 by default); "~" means no change was detected, which is not proof
that nothing changed: more trials narrow the interval. "Significant" does
not mean "large": a 0.3 ns change can be significant and irrelevant. Read
the delta and its interval.

Results of different workloads measure different ops and are refused
unless --force. Different kernels or CPU models give a warning: the change
may come from the machine, not the policy. A file that is not a run result
(a compare or report document, simulate output) is refused by its kind,
exit status 2.

--budget 5% asks instead whether NEW regressed by more than the budget:
within (exit 0) only when the one-sided upper bound on the increase is
below it, over (exit 3) when the lower bound is above it, else undecided
(exit 4), never "no significant difference". See docs/ci-gate.md.` + cmdutil.BudgetExitStatusHelpWhy("with --budget, NEW regressed by more than the budget", "the two results do not decide it (measure both with more --trials)"),
		Example: `  seccompbench compare old.json new.json
  seccompbench compare --format markdown base.json host1.json host2.json -o fleet.md
  seccompbench compare --format json a.json b.json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 2 {
				return cmdutil.FlagErrorf("compare needs at least two result files (BASE.json NEW.json), got %d", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Files = args
			var err error
			if opts.Specs, err = opts.Out.Resolve(compareFormats, cmd.Flags().Changed("format")); err != nil {
				return err
			}
			if err := stats.CheckConfidence(opts.Confidence); err != nil {
				return &cmdutil.FlagError{Err: fmt.Errorf("--confidence: %w", err)}
			}
			if opts.BudgetText != "" {
				b, err := stats.ParseBudget(opts.BudgetText)
				if err != nil {
					return &cmdutil.FlagError{Err: fmt.Errorf("--budget: %w", err)}
				}
				if len(args) != 2 {
					return cmdutil.FlagErrorf("--budget: judges one result against the base, got %d files", len(args))
				}
				opts.Budget = &b
			}
			if runF != nil {
				return runF(opts)
			}
			return compareRun(opts)
		},
	}
	fl := cmd.Flags()
	output.AddFlags(fl, &opts.Out, compareFormats, "table", "the comparison")
	output.AddExplainFlag(fl, &opts.Out)
	fl.Float64Var(&opts.Confidence, "confidence", 0.95, "confidence level of every interval, a fraction in (0,1); significant means p < 1 - confidence")
	fl.BoolVar(&opts.Force, "force", false, "compare results of different workloads anyway")
	fl.StringVar(&opts.BudgetText, "budget", "", "regression budget of NEW against BASE, a % of the base (5%) or a time (2ns): over when the one-sided lower bound on the increase is above it, within when the upper bound is below it (per-filter and entry fits, else the deepest cells; exit 0 within, 3 over, 4 undecided)")
	return cmd
}

// compareRun compares and writes the results (compare.Run) with the
// command's streams.
func compareRun(opts *CompareOptions) error {
	return compare.Run(opts.IO, &opts.Options)
}
