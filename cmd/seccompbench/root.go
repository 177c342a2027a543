package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
)

// Exit codes of the command (DEVELOPERS.md): 0 ok, 1 failure, 2 usage,
// 130 interrupted.
const (
	exitOK          = 0
	exitFailure     = 1
	exitUsage       = 2
	exitInterrupted = 130
)

// NewCmdRoot builds the command tree, adding every command explicitly.
func NewCmdRoot(f *cmdutil.Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "seccompbench",
		Short: "Measure what seccomp filters cost per syscall, and why",
		Long: `seccompbench compiles seccomp policies to BPF filters, stacks them 0..32 deep
in fresh child processes, times syscall loops, and reports the per-filter
overhead with confidence intervals, together with the reason behind each
number: the kernel's action cache, instructions executed, mitigations.`,
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
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &cmdutil.FlagError{Err: err}
	})
	root.AddCommand(
		NewCmdRun(f, nil),
		NewCmdCompile(f, nil),
		NewCmdSimulate(f, nil),
		NewCmdLint(f, nil),
		NewCmdCompare(f, nil),
		NewCmdMerge(f, nil),
		NewCmdOptimize(f, nil),
		NewCmdEquiv(f, nil),
		NewCmdEstimate(f, nil),
		NewCmdInspect(f, nil),
		NewCmdBudget(f, nil),
		NewCmdSandbox(f, nil),
		NewCmdVersion(f, nil),
		NewCmdMan(f, nil),
	)
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
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	// The first SIGINT/SIGTERM/SIGHUP (a dropped ssh session) cancels ctx: children are killed and reaped,
	// temporary files removed, a partial result written if -o was given.
	// Then the default handling comes back, so a second one ends the
	// process at once (children die with it: PR_SET_PDEATHSIG).
	go func() { <-ctx.Done(); stop() }()
	ios := &cmdutil.IOStreams{In: stdin, Out: stdout, ErrOut: stderr, ErrTTY: cmdutil.IsTerminal(stderr)}
	f := &cmdutil.Factory{IO: ios, Now: time.Now, Context: ctx}
	root := NewCmdRoot(f)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	return exitCode(err, stderr)
}

func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	if errors.Is(err, errFindings) {
		// The findings were printed; the exit code says the rest.
		return exitFailure
	}
	fmt.Fprintf(stderr, "seccompbench: %v\n", err)
	switch {
	case cmdutil.IsFlagError(err):
		fmt.Fprintln(stderr, "Run 'seccompbench --help' or 'seccompbench COMMAND --help' for usage.")
		return exitUsage
	case errors.Is(err, context.Canceled):
		return exitInterrupted
	}
	return exitFailure
}

// errFindings is returned by commands that ran fine but found what makes
// the exit code 1, having printed it: lint's error-severity problems,
// equiv's counterexample. No extra message.
var errFindings = errors.New("error-severity findings")
