package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/simulate"
)

// SimulateOptions are the flags and arguments of `seccompbench simulate`:
// the streams, and what to simulate and how to write it.
type SimulateOptions struct {
	IO *cmdutil.IOStreams

	simulate.Options
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
	if _, err := opts.Specs(); err != nil {
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

// simulateRun simulates and writes the stack (simulate.Run) with the
// command's streams.
func simulateRun(opts *SimulateOptions) error {
	return simulate.Run(opts.IO, &opts.Options)
}
