package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
)

// Exit codes of the command (DEVELOPERS.md): 0 ok, 1 failure, 2 usage,
// 130 interrupted.
const (
	exitOK          = 0
	exitFailure     = 1
	exitUsage       = 2
	exitInterrupted = 130
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
}

// testIOStreams returns streams backed by buffers, and the buffers.
func testIOStreams() (*IOStreams, *bytes.Buffer, *bytes.Buffer, *bytes.Buffer) {
	in, out, errOut := &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut}, in, out, errOut
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

func (e *FlagError) Error() string { return e.Err.Error() }
func (e *FlagError) Unwrap() error { return e.Err }

func flagErrorf(format string, args ...any) error {
	return &FlagError{Err: fmt.Errorf(format, args...)}
}

// NewCmdRoot builds the command tree.
func NewCmdRoot(f *Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "seccompbench",
		Short: "Measure what seccomp filters cost per syscall, and why",
		Long: `seccompbench compiles seccomp policies to BPF filters, stacks them 0..32 deep
in fresh child processes, times syscall loops, and reports the per-filter
overhead with confidence intervals, together with the reason behind each
number: the kernel's action cache, instructions executed, mitigations.`,
		SilenceErrors: true,
		SilenceUsage:  true,
		Version:       version(),
		Args:          cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return flagErrorf("unknown command %q", args[0])
			}
			return cmd.Help()
		},
	}
	root.SetVersionTemplate(versionLine())
	root.SetIn(f.IO.In)
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &FlagError{Err: err}
	})
	root.AddCommand(NewCmdRun(f, nil))
	for _, add := range extraCommands {
		root.AddCommand(add(f))
	}
	usageArgs(root)
	return root
}

// usageArgs makes the positional-argument checks of c and its subcommands
// (cobra.MinimumNArgs and the like) return *FlagError, so a missing or extra
// argument is a usage error (exit 2) like a bad flag.
func usageArgs(c *cobra.Command) {
	if check := c.Args; check != nil {
		c.Args = func(cmd *cobra.Command, args []string) error {
			if err := check(cmd, args); err != nil {
				var fe *FlagError
				if errors.As(err, &fe) {
					return err
				}
				return &FlagError{Err: fmt.Errorf("%s: %w (usage: %s)", cmd.Name(), err, cmd.UseLine())}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		usageArgs(sub)
	}
}

// extraCommands are added by other files of this package (each registers
// its NewCmdX in an init function), so commands stay one file each.
var extraCommands []func(*Factory) *cobra.Command

// run executes the command line args and returns the exit code. It is the
// only place that maps errors to exit codes.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	// The first SIGINT/SIGTERM/SIGHUP (a dropped ssh session) cancels ctx: children are killed and reaped,
	// temporary files removed, a partial result written if -o was given.
	// Then the default handling comes back, so a second one ends the
	// process at once (children die with it: PR_SET_PDEATHSIG).
	go func() { <-ctx.Done(); stop() }()
	ios := &IOStreams{In: stdin, Out: stdout, ErrOut: stderr, ErrTTY: isTerminal(stderr)}
	f := &Factory{IO: ios, Now: time.Now, Context: ctx}
	root := NewCmdRoot(f)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	return exitCode(err, root, stderr)
}

func exitCode(err error, root *cobra.Command, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	if errors.Is(err, errFindings) {
		// The findings were printed; the exit code says the rest.
		return exitFailure
	}
	fmt.Fprintf(stderr, "seccompbench: %v\n", err)
	var fe *FlagError
	switch {
	case errors.As(err, &fe):
		fmt.Fprintln(stderr, "Run 'seccompbench --help' or 'seccompbench COMMAND --help' for usage.")
		return exitUsage
	case errors.Is(err, context.Canceled):
		return exitInterrupted
	}
	return exitFailure
}

// errFindings is returned by commands (lint) that ran fine but found
// error-severity problems: exit code 1, no extra message.
var errFindings = errors.New("error-severity findings")

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func asFlagError(err error, target **FlagError) bool { return errors.As(err, target) }
