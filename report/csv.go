package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"

	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/report/internal/text"
)

// CSVHeader is the header row of [WriteCSV].
var CSVHeader = []string{"variant", "filters", "block", "seq", "ns_per_op", "install_ns_total", "cpu", "filters_seen", "workload", "loader", "pad", "cap_sys_admin"}

// WriteCSV writes one row per measuring child (the unit of replication), in
// run order, for people's own analysis. Columns ([CSVHeader]): variant;
// filters (stack depth); block (the randomized block, i.e. the trial,
// 0-based); seq (position in the run, 0-based); ns_per_op (the child's
// median sample, ns per op); install_ns_total (summed seccomp(2) time, ns);
// cpu (pinned CPU, -1 none); filters_seen (Seccomp_filters after installing,
// -1 unknown); workload; loader ("unprivileged", "privileged", or empty
// for older documents); pad (never-executed instructions appended to every
// filter); cap_sys_admin (read back in the child before seccomp(2)).
//
// A document without per-child records (written before they were added)
// yields rows from results[].samples_ns with empty block, seq,
// install_ns_total, cpu and filters_seen; a note saying so goes to warn.
// It returns the first write error.
func WriteCSV(w, warn io.Writer, d *document.Document) error {
	if d.Partial {
		fmt.Fprintln(warn, "warning: partial result (the run was interrupted): the CSV holds only the children that finished")
	}
	cw := csv.NewWriter(w)
	cw.Write(CSVHeader)
	if len(d.Children) > 0 {
		for _, c := range d.Children {
			cw.Write([]string{c.Variant, strconv.Itoa(c.Filters), strconv.Itoa(c.Block), strconv.Itoa(c.Seq), fmtFloat(c.NsPerOp),
				strconv.FormatInt(c.InstallNsTotal, 10), strconv.Itoa(c.CPU), strconv.Itoa(c.FiltersSeen), d.Config.Workload,
				c.Loader, strconv.Itoa(c.Pad), strconv.FormatBool(c.CapSysAdmin)})
		}
	} else {
		if len(d.Results) > 0 {
			fmt.Fprintln(warn, "note: the result has no per-child records (children); block, seq, install_ns_total, cpu and filters_seen are empty")
		}
		for _, r := range d.Results {
			for i, x := range r.SamplesNs {
				pad := ""
				if i < len(r.Pads) {
					pad = strconv.Itoa(r.Pads[i])
				}
				cw.Write([]string{r.Variant, strconv.Itoa(r.Filters), "", "", fmtFloat(x), "", "", "", d.Config.Workload,
					r.Loader, pad, strconv.FormatBool(r.CapSysAdmin)})
			}
		}
	}
	for _, wn := range text.Dedupe(text.SortedCopy(d.Warnings)) {
		fmt.Fprintf(warn, "warning: %s\n", wn)
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	return nil
}

// fmtFloat formats x with the fewest digits that read back as x.
func fmtFloat(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
