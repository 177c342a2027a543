package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/complete"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/interrupt"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/report"
)

// Exit codes of the command: cmdutil.ExitCodes is the one table, which
// every help text reads and docs/limits.md ("Exit codes") documents
// (TestExitCodeTable checks the two agree).
const (
	exitOK        = cmdutil.ExitOK
	exitFailure   = cmdutil.ExitFailure
	exitUsage     = cmdutil.ExitUsage
	exitFindings  = cmdutil.ExitFindings
	exitUndecided = cmdutil.ExitUndecided
)

// NewCmdRoot builds the command tree, adding every command explicitly.
func NewCmdRoot(f *cmdutil.Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "seccompbench",
		Short: "Measure what seccomp filters cost per syscall, and why",
		Long: `seccompbench compiles seccomp policies to BPF filters, stacks them 0..32 deep
in fresh child processes, times syscall loops, and reports the per-filter
overhead with confidence intervals, together with the reason behind each
number: the kernel's action cache, instructions executed, mitigations.

Every command that prints a result writes it to -o FILE (atomically) in
the --format the file's extension names; JSON outputs carry
"schema_version" and "kind" (docs/json.md, schemas in docs/schema/).` + cmdutil.ExitStatusHelp("lint found error-severity problems, equiv found an input on which A and B differ, subset found syscalls where PROFILE is looser than BASELINE"),
		SilenceErrors: true,
		SilenceUsage:  true,
		Version:       cmdutil.Version(),
		Args:          cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return cmdutil.FlagErrorf("unknown command %q", args[0])
			}
			return cmd.Help()
		},
	}
	root.SetVersionTemplate(cmdutil.VersionLine())
	root.SetIn(f.IO.In)
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	cmdutil.AddQuietFlag(root, f.IO)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &cmdutil.FlagError{Err: cmdutil.FlagValueError(err)}
	})
	root.AddCommand(
		NewCmdRun(f, nil),
		NewCmdCompile(f, nil),
		NewCmdSimulate(f, nil),
		NewCmdLint(f, nil),
		NewCmdCompare(f, nil),
		NewCmdReport(f, nil),
		NewCmdMerge(f, nil),
		NewCmdOptimize(f, nil),
		NewCmdEquiv(f, nil),
		NewCmdSubset(f, nil),
		NewCmdIntersect(f, nil),
		NewCmdEstimate(f, nil),
		NewCmdInspect(f, nil),
		NewCmdTop(f, nil),
		NewCmdBudget(f, nil),
		NewCmdSandbox(f, nil),
		NewCmdVersion(f, nil),
		NewCmdMan(f, nil),
	)
	usageArgs(root)
	complete.Register(root)
	strictCompletion(root)
	return root
}

// strictCompletion adds cobra's completion command now, not when the
// root executes, so that a shell it has no script for (`completion
// tcsh`), or none, is a usage error naming the shells it has (exit 2)
// rather than its help with exit 0.
func strictCompletion(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		var shells []string
		for _, sub := range c.Commands() {
			shells = append(shells, sub.Name())
		}
		want := strings.Join(shells[:len(shells)-1], ", ") + " or " + shells[len(shells)-1]
		c.Args = cobra.ArbitraryArgs
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmdutil.FlagErrorf("completion: name a shell: %s", want)
			}
			return cmdutil.FlagErrorf("completion: no script for shell %q; want %s", args[0], want)
		}
	}
}

// usageArgs makes the positional-argument checks of c and its subcommands
// (cobra.MinimumNArgs and the like) return *FlagError, so a missing or extra
// argument is a usage error (exit 2) like a bad flag.
func usageArgs(c *cobra.Command) {
	if check := c.Args; check != nil {
		c.Args = func(cmd *cobra.Command, args []string) error {
			if err := check(cmd, args); err != nil {
				if cmdutil.IsFlagError(err) {
					return err
				}
				return &cmdutil.FlagError{Err: fmt.Errorf("%s: %w (usage: %s)", cmd.Name(), err, cmd.UseLine())}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		usageArgs(sub)
	}
}

// run executes the command line args and returns the exit code. It is the
// only place that maps errors to exit codes.
//
// The first SIGINT, SIGTERM or SIGHUP (a dropped ssh session) cancels the
// command's context with an *interrupt.SignalError. If no phase is held
// (interrupt.Hold: children running, output being written) run returns
// 128 + the signal's number at once, even while the command is blocked
// opening or reading an input (a FIFO without a writer); otherwise the
// command kills and reaps its children, removes its temporary files,
// writes a partial result and returns, with the same code. A second
// signal while a phase is held does not lose that result: timeout(1)
// sends SIGINT to the process and then to its group, so two arrive at
// once. It is honoured after the write (the command is returning
// anyway); only then does the signals' default action come back, so a
// third ends the process at once (children die with it:
// PR_SET_PDEATHSIG).
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	sigc := make(chan os.Signal, 1)
	signal.Notify(sigc, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigc)
	now := make(chan os.Signal, 1)
	finished := make(chan struct{})
	defer close(finished)
	go func() {
		for n := 0; ; n++ {
			var sig os.Signal
			select {
			case sig = <-sigc:
			case <-finished:
				return
			}
			if n == 0 {
				cancel(&interrupt.SignalError{Signal: sig})
			}
			if interrupt.Signalled() {
				now <- sig
				return
			}
			if n > 0 {
				// The second: the partial result is being written;
				// the next signal ends the process at once.
				signal.Stop(sigc)
				fmt.Fprintf(stderr, "seccompbench: %s again: writing the partial result first (a third signal ends at once)\n", interrupt.Name(sig))
				return
			}
		}
	}()
	ios := &cmdutil.IOStreams{In: stdin, Out: stdout, ErrOut: stderr, ErrTTY: cmdutil.IsTerminal(stderr)}
	f := &cmdutil.Factory{IO: ios, Now: time.Now, Context: ctx}
	root := NewCmdRoot(f)
	root.SetArgs(args)
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	select {
	case err := <-done:
		return exitCode(ctx, err, stderr)
	case sig := <-now:
		fmt.Fprintf(stderr, "seccompbench: interrupted by %s\n", interrupt.Name(sig))
		return interrupt.ExitCode(sig)
	}
}

// exitCode maps the error a command returned to the exit code, printing
// the error; ctx is the command's context, whose cause names the signal
// of an interruption.
func exitCode(ctx context.Context, err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	if errors.Is(err, cmdutil.ErrFindings) {
		// The findings were printed; the exit code says the rest.
		return exitFindings
	}
	if be := (*cmdutil.BudgetError)(nil); errors.As(err, &be) {
		// The verdict was written as the result's headline.
		return be.Code()
	}
	msg := err.Error()
	var se *interrupt.SignalError
	if errors.As(context.Cause(ctx), &se) && strings.HasSuffix(msg, context.Canceled.Error()) {
		// "…: context canceled" says less than the signal that did it.
		if what := strings.TrimSuffix(strings.TrimSuffix(msg, context.Canceled.Error()), ": "); what != "" {
			msg = fmt.Sprintf("%s (%s)", se.Error(), what)
		} else {
			msg = se.Error()
		}
	}
	fmt.Fprintf(stderr, "seccompbench: %s\n", msg)
	// A usage error: a bad flag or argument, or an input of a kind this
	// command does not take (formats.ErrUnsupportedFormat; the message
	// names what takes it), whichever command found it.
	// A JSON document of the wrong kind (report.ErrWrongKind: a compare
	// document given to report) is such an input too.
	if cmdutil.IsFlagError(err) || errors.Is(err, formats.ErrUnsupportedFormat) || errors.Is(err, report.ErrWrongKind) {
		fmt.Fprintln(stderr, "Run 'seccompbench --help' or 'seccompbench COMMAND --help' for usage.")
		return exitUsage
	}
	if code, ok := interrupt.CodeFor(ctx, err); ok {
		return code
	}
	return exitFailure
}
