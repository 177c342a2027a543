package estimate

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/runjob"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/report/document"
)

// View is how `estimate` shows the estimate, from its flags.
type View struct {
	// Top is the number of syscall rows in the table (0: all); Format
	// --format; Specs what to write (-o and --format).
	Top    int
	Format string
	Specs  []output.Spec
	// Quiet is -q: no progress on standard error.
	Quiet bool
	// Explain is --explain (-v): the text adds the profile, stack, model
	// and the total's breakdown around the table.
	Explain bool
}

// Execute computes the estimate of o (RunHeld: calibration, prediction,
// the --command measurement) and writes it to every output of v, its
// warnings on ios.ErrOut; progress goes to ios.ErrOut unless v.Quiet.
// An unwritable -o fails before calibrating. With --budget a verdict
// other than within is a *cmdutil.BudgetError; interrupted while
// measuring the command, the prediction is still written and the error
// is a *cmdutil.InterruptedError saying where.
func Execute(ctx context.Context, ios *cmdutil.IOStreams, o *Options, v *View) error {
	if ctx == nil {
		ctx = context.Background()
	}
	v.Specs = output.Or(v.Specs, v.Format)
	// Refuse an unwritable -o before calibrating, not after.
	if err := output.Check(v.Specs); err != nil {
		return err
	}
	if !v.Quiet {
		o.Progress = ios.ErrOut
	}
	e, done, runErr := RunHeld(ctx, o, ios.ErrOut)
	// Until the estimate is written a second signal waits (--command).
	defer done()
	if e == nil {
		return runErr
	}
	// JSON and Markdown carry the warnings; the table has them on stderr.
	for _, w := range e.Warnings {
		fmt.Fprintln(ios.ErrOut, report.Warning(w))
	}
	err := write(ios, v, e)
	if runErr == nil {
		if err == nil && o.Budget != nil {
			// Exit 3 over, 4 undecided (the verdict heads the output).
			err = runjob.BudgetExit(e.Budget)
		}
		return err
	}
	// Interrupted while measuring the command: the prediction is written,
	// marked partial; the exit code is the signal's.
	where := "partial estimate (the prediction; no measured figures) printed above"
	if err != nil {
		where = err.Error()
	} else if files := outputFiles(v.Specs); len(files) > 0 {
		where = "partial estimate (the prediction; no measured figures) written to " + strings.Join(files, ", ")
	}
	return &cmdutil.InterruptedError{Msg: fmt.Sprintf("estimate interrupted while measuring the command; %s", where), Err: runErr}
}

// write writes e to every output of v.
func write(ios *cmdutil.IOStreams, v *View, e *document.Estimate) error {
	return output.WriteEach(v.Specs, ios.Out, ios.ErrOut, func(format string, w io.Writer) error {
		switch format {
		case "json":
			return report.WriteEstimateJSON(w, e)
		case "markdown":
			return report.WriteEstimateMarkdown(w, e, v.Top)
		case "html":
			return output.WriteEstimateHTML(w, e, v.Top)
		}
		report.WriteEstimateTextOpts(w, e, v.Top, report.TextOptions{Explain: v.Explain})
		return nil
	})
}

// outputFiles lists the -o files of specs, in order; none for stdout.
func outputFiles(specs []output.Spec) []string {
	var files []string
	for _, s := range specs {
		if s.Path != "" {
			files = append(files, s.Path)
		}
	}
	return files
}
