package cmdutil

import (
	"errors"
	"fmt"
	"strings"
)

// ErrFindings is returned by commands that ran fine and found what they
// look for, having printed it: lint's error-severity problems, equiv's
// counterexample, subset's looser syscalls. It gives exit status 3
// (ExitFindings) and no extra message, so a script tells "the policy has
// errors" or "the filters differ" from "the command could not check"
// (exit 1).
var ErrFindings = errors.New("error-severity findings")

// The exit codes of every command (docs/limits.md, "Exit codes";
// TestExitCodeTable checks that the two agree). A signal N gives 128 + N
// (interrupt.ExitCode).
const (
	ExitOK       = 0
	ExitFailure  = 1
	ExitUsage    = 2
	ExitFindings = 3
	// ExitUndecided is a --budget measurement that reached --max-time
	// before its bound cleared the budget or crossed it (BudgetError).
	ExitUndecided = 4
)

// BudgetError is returned by a command given --budget whose verdict is
// not "within", after the result (with the verdict as its headline) was
// written: Verdict is "over" (exit 3, ExitFindings) or "undecided" (exit
// 4, ExitUndecided); Headline is the verdict's line, which the exit-code
// mapping does not print again.
type BudgetError struct {
	Verdict  string
	Headline string
}

func (e *BudgetError) Error() string { return e.Headline }

// BudgetExitFor is the error that gives a written budget verdict
// ("within", "over", "undecided") its exit status: nil for within, else a
// *BudgetError with headline.
func BudgetExitFor(verdict, headline string) error {
	if verdict == "within" {
		return nil
	}
	return &BudgetError{Verdict: verdict, Headline: headline}
}

// Code is the exit status of the verdict.
func (e *BudgetError) Code() int {
	if e.Verdict == "over" {
		return ExitFindings
	}
	return ExitUndecided
}

// ExitCode is one row of the exit-code table.
type ExitCode struct {
	// Code is the exit status; Meaning says when a command exits with it,
	// in words that fit after "N ".
	Code    string
	Meaning string
}

// ExitCodes is the exit-code table every help text reads (ExitStatusHelp)
// and docs/limits.md documents.
var ExitCodes = []ExitCode{
	{"0", "done"},
	{"1", "failure: the command could not do its job (an input it cannot read or parse, a kernel refusal, a failed child)"},
	{"2", "usage: a bad flag, argument or -o extension, or an input of a kind the command does not take (a policy format, a JSON document of another kind)"},
	{"3", "findings"},
	{"4", "undecided: a --budget verdict that is neither within nor over"},
	{"128+N", "interrupted by signal N (130 SIGINT, 143 SIGTERM, 129 SIGHUP)"},
}

// ExitStatusHelp is the "Exit status" paragraph of a command's help text,
// from ExitCodes. findings says what exit code 3 means for the command
// (e.g. "error-severity findings"); "" leaves the row out, for commands
// that have no findings.
func ExitStatusHelp(findings string) string {
	return exitStatusHelp(findings, "")
}

// BudgetExitStatusHelp is ExitStatusHelp for a command that measures
// until --budget is decided or --max-time passes (run, estimate, top):
// exit 3 also means over budget, and exit 4 undecided, --max-time first.
func BudgetExitStatusHelp(findings string) string {
	return exitStatusHelp(findings, UndecidedMaxTime)
}

// UndecidedMaxTime is why a measuring command's --budget is undecided
// (exit 4): its bound had not cleared or crossed the budget when
// --max-time passed.
const UndecidedMaxTime = "--max-time came before the bound cleared or crossed the budget"

// BudgetExitStatusHelpWhy is ExitStatusHelp for a command that takes
// --budget, exit 4 saying why (undecided) a verdict is undecided: compare
// has no --max-time, its two results simply do not decide it.
func BudgetExitStatusHelpWhy(findings, undecided string) string {
	return exitStatusHelp(findings, undecided)
}

// exitStatusHelp writes the rows of ExitCodes, 3 with findings (left out
// when ""), 4 with undecided (left out when "").
func exitStatusHelp(findings, undecided string) string {
	var b strings.Builder
	b.WriteString("\n\nExit status (docs/limits.md, \"Exit codes\"):\n")
	for _, c := range ExitCodes {
		m := c.Meaning
		if c.Code == fmt.Sprint(ExitFindings) {
			if findings == "" {
				continue
			}
			m += ": " + findings
		}
		if c.Code == fmt.Sprint(ExitUndecided) {
			if undecided == "" {
				continue
			}
			m += ": " + undecided
		}
		fmt.Fprintf(&b, "  %-6s %s\n", c.Code, m)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
