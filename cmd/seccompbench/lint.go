package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/lint"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
	"github.com/seccompbench/seccompbench/runner/workload"
)

// LintOptions are the flags and arguments of `seccompbench lint`: the
// streams, and what to lint and how to write it.
type LintOptions struct {
	IO *cmdutil.IOStreams

	lint.Options
}

// lintFormats are the output formats of `lint`.
var lintFormats = []string{"text", "json"}

// lintLong is the long help of `lint`, before the exit statuses.
const lintLong = `Check a stack of policies (the first installed first) and print findings
with a severity and a fix hint:

  error    invalid or oversized filters, the stack over MAX_INSNS_PER_PATH at
           --filters N, syscalls denied on x86_64 but allowed through the i386
           or x32 ABI (on aarch64: through the arm compat ABI), syscalls the
           Go runtime cannot live without killed, the workload's syscalls killed or trapped, filters that return
           SECCOMP_RET_USER_NOTIF (run refuses them: its children install
           filters without a listener; with --workload notify they are info),
           a filter denying seccomp(2) under which run would install more
           filters (at --filters N, else in the stack given; a warning at
           the depth run measures without --filters: 32 filters, or a lone
           unit's own stack),
           a systemd unit's entry on a SystemCallFilter=~ or
           RestrictAddressFamilies=~ line that systemd ignores (a misspelt
           name, group or family: the stack lets it through), a unit
           systemd refuses to start (refused-input, e.g. an allow list
           giving write an errno under systemd 256.2 and later; the rest
           is linted as 255 and earlier install it, while compile,
           simulate and run refuse the unit)
  warning  dead rules (same action as the default), rules an earlier rule
           always decides, x32 numbers allowed, runtime syscalls denied,
           workload syscalls denied with an errno, problems the loader found
           in a source (e.g. OCI syscall names no table knows, a unit's
           lines and entries systemd ignores), placed at file:line[:col]
           with "did you mean" where a close name exists
  info     allowed syscalls the kernel's action cache cannot skip; for
           OCI-based sources, the capabilities, kernel version and host
           arch that resolved their conditions; a unit's directive costs
           and redundant directives (directive-cost, redundant-directive)

POLICY is any format run reads ("-": standard input); a systemd unit is
linted as the stack it installs, each finding naming the directive's
filter (e.g. "filter 28 (unit/SystemCallFilter/x86_64)"). A rule finding
names the rule's place in the source where the loader keeps it (Beats
policies, OCI profiles: "dead.yaml:7:15"), and always the BPF instruction
as "instruction N of filter I (NAME) in compile's listing", never as a
source line.

Policies are opened and checked for a host of --arch (default: this
machine's native ABI), e.g. --arch aarch64 on an x86_64 machine; a compat
ABI (i386, x32, arm) stands for its kernel's native one. Verdicts are
computed with all syscall arguments 0.`

// NewCmdLint builds `seccompbench lint`. runF, if not nil, replaces lintRun
// (tests use it to check flag parsing).
func NewCmdLint(f *cmdutil.Factory, runF func(*LintOptions) error) *cobra.Command {
	opts := &LintOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "lint POLICY...",
		Short: "Find mistakes in policies and what would break a benchmark",
		Long:  lintLong + cmdutil.ExitStatusHelp("an error-severity finding exists (the findings are printed)"),
		Example: `  seccompbench lint default
  seccompbench lint testdata/policies/denylist.yaml --workload mix --filters 32
  seccompbench lint --arch aarch64 default`,
		Args: func(cmd *cobra.Command, args []string) error { return opts.Load.PolicyArgs(cmd, args) },
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Policies = args
			if opts.Workload != "" {
				if _, err := workload.Lookup(opts.Workload); err != nil {
					return &cmdutil.FlagError{Err: fmt.Errorf("--workload: %w", err)}
				}
			}
			var err error
			if opts.Specs, err = opts.Out.Resolve(lintFormats, cmd.Flags().Changed("format")); err != nil {
				return err
			}
			if opts.Filters < 0 {
				return cmdutil.FlagErrorf("--filters: negative count %d", opts.Filters)
			}
			if _, err = opts.Load.Options(nil); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return lintRun(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Workload, "workload", "", "also check the syscalls of this run workload: "+strings.Join(workload.Names(), ", "))
	fl.IntVar(&opts.Filters, "filters", 0, "check the path limit for this many filters, cycling the policies")
	output.AddFlags(fl, &opts.Out, lintFormats, "text", "the findings")
	cmdutil.AddCompilerFlag(fl, &opts.Compiler)
	cmdutil.AddSystemdFlag(fl, &opts.Load)
	cmdutil.AddLoadFlags(fl, &opts.Load)
	return cmd
}

// lintRun lints the stack and writes the findings (lint.Run) with the
// command's streams.
func lintRun(opts *LintOptions) error {
	return lint.Run(opts.IO, &opts.Options)
}
