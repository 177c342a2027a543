package main

import (
	"github.com/spf13/cobra"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/optimize"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
)

// EquivOptions are the flags and arguments of `seccompbench equiv`: the
// streams, and the rest (optimize.EquivOptions).
type EquivOptions struct {
	IO *cmdutil.IOStreams

	optimize.EquivOptions
}

// equivFormats are the output formats of `equiv`.
var equivFormats = []string{"text", "json"}

// NewCmdEquiv builds `seccompbench equiv`. runF, if not nil, replaces
// equivRun (tests use it to check flag parsing).
func NewCmdEquiv(f *cmdutil.Factory, runF func(*EquivOptions) error) *cobra.Command {
	opts := &EquivOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "equiv A B",
		Short: "Prove two filters or stacks equivalent, or show where they differ",
		Long: `Decide exactly whether A and B give every syscall the same outcome: the
same action and the same data (errno capped at 4095, trap data, trace
message) after the kernel's precedence over a stack (kernel/seccomp.c:
seccomp_run_filters). A and B are each a policy, a raw filter, a systemd unit
(its modeled stack) or a directory written by inspect --save.

The check is a proof, not a sample: both sides run symbolically over the
words of struct seccomp_data, and each comparison splits a word's values
into classes that behave alike, so every arch value, syscall number and
argument value is covered. Programs doing arithmetic on loaded words other
than and/or with a constant cannot be proven either way; equiv says so.

--systemd-version A,B reads the first policy's units as systemd A and the
second's as systemd B, so one unit can be compared under two releases
(equiv unit.service unit.service --systemd-version 257,252); one version
applies to both.

A difference is exit status 3, with the first counterexample found
printed (arch, syscall, arguments and both outcomes); a pair the checker
cannot decide is exit status 1.` + cmdutil.ExitStatusHelp("A and B differ (a counterexample is printed)"),
		Example: `  seccompbench merge testdata/policies/hardened.service -o merged.bpf
  seccompbench equiv merged.bpf testdata/policies/hardened.service
  seccompbench equiv testdata/policies/hardened.service testdata/policies/hardened.service --systemd-version 257,252`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.A, opts.B = args[0], args[1]
			var err error
			if opts.Specs, err = opts.Out.Resolve(equivFormats, cmd.Flags().Changed("format")); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return equivRun(opts)
		},
	}
	cmdutil.AddCompilerFlag(cmd.Flags(), &opts.Compiler)
	output.AddFlags(cmd.Flags(), &opts.Out, equivFormats, "text", "the verdict")
	opts.Load.SystemdVersionPair = true
	cmdutil.AddLoadFlags(cmd.Flags(), &opts.Load)
	return cmd
}

// equivRun runs the command (optimize.RunEquiv) with its streams.
func equivRun(opts *EquivOptions) error {
	return optimize.RunEquiv(opts.IO, &opts.EquivOptions)
}
