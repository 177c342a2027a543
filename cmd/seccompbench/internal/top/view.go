package top

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/stats"
)

// View says how Report shows what it samples.
type View struct {
	// Duration is the one window of a one-shot report; 0 asks for the
	// live view.
	Duration time.Duration
	// Refresh is the live view's window per redraw.
	Refresh time.Duration
	// Specs are the outputs of a one-shot report (nil: stdout in Format).
	Specs []output.Spec
	// Format is "table" or "json".
	Format string
	// MaxSyscalls is the number of syscalls the table lists per process.
	MaxSyscalls int
	// Explain adds the sampling method and its cost to the table.
	Explain bool
	// Budget, when set (a % of the targets' CPU), samples windows of
	// Refresh until the seccomp share is decided within or over it, or
	// MaxTime passes, and writes the last window with the verdict
	// (budget.go).
	Budget  *stats.Budget
	MaxTime time.Duration
}

// Report samples the processes o selects and renders them: one window of
// v.Duration written to v.Specs, or, when v.Duration is 0, a live view
// redrawn on out every v.Refresh (the screen cleared as top(1) does)
// until ctx ends. Nothing stays attached when it returns.
func Report(ctx context.Context, o *Options, v View, out, errOut io.Writer) error {
	w, err := Open(o)
	if err != nil {
		return err
	}
	defer w.Close()
	render := func(t *document.Top) func(string, io.Writer) error {
		return func(format string, out io.Writer) error {
			if format == "json" {
				return report.WriteTopJSON(out, t)
			}
			report.WriteTopText(out, t, v.MaxSyscalls, report.TextOptions{Explain: v.Explain})
			return nil
		}
	}
	if v.Budget != nil {
		return budgetReport(ctx, w, o, v, out, errOut, render)
	}
	if v.Duration > 0 {
		t, err := w.Window(ctx, v.Duration)
		if err != nil {
			return err
		}
		if err := output.WriteEach(output.Or(v.Specs, v.Format), out, errOut, render(t)); err != nil {
			return err
		}
		// A signal's cause (interrupt.SignalError) names it and maps to
		// 128+N; the partial window was written above.
		return context.Cause(ctx)
	}
	for {
		t, err := w.Window(ctx, v.Refresh)
		if err != nil {
			return err
		}
		if ctx.Err() != nil {
			// Ctrl-C ends the live view as a signal ends every command:
			// exit 128+N (docs/limits.md).
			return context.Cause(ctx)
		}
		if v.Format == "table" {
			// Clear the screen and home the cursor (ANSI), as top(1) does.
			fmt.Fprint(out, "\x1b[H\x1b[2J")
		}
		if err := render(t)(v.Format, out); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
	}
}
