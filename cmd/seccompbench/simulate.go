package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/simulate"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/analysis"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/report/chart"
)

// SimulateOptions are the flags and arguments of `seccompbench simulate`.
type SimulateOptions struct {
	IO *cmdutil.IOStreams

	Policies    []string
	Syscall     string
	Args        []uint64
	All         bool
	Sort        string // cost, nr or name
	Filters     int    // stack depth by cycling the policies; 0 = one each
	DefeatCache bool
	// Compiler lays out OCI profiles and systemd filters (--compiler).
	Compiler scmp.Compiler
	// Load are --format-in, --caps, --kernel-version, --arch,
	// --profile-name, --base and --thread. --arch names the ABI --syscall
	// simulates and, through its kernel (filters.KernelArches), the host
	// the policies are for and the ABIs --all covers ("": this machine's
	// native ABI).
	Load   cmdutil.LoadFlags
	Format string // table, json, svg or png (svg and png need --all)
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
	outs, err := output.ResolveFor(simulateFormats, opts.Format, opts.FormatSet, opts.Outputs)
	if err != nil {
		return nil, err
	}
	for _, o := range outs {
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
cycles them to N filters as run does. POLICY is any format run reads ("-":
standard input); a systemd unit (or --systemd 'Directive=...') is the whole
stack systemd installs, and the verdict names the directive's filter that
decided. A Firecracker file without --thread is simulated once per thread
category (vmm, api, vcpu), side by side. For OCI-based sources the output
says which capabilities and kernel version resolved the profile's
conditions (--caps, --kernel-version, --arch). --syscall prints the verdict
and the path taken through each filter (--args gives the arguments, decimal
or 0x hex); --all prints one row per syscall of every ABI of the kernel,
sortable by cost. With --all, -o plot.svg or -o plot.png draws a bar per
syscall of one ABI: instructions executed, cached ones marked.

--arch names an ABI: x86_64, aarch64 (or arm64), or a compat ABI i386, x32
or arm (default: this machine's native ABI). The policies are opened for a
host whose kernel's native ABI is its (i386 and x32 mean an x86_64 host,
arm an aarch64 one): Beats policies check that audit arch and number
syscalls from its table (names it lacks are dropped with a warning),
OCI-based profiles resolve that host's architectures. --syscall and the
plot take the ABI --arch names; --all covers every ABI of its kernel
(x86_64, i386 and x32; or aarch64 and arm).
-o FILE may repeat; each file's extension (.txt .json .svg .png) picks its
format.

The action cache (Linux 5.11+) lets a syscall through without running any
filter when every filter returns ALLOW for it knowing only nr and arch.
Cached rows cost 0 instructions; "insns" is what the filters execute when
they do run.` + cmdutil.ExitStatusHelp(""),
		Example: `  seccompbench simulate default --syscall getpid
  seccompbench simulate testdata/policies/args-workload.yaml --syscall write --args 1,0,10
  seccompbench simulate default default --all --sort cost --format json
  seccompbench simulate default --all -o plot.svg -o plot.png -o table.txt
  seccompbench simulate /lib/systemd/system/systemd-logind.service --syscall chown
  seccompbench simulate docker-default --syscall reboot --caps all
  seccompbench simulate --arch aarch64 default --all`,
		Args: func(cmd *cobra.Command, args []string) error { return opts.Load.PolicyArgs(cmd, args) },
		RunE: func(cmd *cobra.Command, pos []string) error {
			if err := opts.complete(cmd, pos, args); err != nil {
				return err
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
	fl.StringVar(&args, "args", "", "syscall arguments a0,a1,... (up to 6; missing ones are 0)")
	fl.StringVar(&opts.Sort, "sort", "nr", "--all row order: cost (most instructions first), nr or name")
	fl.IntVar(&opts.Filters, "filters", 0, "stack depth, cycling the policies (0: one filter per policy)")
	cmdutil.AddCacheFlag(fl, &opts.DefeatCache)
	cmdutil.AddCompilerFlag(fl, &opts.Compiler)
	cmdutil.AddSystemdFlag(fl, &opts.Load)
	cmdutil.AddLoadFlags(fl, &opts.Load)
	fl.StringVar(&opts.Format, "format", "table", "output format: table, json, or with --all svg or png")
	fl.StringArrayVarP(&opts.Outputs, "output", "o", nil, "write to `FILE` (atomically) instead of stdout; repeat for several formats, each from its extension (.txt .json .svg .png)")
	return cmd
}

// complete sets opts.Policies from pos, opts.Args from --args and
// opts.FormatSet, and checks the flags: exactly one of --syscall and
// --all, the --sort key, the outputs, --filters and the load flags.
func (opts *SimulateOptions) complete(cmd *cobra.Command, pos []string, args string) error {
	opts.Policies = pos
	if (opts.Syscall == "") == !opts.All {
		return cmdutil.FlagErrorf("give exactly one of --syscall NAME and --all")
	}
	var err error
	if opts.Args, err = simulate.ParseArgs(args); err != nil {
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
	if _, err := opts.Load.Options(nil); err != nil {
		return err
	}
	return nil
}

func simulateRun(opts *SimulateOptions) error {
	o, err := opts.Load.Options(opts.IO.In)
	if err != nil {
		return err
	}
	o.Compiler = opts.Compiler
	l, err := opts.Load.LoadPolicies(opts.Policies, o)
	if err != nil {
		return err
	}
	l.PrintWarnings(opts.IO.ErrOut)
	alts, err := l.Alternatives()
	if err != nil {
		return err
	}
	res := l.OCIResolution(o)
	var stacks []simulate.Named
	for _, a := range alts {
		s, err := simulate.Build(a.Progs, opts.Filters, opts.DefeatCache)
		if err != nil {
			return err
		}
		stacks = append(stacks, simulate.Named{Name: a.Name, Stack: s})
	}
	if len(stacks) > 1 {
		for _, out := range opts.Outputs {
			if strings.HasSuffix(out, ".svg") || strings.HasSuffix(out, ".png") {
				return cmdutil.FlagErrorf("-o %s: the policies hold alternative filters (%s); plot one with --thread", out, simulate.Names(stacks))
			}
		}
		if opts.Format == "svg" || opts.Format == "png" {
			return cmdutil.FlagErrorf("--format %s: the policies hold alternative filters (%s); plot one with --thread", opts.Format, simulate.Names(stacks))
		}
	}
	if opts.Load.Arch == "" && len(stacks) > 0 {
		// Simulate the ABI the filters are for when it is not this
		// machine's: an i386 minijail policy, an aarch64 Firecracker file.
		if abis := filters.StackABIs(stacks[0].Stack); len(abis) > 0 && !slices.Contains(abis, cmdutil.NativeArch().Name) {
			opts.Load.Arch = abis[0]
			fmt.Fprintf(opts.IO.ErrOut, "note: the filters are for %s, not %s: simulating %s calls (--arch chooses)\n",
				strings.Join(abis, ", "), cmdutil.NativeArch().Name, abis[0])
		}
	}
	if opts.All {
		return simulateAll(opts, stacks, res)
	}
	type result struct {
		cost analysis.SyscallCost
		sr   filters.StackResult
	}
	var rs []result
	for _, n := range stacks {
		cost, sr, err := simulate.Syscall(n.Stack, opts.Load.Arch, opts.Syscall, opts.Args)
		if err != nil {
			return err
		}
		rs = append(rs, result{cost, sr})
	}
	return writeSimulateOutputs(opts, func(format string, w io.Writer) error {
		var docs []report.SimulateDoc
		for i, n := range stacks {
			if format == "json" {
				doc := report.NewSimulateDoc(n.Stack, []analysis.SyscallCost{rs[i].cost}, &rs[i].sr)
				doc.Alternative, doc.OCI = n.Name, res
				docs = append(docs, doc)
				continue
			}
			if err := report.WriteSimulateAltHeader(w, i, n.Name, res); err != nil {
				return err
			}
			if err := report.WriteSimulateSyscallText(w, n.Stack, rs[i].cost, rs[i].sr); err != nil {
				return err
			}
		}
		return report.WriteSimulateDocs(w, docs)
	})
}

func simulateAll(opts *SimulateOptions, stacks []simulate.Named, res *report.OCIResolution) error {
	type result struct {
		arches []*filters.Arch
		costs  []analysis.SyscallCost
	}
	var rs []result
	for _, n := range stacks {
		arches, costs, err := simulate.Costs(n.Stack, opts.Load.Arch, opts.Sort)
		if err != nil {
			return err
		}
		rs = append(rs, result{arches, costs})
	}
	return writeSimulateOutputs(opts, func(format string, w io.Writer) error {
		s, costs := stacks[0].Stack, rs[0].costs
		switch format {
		case "svg":
			return chart.WriteSimulateSVG(w, simulate.Plot(s, costs, opts.Load.Arch, opts.Sort, opts.DefeatCache))
		case "png":
			return chart.WriteSimulatePNG(w, simulate.Plot(s, costs, opts.Load.Arch, opts.Sort, opts.DefeatCache))
		}
		var docs []report.SimulateDoc
		for i, n := range stacks {
			if format == "json" {
				doc := report.NewSimulateDoc(n.Stack, rs[i].costs, nil)
				doc.Alternative, doc.OCI = n.Name, res
				docs = append(docs, doc)
				continue
			}
			if err := report.WriteSimulateAltHeader(w, i, n.Name, res); err != nil {
				return err
			}
			if err := report.WriteSimulateAllText(w, n.Stack, rs[i].arches, rs[i].costs); err != nil {
				return err
			}
		}
		return report.WriteSimulateDocs(w, docs)
	})
}
