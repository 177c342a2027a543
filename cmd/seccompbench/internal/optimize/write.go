package optimize

import (
	"fmt"
	"io"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/report/document"
)

// WriteBuilt writes the built program p (merge's, optimize's or
// intersect's) to every output of specs (stdout directly, files
// atomically): raw as an array of struct sock_filter, json with the
// summary sum, or text as a disassembly.
func WriteBuilt(ios *cmdutil.IOStreams, specs []output.Spec, p *filters.Program, sum *document.BuildSummary) error {
	return output.WriteEach(specs, ios.Out, ios.ErrOut, func(format string, w io.Writer) error {
		switch format {
		case "raw":
			if _, err := w.Write(p.Bytes()); err != nil {
				return fmt.Errorf("write filter: %w", err)
			}
			return nil
		case "json":
			return report.WriteBuildJSON(w, p, sum)
		}
		return filters.FormatText(w, p)
	})
}
