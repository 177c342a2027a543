// Package cmdutil holds what every seccompbench command shares: the
// standard streams, the factory of injected dependencies, the usage error
// type, the --compiler flag, policy opening and the tool's version.
package cmdutil

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"
)

// IOStreams are the command's standard streams. Results go to Out; progress,
// warnings and status go to ErrOut.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// ErrTTY reports whether ErrOut is a terminal (progress is shown only
	// then).
	ErrTTY bool
	// Quiet is -q: ErrOut is io.Discard (AddQuietFlag).
	Quiet bool
}

// TestIOStreams returns streams backed by buffers, and the buffers (in, out,
// errOut).
func TestIOStreams() (*IOStreams, *bytes.Buffer, *bytes.Buffer, *bytes.Buffer) {
	in, out, errOut := &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut}, in, out, errOut
}

// IsTerminal reports whether w is a character device (a terminal).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// Factory carries what commands need from outside: streams, clock, context.
type Factory struct {
	IO  *IOStreams
	Now func() time.Time
	// Context is cancelled on SIGINT/SIGTERM.
	Context context.Context
}

// FlagError is a usage error: the command prints its usage and exits 2.
type FlagError struct{ Err error }

// Error returns the wrapped error's message.
func (e *FlagError) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error.
func (e *FlagError) Unwrap() error { return e.Err }

// FlagErrorf returns a *FlagError with the formatted message.
func FlagErrorf(format string, args ...any) error {
	return &FlagError{Err: fmt.Errorf(format, args...)}
}

// IsFlagError reports whether err is or wraps a *FlagError.
func IsFlagError(err error) bool {
	var fe *FlagError
	return errors.As(err, &fe)
}

// InterruptedError reports an interrupted run in the user's words; it
// unwraps to the context's error (context.Canceled), which maps to exit
// code 130.
type InterruptedError struct {
	Msg string
	Err error
}

// Error returns the message for the user.
func (e *InterruptedError) Error() string { return e.Msg }

// Unwrap returns the context's error (context.Canceled).
func (e *InterruptedError) Unwrap() error { return e.Err }

// AddQuietFlag adds the persistent -q/--quiet to root: with it, a command
// prints nothing on standard error but its error (progress, "wrote FILE"
// lines and warnings go nowhere; JSON, Markdown and table results still
// carry their warnings), so logs stay clean. ios.Quiet records it.
func AddQuietFlag(root *cobra.Command, ios *IOStreams) {
	root.PersistentFlags().BoolVarP(&ios.Quiet, "quiet", "q", false, "print nothing on stderr but errors: no progress, no \"wrote FILE\" lines, no warnings")
	root.PersistentPreRun = func(*cobra.Command, []string) {
		if ios.Quiet {
			ios.ErrOut = io.Discard
		}
	}
}
