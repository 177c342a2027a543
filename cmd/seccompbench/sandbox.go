package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/runjob"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/simulate"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/runner/sandbox"
)

// SandboxOptions are the flags and arguments of `seccompbench sandbox`.
type SandboxOptions struct {
	IO *cmdutil.IOStreams

	Policies    []string
	Filters     int // stack depth by cycling the policies; 0 = one each
	DefeatCache bool
	// Compiler lays out OCI profiles and systemd filters (--compiler).
	Compiler  scmp.Compiler
	SpecAllow bool
	// Loader is who installs the stack (--loader): unprivileged drops
	// CAP_SYS_ADMIN first, so COMMAND runs without it too.
	Loader  result.Loader
	Command []string
	// Load are the policy flags every command that reads a policy has;
	// --arch must name this host's native ABI (the stack is installed
	// here).
	Load cmdutil.LoadFlags
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

func sandboxRun(opts *SandboxOptions) error {
	native := cmdutil.NativeArch()
	o, err := opts.Load.Options(opts.IO.In)
	if err != nil {
		return err
	}
	if o.Arch != native {
		return cmdutil.FlagErrorf("--arch %s: sandbox installs the stack on this host, whose native ABI is %s", opts.Load.Arch, native.Name)
	}
	o.Compiler = opts.Compiler
	progs, _, err := cmdutil.OpenPolicies(opts.Policies, o)
	if err != nil {
		return err
	}
	cmdutil.PrintWarnings(opts.IO.ErrOut, progs)
	stack, err := simulate.Build(progs, opts.Filters, opts.DefeatCache)
	if err != nil {
		return err
	}
	if i, pc, ok := runjob.NotifyAt(stack); ok {
		// Not refused: the command may be meant to meet it. But no
		// supervisor will answer, so say what will happen.
		fmt.Fprintf(opts.IO.ErrOut, "warning: filter %d (%s) returns SECCOMP_RET_USER_NOTIF at instruction %d; sandbox installs no listener, so the syscalls that reach it fail with ENOSYS\n", i, stack[i].Name, pc)
	}
	raw := make([][]byte, len(stack))
	for i, p := range stack {
		raw[i] = p.Bytes()
	}
	if len(stack) > 0 {
		execve, _ := native.Lookup("execve")
		if res, err := filters.EmulateStack(stack, native.Data(execve)); err == nil && res.Action != filters.ActionAllow {
			return fmt.Errorf("sandbox: the stack returns %s for execve, so COMMAND could not start", res.Action)
		}
	}
	return sandbox.ExecUnderWith(raw, sandbox.ExecOptions{SpecAllow: opts.SpecAllow, Loader: opts.Loader}, opts.Command, os.Environ())
}
