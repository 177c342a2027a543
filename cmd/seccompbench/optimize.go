package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/optimize"
)

func init() {
	extraCommands = append(extraCommands, func(f *Factory) *cobra.Command { return NewCmdOptimize(f, nil) })
}

// OptimizeOptions are the flags and arguments of `seccompbench optimize`.
type OptimizeOptions struct {
	IO *IOStreams

	Policy  string
	Profile string // --profile FILE, "" for none
	Output  string // -o FILE, "" for stdout
	Format  string // raw, text or json; "" = raw with -o, text without
	// Compiler lays out OCI profiles (--compiler).
	Compiler filters.Compiler
}

// NewCmdOptimize builds `seccompbench optimize`. runF, if not nil, replaces
// optimizeRun (tests use it to check flag parsing).
func NewCmdOptimize(f *Factory, runF func(*OptimizeOptions) error) *cobra.Command {
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

The result is proven equivalent to POLICY by the exact checker (see equiv)
before it is written. Output formats are those of merge.`,
		Example: `  strace -f -c -o git.txt git status
  seccompbench optimize docker-default --profile git.txt -o docker-git.bpf
  seccompbench optimize testdata/policies/large-allowlist.yaml --format text`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Policy = args[0]
			if err := resolveProgramFormat(&opts.Format, opts.Output); err != nil {
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
	fl.StringVarP(&opts.Output, "output", "o", "", "write the optimized filter to `FILE`")
	fl.StringVar(&opts.Format, "format", "", "output format: raw, text or json (default raw with -o, else text)")
	addCompilerFlag(fl, &opts.Compiler)
	return cmd
}

func optimizeRun(opts *OptimizeOptions) error {
	progs, _, err := openPolicies([]string{opts.Policy}, filters.OpenOptions{Compiler: opts.Compiler})
	if err != nil {
		return err
	}
	printWarnings(opts.IO.ErrOut, progs)
	p := progs[0]
	var w optimize.Weights
	var prof *filters.Profile
	if opts.Profile != "" {
		data, err := os.ReadFile(opts.Profile)
		if err != nil {
			return fmt.Errorf("read profile: %w", err)
		}
		if prof, err = filters.ParseProfile(opts.Profile, data); err != nil {
			return err
		}
		for _, warn := range prof.Warnings {
			fmt.Fprintf(opts.IO.ErrOut, "warning: %s\n", warn)
		}
		if w, err = optimize.WeightsFromProfile(prof); err != nil {
			return fmt.Errorf("read profile: %w", err)
		}
	}
	res, err := optimize.Optimize(p, w)
	if err != nil {
		return fmt.Errorf("optimize %s: %w", opts.Policy, err)
	}
	res.Program.Source = opts.Policy
	sum, err := summarize(filters.Stack{p}, res, prof)
	if err != nil {
		return err
	}
	sum.Command = "optimize"
	if err := writeBuilt(opts.IO, opts.Output, opts.Format, res.Program, sum); err != nil {
		return err
	}
	return writeSummary(opts.IO.ErrOut, opts.Policy, sum)
}
