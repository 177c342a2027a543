package main

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"

	procinspect "github.com/seccompbench/seccompbench/runner/inspect"

	"github.com/spf13/cobra"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/inspect"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
	"github.com/seccompbench/seccompbench/filters/analysis"
)

// InspectOptions are the flags and arguments of `seccompbench inspect`:
// the streams, the processes to inspect, and the output format.
type InspectOptions struct {
	IO *cmdutil.IOStreams

	inspect.Options
	// Out are --format (table or json) and -o; Specs what to write
	// (stdout in Out.Format when nil).
	Out   output.Flags
	Specs []output.Spec
}

// inspectFormats are the output formats of `inspect`.
var inspectFormats = []string{"table", "json"}

// defaultInspectSyscalls are the syscalls whose cost inspect shows: the
// ones a typical service makes most.
var defaultInspectSyscalls = []string{"read", "write", "openat", "close", "newfstatat", "mmap", "futex", "epoll_wait", "recvfrom", "sendto", "getpid"}

// NewCmdInspect builds `seccompbench inspect`. runF, if not nil, replaces
// inspectRun (tests use it to check flag parsing).
func NewCmdInspect(f *cmdutil.Factory, runF func(*InspectOptions) error) *cobra.Command {
	opts := &InspectOptions{IO: f.IO, Options: inspect.Options{Now: f.Now, Inspect: procinspect.InspectProcess, ListPids: procinspect.ListPids}}
	var syscalls string
	cmd := &cobra.Command{
		Use:   "inspect (PID... | --all)",
		Short: "Show the seccomp filters a running process has, and what they cost",
		Long: `Read a running process's seccomp state from /proc/PID/status (mode,
no_new_privs, number of filters) and, with CAP_SYS_ADMIN, dump every filter
with ptrace(PTRACE_SECCOMP_GET_FILTER). The process is attached with
PTRACE_SEIZE (no signal is sent), stopped for the dump only, and always
detached, also on errors.

Filters are listed oldest first (index 0 = installed first). Identical
filters, as a service manager installs per directive and per architecture,
are grouped by SHA-256. The stack is then analyzed through the emulator:
how many syscalls the kernel's action cache serves without running any
filter, and the verdict and instructions executed for common syscalls
(all arguments 0).

--save DIR writes each filter as a raw BPF file (filter-00.bpf, ... oldest
first), loadable by every command that takes a POLICY, and manifest.json
with the order, hashes, PID and command line; run --pid PID measures the
dumped stack directly.

Dumping fails with EACCES without CAP_SYS_ADMIN or when seccompbench itself
runs under seccomp (as in most containers), with EPERM when ptrace is not
permitted (Yama ptrace_scope, another tracer), and with EINVAL or EMEDIUMTYPE
on kernels without CONFIG_CHECKPOINT_RESTORE.` + cmdutil.ExitStatusHelp(""),
		Example: `  seccompbench inspect 1234
  seccompbench inspect --all
  seccompbench inspect 1234 --disasm --format json
  seccompbench inspect 1234 --save stack/
  seccompbench run stack/filter-*.bpf --filters 0,1,2,4`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 && !opts.All {
				return cmdutil.FlagErrorf("give PIDs or --all")
			}
			if len(args) > 0 && opts.All {
				return cmdutil.FlagErrorf("give PIDs or --all, not both")
			}
			opts.Pids = nil
			for _, a := range args {
				pid, err := strconv.Atoi(a)
				if err != nil || pid <= 0 {
					return cmdutil.FlagErrorf("%q is not a PID", a)
				}
				opts.Pids = append(opts.Pids, pid)
			}
			var err error
			if opts.Specs, err = opts.Out.Resolve(inspectFormats, cmd.Flags().Changed("format")); err != nil {
				return err
			}
			opts.Syscalls = defaultInspectSyscalls
			if syscalls != "" {
				opts.Syscalls = strings.Split(syscalls, ",")
				for _, s := range opts.Syscalls {
					if _, err := analysis.LookupSyscall(cmdutil.NativeArch(), s); err != nil {
						return &cmdutil.FlagError{Err: fmt.Errorf("--syscalls: %w", err)}
					}
				}
			}
			if runF != nil {
				return runF(opts)
			}
			return inspectRun(opts)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&opts.All, "all", false, "inspect every process in seccomp mode that this user may read")
	fl.BoolVar(&opts.Disasm, "disasm", false, "print the disassembly of each distinct filter")
	output.AddFlags(fl, &opts.Out, inspectFormats, "table", "the processes' filters")
	fl.StringVar(&opts.Save, "save", "", "write the filters as raw BPF plus manifest.json into `DIR` (DIR/PID/ for several processes)")
	fl.StringVar(&syscalls, "syscalls", "", "comma-separated x86_64 syscalls to show the cost of (default: common ones)")
	return cmd
}

// inspectRun inspects the processes and writes their filters
// (inspect.Run) with the command's streams.
func inspectRun(opts *InspectOptions) error {
	return inspect.Run(opts.IO, &opts.Options, output.Or(opts.Specs, cmp.Or(opts.Out.Format, "table")))
}
