// Package sandbox runs a command under a filter stack: the `sandbox`
// command's ExecUnder installs the stack on every thread of this process
// and execs the command in its place.
package sandbox

import (
	"fmt"
	"os/exec"
	"runtime"

	"github.com/seccompbench/seccompbench/runner/internal/sys"
	"github.com/seccompbench/seccompbench/runner/result"
	"golang.org/x/sys/unix"
)

// ExecUnder installs stack (sock_filter arrays, index 0 = oldest, installed
// first) on every thread of this process and replaces the process image
// with argv[0] (looked up in PATH before the first filter goes in) and env.
// It sets no_new_privs first, as installing without CAP_SYS_ADMIN requires
// (seccomp(2): EACCES), and passes SECCOMP_FILTER_FLAG_TSYNC so that the
// thread that calls execve carries the whole stack; specAllow adds
// SECCOMP_FILTER_FLAG_SPEC_ALLOW (Linux 4.17). Filters survive execve
// (seccomp(2)), so the new program runs under exactly this stack, on top of
// any inherited one. It returns only on failure: a filter the kernel
// refuses (the error names it and wraps the errno) or a failed execve, in
// which case this process stays filtered.
func ExecUnder(stack [][]byte, specAllow bool, argv []string, env []string) error {
	return ExecUnderWith(stack, ExecOptions{SpecAllow: specAllow}, argv, env)
}

// ExecOptions are the settings of ExecUnderWith.
type ExecOptions struct {
	// SpecAllow passes SECCOMP_FILTER_FLAG_SPEC_ALLOW (Linux 4.17).
	SpecAllow bool
	// Loader gives the calling thread the capabilities of a Loader before
	// the first filter goes in (sys.ApplyLoader): LoaderUnprivileged drops
	// CAP_SYS_ADMIN from the bounding, effective, permitted and
	// inheritable sets, so the kernel JIT-compiles the filters as for an
	// unprivileged runtime, and the program exec'd afterwards cannot get
	// the capability back; LoaderPrivileged requires it; "" changes
	// nothing.
	Loader result.Loader
}

// ExecUnderWith is ExecUnder with ExecOptions. Errors also wrap those of
// sys.ApplyLoader (ErrLoaderCaps when the read-back capabilities are wrong).
func ExecUnderWith(stack [][]byte, opts ExecOptions, argv []string, env []string) error {
	specAllow := opts.SpecAllow
	if len(argv) == 0 {
		return fmt.Errorf("exec under filters: no command")
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return fmt.Errorf("exec under filters: %w", err)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if opts.Loader != "" {
		if _, err := sys.ApplyLoader(opts.Loader, unix.Gettid()); err != nil {
			return fmt.Errorf("exec under filters: set up %s loader: %w", opts.Loader, err)
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("exec under filters: set no_new_privs: %w", err)
	}
	flags := uintptr(sys.FlagTSync)
	if specAllow {
		flags |= sys.FlagSpecAllow
	}
	for i, f := range stack {
		if err := installFilter(f, flags); err != nil {
			return fmt.Errorf("exec under filters: install filter %d of %d: %w", i, len(stack), err)
		}
	}
	if err := unix.Exec(path, argv, env); err != nil {
		return fmt.Errorf("exec under filters: execve %s: %w", path, err)
	}
	return nil
}
