package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/sandbox"
	"github.com/seccompbench/seccompbench/runner/result"
)

// SandboxOptions are the flags and arguments of `seccompbench sandbox`: the
// streams, and the rest (sandbox.Options).
type SandboxOptions struct {
	IO *cmdutil.IOStreams

	sandbox.Options
}

// NewCmdSandbox builds `seccompbench sandbox`. runF, if not nil, replaces
// sandboxRun (tests use it to check flag parsing).
func NewCmdSandbox(f *cmdutil.Factory, runF func(*SandboxOptions) error) *cobra.Command {
	opts := &SandboxOptions{IO: f.IO}
	var loader string
	cmd := &cobra.Command{
		Use:   "sandbox POLICY... -- COMMAND [ARG...]",
		Short: "Run a command under a stack of filters",
		Long: `Install the policies' filters (stacked as run does: the first installed
first, --filters N cycles them) with no_new_privs on every thread, then
execute COMMAND in place of seccompbench. The command and its children run
under exactly this stack, on top of any inherited one: use it to profile a
program under a policy (strace -c -f seccompbench sandbox ...), or as a
long-running process with a known stack for inspect and run --pid.

Once COMMAND starts, the exit status is COMMAND's own; before that,
seccompbench's:` + cmdutil.ExitStatusHelp(""),
		Example: `  seccompbench sandbox default --filters 8 -- sleep 1000 &
  seccompbench inspect $!
  seccompbench sandbox testdata/policies/large-allowlist.yaml --cache defeat -- git status`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			dash := cmd.ArgsLenAtDash()
			if dash < 0 || dash == len(args) {
				return cmdutil.FlagErrorf("give the command after --")
			}
			opts.Policies, opts.Command = args[:dash], args[dash:]
			if len(opts.Policies) == 0 {
				return cmdutil.FlagErrorf("give at least one POLICY before --")
			}
			if opts.Filters < 0 {
				return cmdutil.FlagErrorf("--filters: negative count %d", opts.Filters)
			}
			ls, err := result.Loaders(loader)
			if err != nil {
				return &cmdutil.FlagError{Err: fmt.Errorf("--loader: %w", err)}
			}
			if len(ls) != 1 {
				return cmdutil.FlagErrorf("--loader: one process has one loader; give unprivileged or privileged")
			}
			opts.Loader = ls[0]
			if runF != nil {
				return runF(opts)
			}
			return sandboxRun(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&loader, "loader", "unprivileged", "install without CAP_SYS_ADMIN (unprivileged: dropped from every set first, so COMMAND lacks it too, as under runc) or with it (privileged)")
	fl.IntVar(&opts.Filters, "filters", 0, "stack depth, cycling the policies (0: one filter per policy)")
	cmdutil.AddCacheFlag(fl, &opts.DefeatCache)
	fl.BoolVar(&opts.SpecAllow, "spec-allow", false, "install with SECCOMP_FILTER_FLAG_SPEC_ALLOW")
	cmdutil.AddCompilerFlag(fl, &opts.Compiler)
	cmdutil.AddLoadFlags(fl, &opts.Load)
	return cmd
}

// sandboxRun runs the command (sandbox.Run) with its streams.
func sandboxRun(opts *SandboxOptions) error {
	return sandbox.Run(opts.IO, &opts.Options)
}
