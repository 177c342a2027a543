package inspect

import (
	"fmt"
	"io"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
	"github.com/seccompbench/seccompbench/report"
)

// Run collects the processes opts selects (Collect), writes their
// filters to every output of specs and says on ios.ErrOut what --save
// wrote (or why nothing). The error is Collect's or the first process's
// (Collected.Err), after every output is written.
func Run(ios *cmdutil.IOStreams, opts *Options, specs []output.Spec) error {
	c, err := Collect(opts)
	if err != nil {
		return err
	}
	out := c.Reports()
	err = output.WriteEach(specs, ios.Out, ios.ErrOut, func(format string, w io.Writer) error {
		if format == "json" {
			return report.WriteInspectJSON(w, out, c.Skipped)
		}
		for i, j := range out {
			if i > 0 {
				fmt.Fprintln(w)
			}
			report.WriteInspectText(w, j, opts.Disasm)
		}
		if opts.All {
			fmt.Fprintf(w, "\n%d processes in seccomp mode; %d others without seccomp (or unreadable) not shown\n", len(out), c.Skipped)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, p := range c.Processes {
		switch {
		case p.Report.Saved != "":
			fmt.Fprintf(ios.ErrOut, "saved %s of pid %d to %s\n", report.Plural(len(p.Stack), "filter"), p.Report.Pid, p.Report.Saved)
		case opts.Save != "" && p.Report.Error == "" && len(p.Stack) == 0:
			// Nothing to write: say so rather than leave --save silent.
			fmt.Fprintf(ios.ErrOut, "pid %d has no seccomp filters: nothing saved to %s\n", p.Report.Pid, opts.Save)
		}
	}
	return c.Err()
}
