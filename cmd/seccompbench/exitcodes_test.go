package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/interrupt"
)

// TestExitCodeTable reads the exit-code table of docs/limits.md, checks it
// against the constants of root.go and interrupt.ExitCode, and runs every
// numeric row's example command, which must exit with that code.
func TestExitCodeTable(t *testing.T) {
	doc, err := os.ReadFile("../../docs/limits.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "## Exit codes\n")
	if !ok {
		t.Fatal(`docs/limits.md has no "## Exit codes" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	row := regexp.MustCompile("(?m)^\\| ([0-9+N]+) \\| (.*) \\| `([^`]*)`")
	rows := row.FindAllStringSubmatch(section, -1)
	documented := map[string]bool{}
	for _, r := range rows {
		documented[r[1]] = true
	}
	for _, want := range []int{exitOK, exitFailure, exitUsage, exitFindings, exitUndecided} {
		if !documented[strconv.Itoa(want)] {
			t.Errorf("exit code %d (root.go) is not in the docs/limits.md table", want)
		}
	}
	for _, c := range cmdutil.ExitCodes {
		if !documented[c.Code] {
			t.Errorf("exit code %s (cmdutil.ExitCodes) is not in the docs/limits.md table", c.Code)
		}
	}
	if len(cmdutil.ExitCodes) != len(rows) {
		t.Errorf("cmdutil.ExitCodes has %d rows, docs/limits.md %d", len(cmdutil.ExitCodes), len(rows))
	}
	if !documented["128+N"] {
		t.Error("the signal exit codes (128+N) are not in the table")
	}
	for sig, want := range map[syscall.Signal]int{syscall.SIGINT: 130, syscall.SIGTERM: 143, syscall.SIGHUP: 129} {
		if got := interrupt.ExitCode(sig); got != want || !strings.Contains(section, strconv.Itoa(want)+" "+interrupt.Name(sig)) {
			t.Errorf("%s: interrupt.ExitCode = %d, want %d, written as %q in the table", interrupt.Name(sig), got, want, strconv.Itoa(want)+" "+interrupt.Name(sig))
		}
	}
	for _, r := range rows {
		code, err := strconv.Atoi(r[1])
		if err != nil {
			continue // 128+N: TestInterruptedRun and TestFirstSignalEndsBlockedInput
		}
		t.Run(r[3], func(t *testing.T) {
			args := strings.Fields(r[3])
			if args[0] != "seccompbench" {
				t.Fatalf("example %q does not start with seccompbench", r[3])
			}
			args = args[1:]
			for i, a := range args {
				if strings.HasPrefix(a, "testdata/") {
					args[i] = "../../" + a
				}
			}
			var out, errb bytes.Buffer
			if got := run(args, strings.NewReader(""), &out, &errb); got != code {
				t.Errorf("exit %d, want %d (docs/limits.md); stderr:\n%s", got, code, errb.String())
			}
		})
	}
	if len(rows) < 6 {
		t.Errorf("found %d rows in the table, want 6", len(rows))
	}
}

// TestHelpExitStatus: every command's help text ends with the exit-status
// lines of cmdutil.ExitCodes, and only lint and equiv (and the root) list
// exit code 3, each saying what it means there; no help text gives
// another code for findings (lint's once said 1).
func TestHelpExitStatus(t *testing.T) {
	ios, _, _, _ := cmdutil.TestIOStreams()
	root := NewCmdRoot(&cmdutil.Factory{IO: ios})
	findings := map[string]string{"seccompbench": "lint found", "lint": "error-severity finding", "equiv": "A and B differ", "subset": "looser than BASELINE", "run": "over the budget", "estimate": "over the budget", "compare": "regressed by more than the budget", "top": "share is over the budget"}
	for _, c := range append(root.Commands(), root) {
		if c.Hidden || c.Name() == "completion" || c.Name() == "help" || c.Name() == "version" {
			continue
		}
		t.Run(c.Name(), func(t *testing.T) {
			_, tail, ok := strings.Cut(c.Long, "Exit status (docs/limits.md")
			if !ok {
				t.Fatalf("--help has no exit-status lines:\n%s", c.Long)
			}
			want, has3 := findings[c.Name()]
			if got := strings.Contains(tail, "\n  3 "); got != has3 {
				t.Errorf("exit code 3 listed: %v, want %v", got, has3)
			}
			if has3 && !strings.Contains(tail, want) {
				t.Errorf("exit code 3 does not say %q:\n%s", want, tail)
			}
			if strings.Contains(c.Long, "exit code is 1") {
				t.Error("help text gives exit code 1 for findings")
			}
		})
	}
}

// An error that ends in the cancelled context's "context canceled" is
// printed as the interruption it was, naming the signal and the step.
func TestExitCodeNamesTheSignal(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("measure the command: %w", context.Canceled), "seccompbench: interrupted by SIGINT (measure the command)\n"},
		{context.Canceled, "seccompbench: interrupted by SIGINT\n"},
		{&interrupt.SignalError{Signal: syscall.SIGINT}, "seccompbench: interrupted by SIGINT\n"},
	} {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(&interrupt.SignalError{Signal: syscall.SIGINT})
		var b bytes.Buffer
		if code := exitCode(ctx, tt.err, &b); code != 130 || b.String() != tt.want {
			t.Errorf("exitCode(%v) = %d, printed %q; want 130, %q", tt.err, code, b.String(), tt.want)
		}
	}
}

// TestHelpUndecided: every command that takes --budget, and the root,
// list exit 4 and say why a verdict is undecided in that command's own
// terms: compare has no --max-time (its two results do not decide it),
// the measuring commands stop at --max-time; the root also says exit 3
// is an over-budget verdict. The root listed neither, and compare's
// exit 4 spoke of --max-time.
func TestHelpUndecided(t *testing.T) {
	ios, _, _, _ := cmdutil.TestIOStreams()
	root := NewCmdRoot(&cmdutil.Factory{IO: ios})
	want := map[string][]string{
		"seccompbench": {"--max-time came before", "for compare, the two results do not decide it"},
		"compare":      {"the two results do not decide it"},
		"run":          {"--max-time came before"}, "estimate": {"--max-time came before"}, "top": {"--max-time came before"},
	}
	for _, c := range append(root.Commands(), root) {
		w, ok := want[c.Name()]
		if !ok {
			continue
		}
		_, tail, _ := strings.Cut(c.Long, "Exit status (docs/limits.md")
		_, four, ok := strings.Cut(tail, "\n  4 ")
		four, _, _ = strings.Cut(four, "\n")
		if !ok {
			t.Errorf("%s --help has no exit 4:\n%s", c.Name(), tail)
			continue
		}
		for _, s := range w {
			if !strings.Contains(four, s) {
				t.Errorf("%s --help: exit 4 %q lacks %q", c.Name(), four, s)
			}
		}
		if c.Name() == "compare" && strings.Contains(four, "--max-time") {
			t.Errorf("compare --help: exit 4 %q speaks of --max-time, which compare does not take", four)
		}
		delete(want, c.Name())
	}
	if len(want) > 0 {
		t.Errorf("commands not found: %v", want)
	}
	_, tail, _ := strings.Cut(root.Long, "Exit status (docs/limits.md")
	if _, three, _ := strings.Cut(tail, "\n  3 "); !strings.Contains(strings.SplitN(three, "\n", 2)[0], "--budget verdict") {
		t.Errorf("root --help: exit 3 does not say it is an over-budget verdict too:\n%s", tail)
	}
}
