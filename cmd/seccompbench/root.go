package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/complete"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/interrupt"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/report/document"
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
"schema_version" and "kind" (docs/json.md, schemas in docs/schema/).` + cmdutil.BudgetExitStatusHelpWhy("lint found error-severity problems, equiv found an input on which A and B differ, subset found syscalls where PROFILE is looser than BASELINE, or a --budget verdict (run, estimate, compare, top) is over the budget",
			"for run, estimate and top, "+cmdutil.UndecidedMaxTime+"; for compare, the two results do not decide it"),
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
	cmdutil.UsageArgs(root)
	complete.Register(root)
	cmdutil.StrictCompletion(root)
	return root
}

// run executes the command line args and returns the exit code. It is the
// only place that maps errors to exit codes.
//
// The first SIGINT, SIGTERM or SIGHUP cancels the command's context
// (interrupt.Watch). If no phase is held, run returns 128 + the signal's
// number at once; otherwise the command kills and reaps its children,
// removes its temporary files, writes a partial result and returns, with
// the same code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	now, stop := interrupt.Watch(cancel, stderr)
	defer stop()
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
	// A JSON document of the wrong kind (document.ErrWrongKind: a compare
	// document given to report) is such an input too.
	if cmdutil.IsFlagError(err) || errors.Is(err, formats.ErrUnsupportedFormat) || errors.Is(err, document.ErrWrongKind) {
		fmt.Fprintln(stderr, "Run 'seccompbench --help' or 'seccompbench COMMAND --help' for usage.")
		return exitUsage
	}
	if code, ok := interrupt.CodeFor(ctx, err); ok {
		return code
	}
	return exitFailure
}
