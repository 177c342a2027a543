package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/results"
)

// ReportOptions are the flags and arguments of `seccompbench report`.
type ReportOptions struct {
	IO *cmdutil.IOStreams

	// Files are the result files, globs already expanded.
	Files     []string
	Format    string
	FormatSet bool
	Outputs   []string
	Specs     []output.Spec
	// Explain is --explain (-v): the text table adds where each result
	// was measured.
	Explain bool
}

// NewCmdReport builds `seccompbench report`. runF, if not nil, replaces
// reportRun (tests use it to check flag parsing).
func NewCmdReport(f *cmdutil.Factory, runF func(*ReportOptions) error) *cobra.Command {
	opts := &ReportOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "report RESULT.json|DIR|-... (or a glob: 'results/*.json')",
		Short: "One table and plot over many run results (a fleet), grouped by policy",
		Long: `Read results written by 'seccompbench run -o FILE.json' (one per host, kernel
or configuration) and show them side by side: per result the host, kernel,
CPU model, who loaded the filters (when recorded) and the mitigations that
change a filter's cost (spec_store_bypass, spectre_v2, and the kernel
command line's mitigation parameters when recorded); per fitted variant
the baseline, the per-filter cost and the entry cost with their confidence
intervals, and whether the kernel's action cache served the workload
("on (cached)" is the cached cost, "defeat (not cached)" what every filter
costs when it runs).

Results are grouped by policy (the SHA-256 of every policy in the stack)
and workload: only rows of one group measured the same thing. Nothing is
recomputed: the numbers are those of each result; 'compare' tests
differences between results.

A file may hold several results one after another, as 'kubectl logs'
collects them from the pods of deploy/'s Job or DaemonSet (each pod prints
one JSON result); lines between them that are not JSON (a pod's warnings)
are skipped with a warning. "-" reads standard input; a directory is read
file by file. An argument that names no file is expanded as a glob, so
'seccompbench report "out/*.json"' works where the shell does not expand
it. A file that is not a run result (a compare or report document,
simulate output) is refused by its kind, exit status 2.` + cmdutil.ExitStatusHelp(""),
		Example: `  seccompbench report node-a.json node-b.json node-c.json
  seccompbench report 'fleet/*.json' -o fleet.md -o fleet.svg
  seccompbench report --format csv fleet/*.json > fleet.csv
  kubectl logs -n seccompbench -l app=seccompbench --tail=-1 | seccompbench report -`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			files, err := results.Expand(args)
			if err != nil {
				return err
			}
			opts.Files = files
			opts.FormatSet = cmd.Flags().Changed("format")
			specs, err := output.Resolve(opts.Format, opts.FormatSet, opts.Outputs)
			if err != nil {
				return err
			}
			opts.Specs = specs
			if runF != nil {
				return runF(opts)
			}
			return reportRun(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Format, "format", "table", "output format: "+strings.Join(output.RunFormats, ", "))
	fl.StringArrayVarP(&opts.Outputs, "output", "o", nil, "write the report to `FILE` (atomically) instead of stdout; repeat for several formats, each from its extension (.txt .json .md .csv .bench .svg .png .html)")
	fl.BoolVarP(&opts.Explain, "explain", "v", false, "after the headline, show where each result was measured: host, kernel, CPU, loader, mitigations, foreign load")
	return cmd
}

// reportRun reads the results and writes the report (results.Report)
// with the command's streams.
func reportRun(opts *ReportOptions) error {
	return results.Report(opts.IO, opts.Files, opts.Specs, opts.Explain)
}
