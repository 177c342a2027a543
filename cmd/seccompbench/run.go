package main

import (
	"context"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/runjob"
)

// RunOptions are the flags and arguments of `seccompbench run`: the
// streams, clock and context, and the job to measure.
type RunOptions struct {
	IO      *cmdutil.IOStreams
	Now     func() time.Time
	Context context.Context

	runjob.Job
}

// NewCmdRun builds `seccompbench run`. runF, if not nil, replaces runRun
// (tests use it to check flag parsing).
func NewCmdRun(f *cmdutil.Factory, runF func(*RunOptions) error) *cobra.Command {
	opts := &RunOptions{IO: f.IO, Now: f.Now}
	var fl runjob.Flags
	cmd := &cobra.Command{
		Use:   "run [POLICY...] [--workload command -- CMD [ARG...]]",
		Short: "Measure the per-syscall cost of a policy stacked 0..32 deep",
		Long: `Measure what a seccomp policy adds to every syscall, and how that grows as
filters stack. Each (variant, filter count) cell runs in a fresh child
process, in randomized blocks; the child installs the stack on a pinned
thread and times a raw syscall loop.

POLICY is a policy file: YAML or JSON in the Elastic Beats schema, a
Docker/OCI seccomp profile (JSON), raw BPF (struct sock_filter array, as
bwrap --seccomp reads), a systemd unit (its modeled stack; counts default
as with --systemd-unit), a Kubernetes SeccompProfile, a Firecracker
seccompiler file (--thread picks the filter), an LXC/Incus policy or a
minijail policy; the format is detected from the content (--format-in
forces it); "-" reads standard input. "default" is the embedded default
policy (used when none is given), "docker-default" Docker's default profile.
Several policies form the stack by cycling: with P1 P2 and 5 filters the
stack is P1 P2 P1 P2 P1, P1 installed first.

Variants: "on" installs the filters as compiled, so the kernel's action cache
(Linux 5.11+) may skip them; "defeat" prepends ld [instruction_pointer] to
each filter, which keeps every verdict but makes every filter run on every
syscall (as on older kernels or with argument rules).

--workload command -- CMD [ARG...] times a whole program instead of a loop:
each run of CMD is a fresh process under the stack (installed on all its
threads with SECCOMP_FILTER_FLAG_TSYNC, as a runtime does; its children
inherit it), stdin /dev/null, output discarded; ns/op is one run, from
execve to reaping, and its CPU time is reported beside it. The report
separates what installing the stack costs once per process from what CMD
pays while running, and says which dominates. Every run must exit 0
(--ignore-failure keeps failing runs); a run killed by the stack names the
syscall when the kernel logged it. --max-time bounds the whole run.` + cmdutil.BudgetExitStatusHelp("with --budget, the added time is over the budget"),
		Example: `  seccompbench run
  seccompbench run --cache defeat --workload getpid --filters 0,1,2,4,8,16,32
  seccompbench run testdata/policies/denylist.yaml --filters 0-32/8 --format json -o result.json
  seccompbench run default --workload command -- find /usr/share -name x`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Context = cmd.Context()
			var argv []string
			if dash := cmd.ArgsLenAtDash(); dash >= 0 {
				args, argv = args[:dash], args[dash:]
			}
			if err := opts.Parse(&fl, args, argv, cmd.Flags().Changed); err != nil {
				return err
			}
			opts.Quiet, opts.Args = opts.IO.Quiet, os.Args
			if runF != nil {
				return runF(opts)
			}
			return runRun(opts)
		},
	}
	runjob.AddFlags(cmd.Flags(), &opts.Job, &fl)
	return cmd
}

// runRun measures the job (runjob.Run) with the command's streams, clock
// and context.
func runRun(opts *RunOptions) error {
	ctx := opts.Context
	if ctx == nil {
		ctx = context.Background()
	}
	return runjob.Run(ctx, opts.IO, opts.Now, &opts.Job)
}
