// Package sandbox is the `sandbox` pipeline: the policies' stack built as
// run builds it, checked (a notify filter warned about, a stack denying
// execve refused), then installed on every thread before COMMAND is
// executed in place of seccompbench (runner/sandbox).
package sandbox

import (
	"fmt"
	"os"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/runjob"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/simulate"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"github.com/seccompbench/seccompbench/runner/result"
	runsandbox "github.com/seccompbench/seccompbench/runner/sandbox"
)

// Options are `sandbox`'s arguments and flags, checked by the command.
type Options struct {
	// Policies are POLICY..., the stack in install order.
	Policies    []string
	Filters     int  // stack depth by cycling the policies; 0 = one each
	DefeatCache bool // --cache defeat: ld [instruction_pointer] first
	// Compiler lays out OCI profiles and systemd filters (--compiler).
	Compiler scmp.Compiler
	// SpecAllow installs with SECCOMP_FILTER_FLAG_SPEC_ALLOW (--spec-allow).
	SpecAllow bool
	// Loader is who installs the stack (--loader): unprivileged drops
	// CAP_SYS_ADMIN first, so COMMAND runs without it too.
	Loader result.Loader
	// Command is COMMAND [ARG...], after --.
	Command []string
	// Load are the policy flags every command that reads a policy has;
	// --arch must name this host's native ABI (the stack is installed
	// here).
	Load cmdutil.LoadFlags
}

// Run builds opts' stack and executes opts.Command under it; it returns
// only on an error before the exec (a stack whose verdict for execve is
// not ALLOW is refused before anything is installed).
func Run(ios *cmdutil.IOStreams, opts *Options) error {
	native := cmdutil.NativeArch()
	o, err := opts.Load.Options(ios.In)
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
	cmdutil.PrintWarnings(ios.ErrOut, progs)
	stack, err := simulate.Build(progs, opts.Filters, opts.DefeatCache)
	if err != nil {
		return err
	}
	if i, pc, ok := runjob.NotifyAt(stack); ok {
		// Not refused: the command may be meant to meet it. But no
		// supervisor will answer, so say what will happen.
		fmt.Fprintf(ios.ErrOut, "warning: filter %d (%s) returns SECCOMP_RET_USER_NOTIF at instruction %d; sandbox installs no listener, so the syscalls that reach it fail with ENOSYS\n", i, stack[i].Name, pc)
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
	return runsandbox.ExecUnderWith(raw, runsandbox.ExecOptions{SpecAllow: opts.SpecAllow, Loader: opts.Loader}, opts.Command, os.Environ())
}
