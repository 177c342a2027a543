package main

import (
	"cmp"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/optimize"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"github.com/seccompbench/seccompbench/report"
)

// IntersectOptions are the flags and arguments of `seccompbench
// intersect`.
type IntersectOptions struct {
	IO *cmdutil.IOStreams

	// Specs are the inputs, oldest first (as merge's STACK).
	Specs []string
	// SyscallProfile is a workload's syscall profile for the cost
	// (--profile).
	SyscallProfile string
	// Out are --format (text, raw or json) and -o; Outs what to write.
	Out  output.Flags
	Outs []output.Spec
	// OCI is where --oci writes the intersection as an OCI profile ("":
	// not written).
	OCI string
	// Load are --format-in, --caps, --kernel-version, --arch,
	// --runtime, --profile-name, --base and --thread, for every input.
	Load cmdutil.LoadFlags
	// Compiler lays out OCI profiles and systemd filters (--compiler).
	Compiler scmp.Compiler
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

func intersectRun(opts *IntersectOptions) error {
	o, err := opts.Load.Options(opts.IO.In)
	if err != nil {
		return err
	}
	o.Compiler = opts.Compiler
	s, desc, err := optimize.OpenStackWith(opts.Specs, "", o, opts.IO.ErrOut)
	if err != nil {
		return err
	}
	optimize.WarnPathLength(opts.IO.ErrOut, desc, s)
	prof, err := optimize.LoadProfile(opts.SyscallProfile, opts.IO.ErrOut)
	if err != nil {
		return err
	}
	p, sum, err := optimize.Merge(s, desc)
	if err != nil {
		return err
	}
	sum.Command = "intersect"
	if sum.Cost, err = optimize.CostOf(s, p, nil, prof, filters.KernelArches(o.Arch)); err != nil {
		return err
	}
	// The OCI profile is proven on its own: when it cannot be written the
	// filter (proven by Merge) still is, and the error comes last.
	var ociErr error
	if opts.OCI != "" {
		sum.OCI, ociErr = optimize.IntersectOCI(opts.Specs, s, opts.OCI, o)
	}
	if err := optimize.WriteBuilt(opts.IO, output.Or(opts.Outs, cmp.Or(opts.Out.Format, "text")), p, sum); err != nil {
		return err
	}
	if err := report.WriteBuildSummary(opts.IO.ErrOut, desc, sum); err != nil {
		return err
	}
	if err := report.WriteCostText(opts.IO.ErrOut, sum.Cost); err != nil {
		return err
	}
	if err := report.WriteOCIIntersectionText(opts.IO.ErrOut, sum.OCI); err != nil {
		return err
	}
	if ociErr != nil {
		return fmt.Errorf("intersect --oci %s: %w", opts.OCI, ociErr)
	}
	return nil
}
