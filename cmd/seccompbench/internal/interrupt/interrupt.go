// Package interrupt decides what the first SIGINT, SIGTERM or SIGHUP does
// to seccompbench. While no command holds a phase that must end cleanly,
// the process exits at once with 128 + the signal's number: reading
// inputs (a FIFO without a writer blocks open(2) for ever), parsing and
// compiling leave nothing behind. While one does (children measuring, an
// output file being written, processes being traced), the signal only
// cancels the command's context: the command kills and reaps its children,
// removes its temporary files, writes what it has and returns, and the
// exit code is the same 128 + number.
package interrupt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
)

var (
	mu   sync.Mutex
	held int
)

// Hold marks the start of a phase that must not be cut short by the first
// signal; the returned function marks its end. Phases nest.
func Hold() (release func()) {
	mu.Lock()
	held++
	mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			mu.Lock()
			held--
			mu.Unlock()
		})
	}
}

// Signalled records that a signal arrived and reports whether the process
// may exit at once (no phase is held).
func Signalled() (exitNow bool) {
	mu.Lock()
	defer mu.Unlock()
	return held == 0
}

// SignalError is the cause of a context cancelled by a signal.
type SignalError struct{ Signal os.Signal }

// Error names the signal.
func (e *SignalError) Error() string { return fmt.Sprintf("interrupted by %s", Name(e.Signal)) }

// Unwrap returns context.Canceled, so a command that returns the
// context's error maps to the signal's exit code.
func (e *SignalError) Unwrap() error { return context.Canceled }

// Name returns the signal's name as a shell shows it: "SIGINT".
func Name(sig os.Signal) string {
	switch sig {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return sig.String()
}

// ExitCode returns 128 + the signal's number, what a shell reports for a
// process the signal killed: 130 for SIGINT, 143 for SIGTERM, 129 for
// SIGHUP. Signals without a number give 130.
func ExitCode(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 130
}

// CodeFor returns the exit code for a command that ended with err after
// ctx was cancelled: ExitCode of the signal that caused it, 130 when the
// cause is not a signal. ok is false when err is not an interruption.
func CodeFor(ctx context.Context, err error) (code int, ok bool) {
	if err == nil || !errors.Is(err, context.Canceled) {
		return 0, false
	}
	var se *SignalError
	if errors.As(context.Cause(ctx), &se) {
		return ExitCode(se.Signal), true
	}
	return 130, true
}
