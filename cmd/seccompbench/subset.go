package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/optimize"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"github.com/seccompbench/seccompbench/filters/subset"
	"github.com/seccompbench/seccompbench/report"
)

// SubsetOptions are the flags and arguments of `seccompbench subset`.
type SubsetOptions struct {
	IO *cmdutil.IOStreams

	// Profile are the profile stack's sources, Baseline the baseline's
	// (--baseline, repeatable), each oldest first.
	Profile, Baseline []string
	// StrictErrno counts the same action with other data (ERRNO(1)
	// against ERRNO(38)) against the subset (--strict-errno); by default
	// outcomes rank by action class and such differences are notes.
	StrictErrno bool
	// ClassOnly is --class-only, the default since --strict-errno exists;
	// kept so existing invocations still parse.
	ClassOnly bool
	// SyscallProfile is a workload's syscall profile for the cost
	// (--profile, as estimate's).
	SyscallProfile string
	// Out are --format (text or json) and -o; Specs what to write.
	Out   output.Flags
	Specs []output.Spec
	// Load are --format-in, --caps, --kernel-version, --arch,
	// --runtime, --profile-name, --base and --thread, for every input.
	Load cmdutil.LoadFlags
	// Compiler lays out OCI profiles and systemd filters (--compiler).
	Compiler scmp.Compiler
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

func subsetRun(opts *SubsetOptions) error {
	o, err := opts.Load.Options(opts.IO.In)
	if err != nil {
		return err
	}
	o.Compiler = opts.Compiler
	p, pdesc, err := optimize.OpenStackWith(opts.Profile, "", o, opts.IO.ErrOut)
	if err != nil {
		return err
	}
	b, bdesc, err := optimize.OpenStackWith(opts.Baseline, "", o, opts.IO.ErrOut)
	if err != nil {
		return err
	}
	optimize.WarnPathLength(opts.IO.ErrOut, "baseline + profile", append(slices.Clone(b), p...))
	classOnly := !opts.StrictErrno
	res, err := subset.Check(p, b, subset.Options{ClassOnly: classOnly})
	if err != nil {
		// equiv.ErrCannotProve and the like: exit status 1, with the reason.
		return fmt.Errorf("subset %s --baseline %s: %w", pdesc, strings.Join(opts.Baseline, " --baseline "), err)
	}
	cost, err := intersectCost(b, p, opts.SyscallProfile, filters.KernelArches(o.Arch), opts.IO.ErrOut)
	if err != nil {
		return err
	}
	doc := report.NewSubsetDoc(report.EquivSide{Spec: pdesc, Filters: len(p)}, report.EquivSide{Spec: bdesc, Filters: len(b)}, res, classOnly, cost)
	if err := report.MarkENOSYSStubs(&doc, res, p, b); err != nil {
		return err
	}
	err = output.WriteEach(output.Or(opts.Specs, cmp.Or(opts.Out.Format, "text")), opts.IO.Out, opts.IO.ErrOut, func(format string, w io.Writer) error {
		if format == "json" {
			return report.WriteSubsetJSON(w, doc)
		}
		return report.WriteSubsetText(w, doc)
	})
	if err != nil {
		return err
	}
	if !res.Subset {
		return cmdutil.ErrFindings
	}
	return nil
}

// intersectCost is the cost of stacking baseline and profile (profile
// installed last) against their merge; a stack that cannot be merged
// gives a cost with the reason instead of an error. The cost covers the
// named syscalls of arches.
func intersectCost(baseline, profile filters.Stack, syscallProfile string, arches []*filters.Arch, warn io.Writer) (*report.Cost, error) {
	prof, err := optimize.LoadProfile(syscallProfile, warn)
	if err != nil {
		return nil, err
	}
	s := append(append(filters.Stack{}, baseline...), profile...)
	merged, _, mergeErr := optimize.Merge(s, "baseline + profile")
	return optimize.CostOf(s, merged, mergeErr, prof, arches)
}
