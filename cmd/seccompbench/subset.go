package main

import (
	"slices"

	"github.com/spf13/cobra"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/optimize"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
)

// SubsetOptions are the flags and arguments of `seccompbench subset`: the
// streams, and the rest (optimize.SubsetOptions).
type SubsetOptions struct {
	IO *cmdutil.IOStreams

	optimize.SubsetOptions
}

// NewCmdSubset builds `seccompbench subset`. runF, if not nil, replaces
// subsetRun (tests use it to check flag parsing).
func NewCmdSubset(f *cmdutil.Factory, runF func(*SubsetOptions) error) *cobra.Command {
	opts := &SubsetOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "subset PROFILE... --baseline BASELINE...",
		Short: "Prove a profile at least as restrictive as a baseline, or list every syscall where it is looser",
		Long: `Decide exactly whether PROFILE is at least as restrictive as BASELINE for
every arch value, syscall number and argument value: the check Kubernetes
KEP-6061 asks a runtime to make before it accepts a pulled seccomp profile,
which may only tighten the node's baseline.

Outcomes are ranked by runtime-spec#1317's order, KILL_PROCESS >
KILL_THREAD > TRAP > ERRNO > USER_NOTIF > TRACE > LOG > ALLOW, the kernel's
own precedence, by action class: the same action with different data
(ERRNO(EPERM) against ERRNO(ENOSYS), TRAP or TRACE data) is no finding but
a note ("data differs"; JSON data_notes). --strict-errno counts it against
the subset: the task sees the difference (glibc falls back on ENOSYS, not
on EPERM), and stacked, the kernel keeps the newest filter's data. An
ERRNO(38) that comes from runc's ENOSYS stub in front of a filter (a
syscall numbered above every one the profile names) rather than from a
rule is said so on its line.

Both sides take every input format, systemd units (their modeled stack)
and directories written by inspect --save; OCI-based profiles are resolved
for --caps, --kernel-version and --arch (default: Docker's default
capabilities, kernel 6.18, this host's arch); several PROFILE arguments or
--baseline flags stack in the order given, the first installed first. The
check is a proof (both stacks run symbolically, as in equiv), and every
syscall of x86_64, i386 and x32 where the profile is looser is listed with
a witness (its smallest arguments) the emulator confirms, then a summary
per ABI; inputs outside the syscall tables get one witness per ABI.

The cost compares stacking BASELINE and PROFILE with one filter merged
from both (see intersect): mean instructions executed per syscall and
syscalls the action cache allows, and with --profile the profile-weighted
path and one row per profiled syscall.

Not a subset is exit status 3; programs the checker cannot follow
(arithmetic on loaded words) exit 1 with the reason.` + cmdutil.ExitStatusHelp("PROFILE is looser than BASELINE on some input, or with --strict-errno returns other data (every such syscall is printed)"),
		Example: `  seccompbench subset testdata/policies/podman-like.json --baseline docker-default
  seccompbench subset testdata/policies/hardened.service --baseline docker-default --format json
  seccompbench subset testdata/policies/podman-like.json --baseline docker-default --strict-errno`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Profile = args
			if opts.ClassOnly && opts.StrictErrno {
				return cmdutil.FlagErrorf("subset: --class-only and --strict-errno contradict each other")
			}
			if len(opts.Baseline) == 0 {
				return cmdutil.FlagErrorf("subset: need --baseline BASELINE (a policy, unit, inspect --save directory or %q)", "docker-default")
			}
			if err := optimize.StdinOnce(append(slices.Clone(args), opts.Baseline...)); err != nil {
				return err
			}
			var err error
			if opts.Specs, err = opts.Out.Resolve(equivFormats, cmd.Flags().Changed("format")); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return subsetRun(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&opts.Baseline, "baseline", nil, "the baseline `BASELINE`; repeat to stack several, oldest first")
	fl.BoolVar(&opts.StrictErrno, "strict-errno", false, "count the same action with other data (ERRNO(1) against ERRNO(38), trap data) against the subset, not as a note")
	fl.BoolVar(&opts.ClassOnly, "class-only", false, "rank outcomes by action alone (the default; conflicts with --strict-errno)")
	fl.StringVar(&opts.SyscallProfile, "profile", "", "syscall profile `FILE` for the cost: strace -c / strace -f -c output, or syscall,count[,seconds] CSV")
	cmdutil.AddCompilerFlag(fl, &opts.Compiler)
	cmdutil.AddLoadFlags(fl, &opts.Load)
	output.AddFlags(fl, &opts.Out, equivFormats, "text", "the verdict")
	return cmd
}

// subsetRun runs the command (optimize.RunSubset) with its streams.
func subsetRun(opts *SubsetOptions) error {
	return optimize.RunSubset(opts.IO, &opts.SubsetOptions)
}
