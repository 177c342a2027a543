package main

import (
	"github.com/spf13/cobra"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/optimize"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
)

// MergeOptions are the flags and arguments of `seccompbench merge`: the
// streams, and the rest (optimize.MergeOptions).
type MergeOptions struct {
	IO *cmdutil.IOStreams

	optimize.MergeOptions
}

// NewCmdMerge builds `seccompbench merge`. runF, if not nil, replaces
// mergeRun (tests use it to check flag parsing).
func NewCmdMerge(f *cmdutil.Factory, runF func(*MergeOptions) error) *cobra.Command {
	opts := &MergeOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "merge STACK... | --systemd DIRECTIVES",
		Short: "Merge a stack of filters into one equivalent filter",
		Long: `Merge a stack of seccomp filters into one classic BPF filter that gives every
syscall the same outcome as the stack: the same action and the same data
(errno, trap data) under the kernel's precedence (the lowest action wins,
ties go to the newest filter; kernel/seccomp.c: seccomp_run_filters), for
every arch value, syscall number and argument.

The stack is built from the STACK arguments in the order given, the first
installed first: a policy or raw filter adds one filter, a systemd unit the
filters systemd installs for it (the version chosen by --systemd-version,
default: this host's, else the newest), a directory written by inspect
--save the filters it holds (its manifest.json, else its filter-*.bpf files
in name order). --systemd with directive text models a unit instead.

Every merged program is proven equivalent to the stack by the exact checker
(see equiv) before it is written; merge refuses to write one that is not,
and refuses a result over BPF_MAXINSNS (4096 instructions), saying by how
much and how many of the newest filters would fit. Syscalls the stack's
action cache skips stay cacheable; merge lists any syscall whose cache
status changes (a lost cache can make a merged filter slower).

Output: --format text (the default) is a disassembly, --format json the
program with the checks, --format raw an array of struct sock_filter,
little-endian, loadable by every command that takes a POLICY; -o FILE.bpf
writes raw, .txt text and .json json. A summary goes to standard error.` + cmdutil.ExitStatusHelp(""),
		Example: `  seccompbench merge testdata/policies/hardened.service -o merged.bpf
  seccompbench equiv merged.bpf testdata/policies/hardened.service
  seccompbench merge default testdata/policies/denylist.yaml --format text`,
		Args: func(cmd *cobra.Command, args []string) error {
			if opts.Systemd != "" && len(args) > 0 {
				return cmdutil.FlagErrorf("merge: give STACK... or --systemd, not both")
			}
			if opts.Systemd == "" && len(args) == 0 {
				return cmdutil.FlagErrorf("merge: need STACK... (policies, raw filters, a systemd unit, an inspect --save directory) or --systemd")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Specs = args
			var err error
			if opts.Outs, err = opts.Out.Resolve(programFormats, cmd.Flags().Changed("format")); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return mergeRun(opts)
		},
	}
	fl := cmd.Flags()
	output.AddFlags(fl, &opts.Out, programFormats, "text", "the merged filter")
	fl.StringVar(&opts.Systemd, "systemd", "", "model the stack of these systemd directives, e.g. 'SystemCallFilter=@system-service'")
	cmdutil.AddCompilerFlag(fl, &opts.Compiler)
	cmdutil.AddLoadFlags(fl, &opts.Load)
	return cmd
}

// programFormats are the output formats of `merge` and `optimize`.
var programFormats = []string{"text", "raw", "json"}

// mergeRun runs the command (optimize.RunMerge) with its streams.
func mergeRun(opts *MergeOptions) error {
	return optimize.RunMerge(opts.IO, &opts.MergeOptions)
}
