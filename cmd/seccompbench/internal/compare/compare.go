// Package compare is the `compare` pipeline: reading run results,
// comparing each with the base (report.Compare), --budget's regression
// verdict, and the table, Markdown, JSON or HTML output.
package compare

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/results"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/runjob"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/stats"
)

// Options are what `compare` compares and how it writes it: its
// arguments and flags, checked by the command.
type Options struct {
	// Files are the result files; the first is the base.
	Files []string
	// Out are --format (table, markdown or json) and -o; Specs what to
	// write (stdout in Out.Format when nil).
	Out   output.Flags
	Specs []output.Spec
	// Confidence is --confidence, the level of every interval; Force
	// (--force) compares results of different workloads.
	Confidence float64
	Force      bool
	// BudgetText is --budget; Budget its parsed value (nil for none):
	// the regression budget of the second result against the base
	// (report.CompareBudget).
	BudgetText string
	Budget     *stats.Budget
}

// Run reads the result files, compares them and writes the comparison to
// ios or -o's files. Results of different workloads without --force are
// a usage error (*cmdutil.FlagError, exit code 2); with --budget, a
// verdict other than within is a *cmdutil.BudgetError.
func Run(ios *cmdutil.IOStreams, opts *Options) error {
	var docs []document.NamedDocument
	names := results.DisplayNames(opts.Files)
	for i, path := range opts.Files {
		d, err := cmdutil.ReadDocument(path, "result")
		if err != nil {
			return fmt.Errorf("compare: %w", err)
		}
		docs = append(docs, document.NamedDocument{Name: names[i], Doc: d})
	}
	c, err := report.Compare(docs, document.CompareOptions{Confidence: opts.Confidence, Force: opts.Force})
	if errors.Is(err, document.ErrWorkloadMismatch) {
		return &cmdutil.FlagError{Err: fmt.Errorf("%w; pass --force to compare anyway", err)}
	}
	if err != nil {
		return err
	}
	if opts.Budget != nil {
		if c.Budget, err = report.CompareBudget(docs, *opts.Budget, opts.Confidence, opts.Force); err != nil {
			return err
		}
	}
	specs := output.Or(opts.Specs, cmp.Or(opts.Out.Format, "table"))
	if slices.ContainsFunc(specs, func(s output.Spec) bool { return s.Format == "json" }) {
		// The JSON carries the warnings; say on stderr that there are some.
		for _, wn := range c.Warnings {
			fmt.Fprintln(ios.ErrOut, report.Warning(wn))
		}
	}
	err = output.WriteEach(specs, ios.Out, ios.ErrOut, func(format string, w io.Writer) error {
		switch format {
		case "json":
			return report.WriteComparisonJSON(w, c)
		case "markdown":
			return report.WriteComparisonMarkdown(w, c)
		case "html":
			entries, err := fleetEntries(docs)
			if err != nil {
				return err
			}
			return output.WriteComparisonHTML(w, c, entries)
		}
		return report.WriteComparisonText(w, c, report.TextOptions{Explain: opts.Out.Explain})
	})
	if err != nil || opts.Budget == nil {
		return err
	}
	return runjob.BudgetExit(c.Budget)
}

// fleetEntries are the compared results as rows of a fleet, for the HTML
// page's plot of their per-filter costs.
func fleetEntries(docs []document.NamedDocument) ([]document.FleetEntry, error) {
	var out []document.FleetEntry
	for _, nd := range docs {
		data, err := json.Marshal(nd.Doc)
		if err != nil {
			return nil, fmt.Errorf("encode result %s: %w", nd.Name, err)
		}
		e, err := report.ReadFleetEntry(nd.Name, data)
		if err != nil {
			return nil, fmt.Errorf("read result %s: %w", nd.Name, err)
		}
		out = append(out, e)
	}
	return out, nil
}
