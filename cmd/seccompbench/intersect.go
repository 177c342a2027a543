package main

import (
	"github.com/spf13/cobra"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/optimize"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
)

// IntersectOptions are the flags and arguments of `seccompbench intersect`: the
// streams, and the rest (optimize.IntersectOptions).
type IntersectOptions struct {
	IO *cmdutil.IOStreams

	optimize.IntersectOptions
}

// NewCmdIntersect builds `seccompbench intersect`. runF, if not nil,
// replaces intersectRun (tests use it to check flag parsing).
func NewCmdIntersect(f *cmdutil.Factory, runF func(*IntersectOptions) error) *cobra.Command {
	opts := &IntersectOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "intersect A B...",
		Short: "Write one filter that enforces the intersection of several profiles, with its cost",
		Long: `Write the filter a runtime enforces when it applies every input: one classic
BPF filter proven equivalent to the stack of A, B, ... (installed in the
order given, A first), as merge writes it, and what each way costs.

The intersection follows the kernel's stack semantics (kernel/seccomp.c:
seccomp_run_filters): for every input the most restrictive action wins,
in runtime-spec#1317's order KILL_PROCESS > KILL_THREAD > TRAP > ERRNO >
USER_NOTIF > TRACE > LOG > ALLOW. Where the spec leaves a tie open, the
kernel decides it: the same action with different data (ERRNO(EPERM) in A,
ERRNO(ENOSYS) in B) returns the data of the newest filter, the last input;
order the inputs so the errno you want comes last, or check the pair with
subset first.

The cost compares the stack with the intersected filter: mean instructions
executed per syscall, syscalls the action cache allows without running a
filter (Linux 5.11 and later), and with --profile the profile-weighted path
and one row per profiled syscall. Measure both on this kernel with run
(docs/platform-teams.md).

Output as merge's: --format text (the default), raw or json (kind
"intersect", with the cost); -o FILE.bpf writes raw. The summary and cost
go to standard error.

--oci FILE also writes the intersection as an OCI profile, when every
input is one (a file or "docker-default"), resolved as the stack was
(--caps, --kernel-version, --arch). Per syscall the rules of
the inputs combine exactly when at most one input looks at its arguments
and unmatched arguments keep the profile's default action; a syscall
where they cannot (OCI has no per-syscall default) is listed and written
with its strictest outcome. The profile is compiled back and proven
equivalent to the stack, or at least as restrictive with the syscalls
where it is stricter listed; one that would be looser, or return other
errno data where the kernel's tie rule (the newest filter's data) decides
the stack's errno, is not written: the filter (-o) and the summary still
are, and the exit status is 1 with the reason, naming the inputs A, B, ...
in order (swapping them changes which errno wins).` + cmdutil.ExitStatusHelp(""),
		Example: `  seccompbench intersect docker-default testdata/policies/podman-like.json -o intersected.bpf
  seccompbench subset intersected.bpf --baseline docker-default`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Specs = args
			var err error
			if opts.Outs, err = opts.Out.Resolve(programFormats, cmd.Flags().Changed("format")); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return intersectRun(opts)
		},
	}
	fl := cmd.Flags()
	output.AddFlags(fl, &opts.Out, programFormats, "text", "the intersected filter")
	fl.StringVar(&opts.OCI, "oci", "", "also write the intersection as an OCI profile `FILE` (inputs must be OCI profiles), proven against the stack")
	fl.StringVar(&opts.SyscallProfile, "profile", "", "syscall profile `FILE` for the cost: strace -c / strace -f -c output, or syscall,count[,seconds] CSV")
	cmdutil.AddCompilerFlag(fl, &opts.Compiler)
	cmdutil.AddLoadFlags(fl, &opts.Load)
	return cmd
}

// intersectRun runs the command (optimize.RunIntersect) with its streams.
func intersectRun(opts *IntersectOptions) error {
	return optimize.RunIntersect(opts.IO, &opts.IntersectOptions)
}
