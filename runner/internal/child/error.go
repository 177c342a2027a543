package child

import (
	"errors"
	"fmt"
	"strings"
	"syscall"

	"github.com/seccompbench/seccompbench/runner/result"
)

// ErrChild is wrapped by every *Error.
var ErrChild = errors.New("measuring child failed")

// Error reports a child that died, hung, failed to install its filters
// or reported a wrong filter count. It names the cell.
type Error struct {
	Cell   result.Cell
	Reason string
	// Signal is the signal that killed the child, 0 if none.
	Signal syscall.Signal
	// ExitCode is the child's exit status, -1 if killed.
	ExitCode int
	// Errno is the errno of a failed seccomp(2) call, 0 if none.
	Errno syscall.Errno
	// Stderr is the tail of the child's standard error.
	Stderr string
	// Cause, if not nil, is a sentinel the failure belongs to, e.g.
	// ErrNotSupported for a kernel without a needed feature.
	Cause error

	timedOut bool // the child was killed at its deadline
}

// Error names the cell and the reason, the signal with a hint for SIGSYS,
// and the tail of the child's standard error.
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "child for %s: %s", e.Cell, e.Reason)
	if e.Signal != 0 {
		fmt.Fprintf(&b, " (killed by signal %s)", e.Signal)
		if e.Signal == syscall.SIGSYS {
			b.WriteString(": a filter returned SECCOMP_RET_KILL_PROCESS or SECCOMP_RET_TRAP for a syscall the harness made")
		}
	}
	if s := strings.TrimSpace(e.Stderr); s != "" {
		fmt.Fprintf(&b, "\nchild stderr:\n%s", s)
	}
	return b.String()
}

// Unwrap returns ErrChild, the errno and the cause, if any.
func (e *Error) Unwrap() []error {
	errs := []error{ErrChild}
	if e.Errno != 0 {
		errs = append(errs, e.Errno)
	}
	if e.Cause != nil {
		errs = append(errs, e.Cause)
	}
	return errs
}
