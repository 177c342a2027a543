package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/analysis"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/runner"
)

// LintOptions are the flags and arguments of `seccompbench lint`.
type LintOptions struct {
	IO *cmdutil.IOStreams

	Policies []string
	Workload string // "" = no workload check
	Filters  int    // requested stack depth; 0 = one filter per policy
	Format   string // text or json
	// Compiler lays out OCI profiles and systemd filters (--compiler).
	Compiler scmp.Compiler
}

// NewCmdLint builds `seccompbench lint`. runF, if not nil, replaces lintRun
// (tests use it to check flag parsing).
func NewCmdLint(f *cmdutil.Factory, runF func(*LintOptions) error) *cobra.Command {
	opts := &LintOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "lint POLICY...",
		Short: "Find mistakes in policies and what would break a benchmark",
		Long: `Check a stack of policies (the first installed first) and print findings
with a severity and a fix hint:

  error    invalid or oversized filters, the stack over MAX_INSNS_PER_PATH at
           --filters N, syscalls denied on x86_64 but allowed through the i386
           or x32 ABI, syscalls the Go runtime cannot live without killed, the
           workload's syscalls killed or trapped, filters that return
           SECCOMP_RET_USER_NOTIF (run refuses them: its children install
           filters without a listener; with --workload notify they are info)
  warning  dead rules (same action as the default), rules an earlier rule
           always decides, x32 numbers allowed, runtime syscalls denied,
           workload syscalls denied with an errno, problems the loader found
           in a source (e.g. OCI syscall names no table knows)
  info     allowed syscalls the kernel's action cache cannot skip

Verdicts are computed with all syscall arguments 0. The exit code is 1 when
an error-severity finding exists.`,
		Example: `  seccompbench lint default
  seccompbench lint testdata/policies/denylist.yaml --workload mix --filters 32`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Policies = args
			if opts.Workload != "" {
				if _, err := runner.LookupWorkload(opts.Workload); err != nil {
					return &cmdutil.FlagError{Err: fmt.Errorf("--workload: %w", err)}
				}
			}
			switch opts.Format {
			case "text", "json":
			default:
				return cmdutil.FlagErrorf("--format: %q is not text or json", opts.Format)
			}
			if opts.Filters < 0 {
				return cmdutil.FlagErrorf("--filters: negative count %d", opts.Filters)
			}
			if runF != nil {
				return runF(opts)
			}
			return lintRun(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Workload, "workload", "", "also check the syscalls of this run workload: "+strings.Join(runner.WorkloadNames(), ", "))
	fl.IntVar(&opts.Filters, "filters", 0, "check the path limit for this many filters, cycling the policies")
	fl.StringVar(&opts.Format, "format", "text", "output format: text or json")
	cmdutil.AddCompilerFlag(fl, &opts.Compiler)
	return cmd
}

func lintRun(opts *LintOptions) error {
	progs, _, err := cmdutil.OpenPolicies(opts.Policies, formats.OpenOptions{Compiler: opts.Compiler})
	if err != nil {
		return err
	}
	s := filters.Stack(progs)
	lo := analysis.LintOptions{Count: opts.Filters}
	if opts.Workload != "" {
		w, _ := runner.LookupWorkload(opts.Workload)
		lo.Workload = w.Syscalls
		lo.Listener = w.IsNotify()
	}
	findings := analysis.Lint(s, lo)
	if opts.Format == "json" {
		err = report.WriteLintJSON(opts.IO.Out, s, findings)
	} else {
		err = report.WriteLintText(opts.IO.Out, findings)
	}
	if err != nil {
		return err
	}
	if analysis.HasErrors(findings) {
		return errFindings
	}
	return nil
}
