package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/simulate"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/analysis"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"github.com/seccompbench/seccompbench/report"
)

// SimulateOptions are the flags and arguments of `seccompbench simulate`.
type SimulateOptions struct {
	IO *cmdutil.IOStreams

	Policies    []string
	Syscall     string
	Arch        string // "" = x86_64 for --syscall, every ABI for --all
	Args        []uint64
	All         bool
	Sort        string // cost, nr or name
	Filters     int    // stack depth by cycling the policies; 0 = one each
	DefeatCache bool
	// Compiler lays out OCI profiles and systemd filters (--compiler).
	Compiler scmp.Compiler
	Format   string // table, json, svg or png (svg and png need --all)
	// Outputs are the -o FILEs, each in the format of its extension
	// (see output.Resolve); none means stdout in Format.
	Outputs   []string
	FormatSet bool // --format was given
}

// simulateFormats are the output formats of `simulate`.
var simulateFormats = []string{"table", "json", "svg", "png"}

// simulateOutputs resolves -o and --format into what to write, refusing
// formats simulate does not render and plots without --all.
func simulateOutputs(opts *SimulateOptions) ([]output.Spec, error) {
	if !slices.Contains(simulateFormats, opts.Format) {
		return nil, cmdutil.FlagErrorf("--format: %q is not one of %s", opts.Format, strings.Join(simulateFormats, ", "))
	}
	outs, err := output.Resolve(opts.Format, opts.FormatSet, opts.Outputs)
	if err != nil {
		return nil, err
	}
	for _, o := range outs {
		if !slices.Contains(simulateFormats, o.Format) {
			return nil, cmdutil.FlagErrorf("-o %s: simulate writes %s, not %s", o.Path, strings.Join(simulateFormats, ", "), o.Format)
		}
		if (o.Format == "svg" || o.Format == "png") && !opts.All {
			return nil, cmdutil.FlagErrorf("the %s plot shows every syscall: add --all", o.Format)
		}
	}
	return outs, nil
}

// writeSimulateOutputs renders to every output: stdout directly, files
// atomically, announcing each file on ErrOut.
func writeSimulateOutputs(opts *SimulateOptions, render func(format string, w io.Writer) error) error {
	outs, err := simulateOutputs(opts)
	if err != nil {
		return err
	}
	return output.WriteEach(outs, opts.IO.Out, opts.IO.ErrOut, render)
}

// NewCmdSimulate builds `seccompbench simulate`. runF, if not nil, replaces
// simulateRun (tests use it to check flag parsing).
func NewCmdSimulate(f *cmdutil.Factory, runF func(*SimulateOptions) error) *cobra.Command {
	opts := &SimulateOptions{IO: f.IO}
	var args string
	cmd := &cobra.Command{
		Use:   "simulate POLICY... (--syscall NAME | --all)",
		Short: "Emulate the filter stack for one syscall or for all of them",
		Long: `Run the policies' BPF filters in an emulator that follows the kernel's rules
(kernel/seccomp.c) and report the verdict, the action cache's decision and
the instructions executed in each filter.

The policies form the stack in order, the first installed first; --filters N
cycles them to N filters as run does. --syscall prints the verdict and the
path taken through each filter (--args gives the arguments, decimal or 0x
hex); --all prints one row per syscall of x86_64, i386 and x32 (or --arch),
sortable by cost. With --all, -o plot.svg or -o plot.png draws a bar per
syscall of x86_64 (or --arch): instructions executed, cached ones marked.
-o FILE may repeat; each file's extension (.txt .json .svg .png) picks its
format.

The action cache (Linux 5.11+) lets a syscall through without running any
filter when every filter returns ALLOW for it knowing only nr and arch.
Cached rows cost 0 instructions; "insns" is what the filters execute when
they do run.`,
		Example: `  seccompbench simulate default --syscall getpid
  seccompbench simulate testdata/policies/args-workload.yaml --syscall write --args 1,0,10
  seccompbench simulate default default --all --sort cost --format json
  seccompbench simulate default --all -o plot.svg -o plot.png -o table.txt`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, pos []string) error {
			opts.Policies = pos
			if (opts.Syscall == "") == !opts.All {
				return cmdutil.FlagErrorf("give exactly one of --syscall NAME and --all")
			}
			if opts.Arch != "" {
				if _, err := filters.LookupArch(opts.Arch); err != nil {
					return &cmdutil.FlagError{Err: fmt.Errorf("--arch: %w", err)}
				}
			}
			var err error
			if opts.Args, err = parseArgs(args); err != nil {
				return &cmdutil.FlagError{Err: fmt.Errorf("--args: %w", err)}
			}
			switch opts.Sort {
			case "cost", "nr", "name":
			default:
				return cmdutil.FlagErrorf("--sort: %q is not cost, nr or name", opts.Sort)
			}
			opts.FormatSet = cmd.Flags().Changed("format")
			if _, err := simulateOutputs(opts); err != nil {
				return err
			}
			if opts.Filters < 0 {
				return cmdutil.FlagErrorf("--filters: negative count %d", opts.Filters)
			}
			if runF != nil {
				return runF(opts)
			}
			return simulateRun(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Syscall, "syscall", "", "syscall `NAME` (or number) to simulate")
	fl.BoolVar(&opts.All, "all", false, "simulate every syscall of each ABI")
	fl.StringVar(&opts.Arch, "arch", "", "ABI: x86_64, i386 or x32 (default x86_64 for --syscall, all three for --all)")
	fl.StringVar(&args, "args", "", "syscall arguments a0,a1,... (up to 6; missing ones are 0)")
	fl.StringVar(&opts.Sort, "sort", "nr", "--all row order: cost (most instructions first), nr or name")
	fl.IntVar(&opts.Filters, "filters", 0, "stack depth, cycling the policies (0: one filter per policy)")
	fl.BoolVar(&opts.DefeatCache, "defeat-cache", false, "prepend ld [instruction_pointer] to every filter, as run --cache defeat does")
	cmdutil.AddCompilerFlag(fl, &opts.Compiler)
	fl.StringVar(&opts.Format, "format", "table", "output format: table, json, or with --all svg or png")
	fl.StringArrayVarP(&opts.Outputs, "output", "o", nil, "write to `FILE` (atomically) instead of stdout; repeat for several formats, each from its extension (.txt .json .svg .png)")
	return cmd
}

// parseArgs parses "a0,a1,..." (decimal or 0x hex, at most 6).
func parseArgs(s string) ([]uint64, error) {
	if s == "" {
		return nil, nil
	}
	parts := strings.Split(s, ",")
	if len(parts) > 6 {
		return nil, fmt.Errorf("%d arguments, a syscall has at most 6", len(parts))
	}
	out := make([]uint64, len(parts))
	for i, p := range parts {
		v, err := strconv.ParseUint(strings.TrimSpace(p), 0, 64)
		if errors.Is(err, strconv.ErrRange) {
			return nil, fmt.Errorf("argument %d: %q does not fit in 64 bits", i, p)
		}
		if err != nil {
			// Allow negative values as callers write them (-1 for AT_FDCWD-like args).
			n, nerr := strconv.ParseInt(strings.TrimSpace(p), 0, 64)
			if nerr != nil {
				return nil, fmt.Errorf("argument %d: %q is not a number", i, p)
			}
			v = uint64(n)
		}
		out[i] = v
	}
	return out, nil
}

func simulateRun(opts *SimulateOptions) error {
	s, err := simulate.Stack(opts.Policies, opts.Filters, opts.DefeatCache, opts.Compiler, opts.IO.ErrOut)
	if err != nil {
		return err
	}
	if opts.All {
		return simulateAll(opts, s)
	}
	cost, sr, err := simulate.Syscall(s, opts.Arch, opts.Syscall, opts.Args)
	if err != nil {
		return err
	}
	return writeSimulateOutputs(opts, func(format string, w io.Writer) error {
		if format == "json" {
			return report.WriteIndentedJSON(w, report.NewSimulateDoc(s, []analysis.SyscallCost{cost}, &sr))
		}
		return report.WriteSimulateSyscallText(w, s, cost, sr)
	})
}

func simulateAll(opts *SimulateOptions, s filters.Stack) error {
	arches, costs, err := simulate.Costs(s, opts.Arch, opts.Sort)
	if err != nil {
		return err
	}
	return writeSimulateOutputs(opts, func(format string, w io.Writer) error {
		switch format {
		case "json":
			return report.WriteIndentedJSON(w, report.NewSimulateDoc(s, costs, nil))
		case "svg":
			return report.WriteSimulateSVG(w, simulate.Plot(s, costs, opts.Arch, opts.Sort, opts.DefeatCache))
		case "png":
			return report.WriteSimulatePNG(w, simulate.Plot(s, costs, opts.Arch, opts.Sort, opts.DefeatCache))
		}
		return report.WriteSimulateAllText(w, s, arches, costs)
	})
}
