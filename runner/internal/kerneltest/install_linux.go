package kerneltest

import (
	"fmt"
	"runtime"

	"github.com/seccompbench/seccompbench/runner/internal/sys"
	"golang.org/x/sys/unix"
)

// InstallFilters sets no_new_privs on the calling thread and attaches progs
// to it, oldest first, one seccomp(SECCOMP_SET_MODE_FILTER, flags, &prog)
// call each (seccomp(2)). Each element of progs is an array of struct
// sock_filter in native byte order, 8 bytes per instruction, as
// filters.Program.Bytes returns it; flags are SECCOMP_FILTER_FLAG_* values
// passed unchanged to every call, e.g. SECCOMP_FILTER_FLAG_SPEC_ALLOW.
//
// Filters and no_new_privs belong to one thread (without
// SECCOMP_FILTER_FLAG_TSYNC): the caller must have called
// runtime.LockOSThread and must never unlock, or the Go scheduler may move
// the goroutine off the filtered thread and run others on it. Once the
// first filter is attached, the rest of the installation runs without a
// stack check, so the Go runtime cannot preempt it into a syscall the
// filters deny; after InstallFilters returns, the thread runs under the
// filters, and the caller must avoid anything that needs a syscall they deny
// (futex in particular: docs/limits.md, "The Go-runtime trap").
//
// installed is the number of filters attached, also on error (filters cannot
// be removed). Errors: a malformed program (empty, not a multiple of 8
// bytes, or more than 65535 instructions) or the flag
// SECCOMP_FILTER_FLAG_NEW_LISTENER (its listener fd would be lost) before
// anything is done; "set no_new_privs: %w" wrapping the prctl(2) errno; and
// "install filter i of n: seccomp(2): %w" wrapping the errno (unix.Errno),
// e.g. EINVAL for a program over BPF_MAXINSNS or with a bad instruction,
// ENOMEM for a stack over MAX_INSNS_PER_PATH, EACCES without no_new_privs
// (kernel/seccomp.c: seccomp_prepare_filter, seccomp_attach_filter). With
// TSYNC, a thread that cannot be synchronized is named by its thread ID.
//
// It is not instrumented by the race detector (go:norace), whose hooks may
// make syscalls the new filters deny.
//
// Requires at least Linux 3.17 (seccomp(2)); each flag has its own minimum
// (seccomp(2)).
//
//go:norace
func InstallFilters(progs [][]byte, flags uint) (installed int, err error) {
	if flags&unix.SECCOMP_FILTER_FLAG_NEW_LISTENER != 0 {
		return 0, fmt.Errorf("install filters: flag SECCOMP_FILTER_FLAG_NEW_LISTENER is not supported: the listener fd would be lost")
	}
	fps := make([]sys.SockFprog, len(progs))
	for i, p := range progs {
		fp, ok := sys.NewSockFprog(p)
		if !ok {
			return 0, fmt.Errorf("install filter %d of %d: bad length %d bytes: want a non-zero multiple of 8, at most 65535 instructions", i+1, len(progs), len(p))
		}
		fps[i] = fp
	}
	// Without no_new_privs, an unprivileged task gets EACCES (seccomp(2)).
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return 0, fmt.Errorf("set no_new_privs: %w", err)
	}
	n, r1, errno := sys.InstallLoop(fps, uintptr(flags))
	runtime.KeepAlive(progs)
	if n == len(fps) {
		return n, nil
	}
	if errno != 0 {
		return n, fmt.Errorf("install filter %d of %d: seccomp(2): %w", n+1, len(fps), errno)
	}
	return n, fmt.Errorf("install filter %d of %d: seccomp(2) with SECCOMP_FILTER_FLAG_TSYNC: thread %d cannot be synchronized", n+1, len(fps), r1)
}
