package main

import (
	"github.com/spf13/cobra"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/optimize"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
)

// OptimizeOptions are the flags and arguments of `seccompbench optimize`: the
// streams, and the rest (optimize.OptimizeOptions).
type OptimizeOptions struct {
	IO *cmdutil.IOStreams

	optimize.OptimizeOptions
}

// NewCmdOptimize builds `seccompbench optimize`. runF, if not nil, replaces
// optimizeRun (tests use it to check flag parsing).
func NewCmdOptimize(f *cmdutil.Factory, runF func(*OptimizeOptions) error) *cobra.Command {
	opts := &OptimizeOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "optimize POLICY [--profile FILE] [-o FILE]",
		Short: "Lay a filter out for a workload, proven equivalent",
		Long: `Rebuild one filter with the same outcome for every syscall and argument,
laid out for a workload: a search over arch, then over the syscall number,
weight-balanced on the profile's call counts so that hot syscalls are tested
first, with equal rule bodies and returns shared. Syscalls whose outcome does
not depend on their arguments stay on a path the kernel's action cache
understands (ld [arch], ld [nr], jeq/jge, ret), so every syscall that was
cacheable stays so.

--profile FILE is the summary strace -c or strace -f -c prints, or a CSV of
syscall,count[,seconds]. Without a profile the layout is balanced over the
named syscalls and no syscall's path (all arguments 0) is longer than in
POLICY; the summary lists any for which that could not be kept.

A POLICY that installs a stack (a systemd unit, a snapd profile) is
optimized as a whole: the result is one filter equivalent to the whole
stack, as merge builds it, laid out for the profile, and a note says so.

The result is proven equivalent to POLICY by the exact checker (see equiv)
before it is written. Output formats are those of merge.` + cmdutil.ExitStatusHelp(""),
		Example: `  strace -f -c -o git.txt git status
  seccompbench optimize docker-default --profile git.txt -o docker-git.bpf
  seccompbench optimize testdata/policies/large-allowlist.yaml --format text`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Policy = args[0]
			var err error
			if opts.Specs, err = opts.Out.Resolve(programFormats, cmd.Flags().Changed("format")); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return optimizeRun(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Profile, "profile", "", "lay the filter out for this syscall profile `FILE` (strace -c output or CSV)")
	output.AddFlags(fl, &opts.Out, programFormats, "text", "the optimized filter")
	cmdutil.AddCompilerFlag(fl, &opts.Compiler)
	cmdutil.AddLoadFlags(fl, &opts.Load)
	return cmd
}

// optimizeRun runs the command (optimize.RunOptimize) with its streams.
func optimizeRun(opts *OptimizeOptions) error {
	return optimize.RunOptimize(opts.IO, &opts.OptimizeOptions)
}
