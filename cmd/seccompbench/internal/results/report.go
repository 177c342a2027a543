package results

import (
	"errors"
	"fmt"
	"io"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/report/chart"
	"github.com/seccompbench/seccompbench/report/document"
)

// Report reads the result files (Read), lays them out as a fleet
// (report.BuildFleet) and writes it to every output of specs; explain is
// --explain. A JSON document that is not a run result is an error
// wrapping document.ErrWrongKind (a usage error, exit status 2).
func Report(ios *cmdutil.IOStreams, files []string, specs []output.Spec, explain bool) error {
	inputs, err := Read(files, ios.In, ios.ErrOut)
	if err != nil {
		return err
	}
	var entries []document.FleetEntry
	for _, in := range inputs {
		e, err := report.ReadFleetEntry(in.Name, in.Data)
		if errors.Is(err, document.ErrWrongKind) {
			return fmt.Errorf("report: %s is %w", in.Name, err)
		}
		if err != nil {
			return fmt.Errorf("read result %s: %w", in.Name, err)
		}
		entries = append(entries, e)
	}
	fl, err := report.BuildFleet(entries)
	if err != nil {
		return err
	}
	return output.WriteEach(specs, ios.Out, ios.ErrOut, func(format string, w io.Writer) error {
		switch format {
		case "json":
			for _, wn := range fl.Warnings {
				fmt.Fprintln(ios.ErrOut, report.Warning(wn))
			}
			return report.WriteFleetJSON(w, fl)
		case "markdown":
			return report.WriteFleetMarkdown(w, fl)
		case "csv":
			return report.WriteFleetCSV(w, ios.ErrOut, fl)
		case "benchstat":
			return report.WriteFleetBenchstat(w, ios.ErrOut, entries)
		case "svg":
			return chart.WriteFleetSVG(w, fl)
		case "png":
			return chart.WriteFleetPNG(w, fl)
		case "html":
			return output.WriteFleetHTML(w, fl)
		}
		return report.WriteFleetText(w, fl, report.TextOptions{Explain: explain})
	})
}
