package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/equiv"
)

func init() {
	extraCommands = append(extraCommands, func(f *Factory) *cobra.Command { return NewCmdEquiv(f, nil) })
}

// EquivOptions are the flags and arguments of `seccompbench equiv`.
type EquivOptions struct {
	IO *IOStreams

	A, B string
	// Compiler lays out OCI profiles and systemd filters (--compiler).
	Compiler filters.Compiler
}

// NewCmdEquiv builds `seccompbench equiv`. runF, if not nil, replaces
// equivRun (tests use it to check flag parsing).
func NewCmdEquiv(f *Factory, runF func(*EquivOptions) error) *cobra.Command {
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

Exit status: 0 equivalent, 1 different (the first counterexample found is
printed: arch, syscall, arguments and both outcomes) or not decidable,
2 usage.`,
		Example: `  seccompbench merge testdata/policies/hardened.service -o merged.bpf
  seccompbench equiv merged.bpf testdata/policies/hardened.service`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.A, opts.B = args[0], args[1]
			if runF != nil {
				return runF(opts)
			}
			return equivRun(opts)
		},
	}
	addCompilerFlag(cmd.Flags(), &opts.Compiler)
	return cmd
}

func equivRun(opts *EquivOptions) error {
	a, _, err := openStack(opts.IO.ErrOut, []string{opts.A}, "", opts.Compiler)
	if err != nil {
		return err
	}
	b, _, err := openStack(opts.IO.ErrOut, []string{opts.B}, "", opts.Compiler)
	if err != nil {
		return err
	}
	res, err := equiv.Stacks(a, b)
	if err != nil {
		if errors.Is(err, equiv.ErrCannotProve) {
			return fmt.Errorf("equiv %s %s: %w", opts.A, opts.B, err)
		}
		return err
	}
	out := opts.IO.Out
	if res.Equivalent {
		if _, err := fmt.Fprintf(out, "equivalent: %s (%d filter(s)) and %s (%d filter(s)) agree on every input (%d input classes)\n",
			opts.A, len(a), opts.B, len(b), res.Paths); err != nil {
			return fmt.Errorf("write result: %w", err)
		}
		return nil
	}
	ce := res.Counterexample
	if _, err := fmt.Fprintf(out, "different: %v\n  A = %s, B = %s\n", ce, opts.A, opts.B); err != nil {
		return fmt.Errorf("write result: %w", err)
	}
	return errFindings
}
