package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
)

// execWant is what a flag-parsing test wants Execute to return.
type execWant struct {
	Err      bool   // an error instead of options
	Contains string // in the error's message; "" matches any error
	Usage    bool   // the error is a *cmdutil.FlagError (usage printed, exit code 2)
}

// errContaining wants an error whose message contains s, or no error when s
// is "".
func errContaining(s string) execWant { return execWant{Err: s != "", Contains: s} }

// usageErrContaining wants a *cmdutil.FlagError whose message contains s, or no
// error when s is "".
func usageErrContaining(s string) execWant {
	return execWant{Err: s != "", Contains: s, Usage: true}
}

func (w execWant) String() string {
	switch {
	case !w.Err:
		return "no error"
	case w.Usage:
		return fmt.Sprintf("a *cmdutil.FlagError containing %q", w.Contains)
	default:
		return fmt.Sprintf("an error containing %q", w.Contains)
	}
}

// parseFlags is the first test layer of a subcommand: it builds the command
// newCmd makes (a NewCmdX) with a runF that captures the options instead of
// running, executes it on args with all output going to buffers, and checks
// Execute's error against want. It returns the parsed options when no error
// is wanted and nil when one is, so the caller returns; any other outcome
// fails the test.
func parseFlags[O any](t *testing.T, newCmd func(*cmdutil.Factory, func(*O) error) *cobra.Command, args []string, want execWant) *O {
	t.Helper()
	ios, _, _, _ := cmdutil.TestIOStreams()
	var got *O
	cmd := newCmd(&cmdutil.Factory{IO: ios}, func(o *O) error { got = o; return nil })
	cmd.SetArgs(args)
	cmd.SetOut(ios.Out)
	cmd.SetErr(ios.ErrOut)
	err := cmd.Execute()
	if !want.Err {
		if err != nil {
			t.Fatalf("Execute() error = %v, want %v", err, want)
		}
		if got == nil {
			t.Fatal("Execute() returned without calling runF")
		}
		return got
	}
	var fe *cmdutil.FlagError
	if err == nil || !strings.Contains(err.Error(), want.Contains) || want.Usage && !errors.As(err, &fe) {
		t.Fatalf("Execute() error = %v, want %v", err, want)
	}
	return nil
}
