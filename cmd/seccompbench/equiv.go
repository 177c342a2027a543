package main

import (
	"cmp"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/optimize"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
	"github.com/seccompbench/seccompbench/filters/equiv"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"github.com/seccompbench/seccompbench/report"
)

// EquivOptions are the flags and arguments of `seccompbench equiv`.
type EquivOptions struct {
	IO *cmdutil.IOStreams

	A, B string
	// Out are --format (text or json) and -o; Specs what to write
	// (stdout in Out.Format when nil).
	Out   output.Flags
	Specs []output.Spec
	// Compiler lays out OCI profiles and systemd filters (--compiler).
	Compiler scmp.Compiler
	// Load are the policy flags every command that reads a policy has
	// (--format-in, --arch, --caps, --kernel-version and the rest).
	Load cmdutil.LoadFlags
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

A difference is exit status 3, with the first counterexample found
printed (arch, syscall, arguments and both outcomes); a pair the checker
cannot decide is exit status 1.` + cmdutil.ExitStatusHelp("A and B differ (a counterexample is printed)"),
		Example: `  seccompbench merge testdata/policies/hardened.service -o merged.bpf
  seccompbench equiv merged.bpf testdata/policies/hardened.service`,
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
	cmdutil.AddLoadFlags(cmd.Flags(), &opts.Load)
	return cmd
}

func equivRun(opts *EquivOptions) error {
	o, err := opts.Load.Options(opts.IO.In)
	if err != nil {
		return err
	}
	o.Compiler = opts.Compiler
	if err := optimize.StdinOnce([]string{opts.A, opts.B}); err != nil {
		return err
	}
	a, _, err := optimize.OpenStackWith([]string{opts.A}, "", o, opts.IO.ErrOut)
	if err != nil {
		return err
	}
	b, _, err := optimize.OpenStackWith([]string{opts.B}, "", o, opts.IO.ErrOut)
	if err != nil {
		return err
	}
	res, err := equiv.Stacks(a, b)
	if err != nil {
		// equiv.ErrCannotProve and the like: exit status 1, with the reason.
		return fmt.Errorf("equiv %s %s: %w", opts.A, opts.B, err)
	}
	sa, sb := report.EquivSide{Spec: opts.A, Filters: len(a)}, report.EquivSide{Spec: opts.B, Filters: len(b)}
	err = output.WriteEach(output.Or(opts.Specs, cmp.Or(opts.Out.Format, "text")), opts.IO.Out, opts.IO.ErrOut, func(format string, w io.Writer) error {
		if format == "json" {
			return report.WriteEquivJSON(w, sa, sb, res)
		}
		return report.WriteEquivText(w, sa, sb, res)
	})
	if err != nil {
		return err
	}
	if !res.Equivalent {
		return cmdutil.ErrFindings
	}
	return nil
}
