package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/report/internal/text"
)

// BenchmarkName returns the Go benchmark name of a cell, e.g.
// "BenchmarkSeccomp/variant=defeat/filters=4/workload=mix". The key=value
// parts let benchstat group by them (benchstat -col /variant).
func BenchmarkName(variant string, filters int, workload string) string {
	return fmt.Sprintf("BenchmarkSeccomp/variant=%s/filters=%d/workload=%s", benchValue(variant), filters, benchValue(workload))
}

// WriteBenchstat writes d in the Go benchmark format read by
// golang.org/x/perf/benchfmt and benchstat: configuration lines ("key:
// value": goos, goarch, cpu, kernel, the policies, the op, the tool
// version), then one line per measuring child,
//
//	BenchmarkSeccomp/variant=defeat/filters=4/workload=mix 1 1234.5 ns/op
//
// where the iteration count 1 means "one child" and the value is that
// child's median ns per op, rounded to 0.01 ns. A document without per-child records uses
// results[].samples_ns (same values, not in run order) and says so on warn,
// as do the document's warnings. It returns the first write error.
func WriteBenchstat(w, warn io.Writer, d *document.Document) error {
	if d.Partial {
		fmt.Fprintln(warn, "warning: partial result (the run was interrupted): only the children that finished are listed")
	}
	ew := &errWriter{w: w}
	ew.printf("goos: linux\n")
	ew.printf("goarch: %s\n", benchGoarch)
	ew.printf("pkg: github.com/seccompbench/seccompbench\n")
	if d.Environment.CPUModel != "" {
		ew.printf("cpu: %s\n", text.OneLine(d.Environment.CPUModel))
	}
	if d.Environment.Kernel != "" {
		ew.printf("kernel: %s\n", text.OneLine(d.Environment.Kernel))
	}
	var pols []string
	for _, p := range d.Config.Policies {
		pols = append(pols, p.Path)
	}
	ew.printf("policy: %s\n", text.OneLine(strings.Join(pols, ", ")))
	if d.Config.Op != "" {
		ew.printf("op: %s\n", text.OneLine(d.Config.Op))
	}
	ew.printf("seccompbench: %s\n", text.OneLine(d.Tool.Version))
	if len(d.Children) > 0 {
		for _, c := range d.Children {
			ew.printf("%s 1 %s ns/op\n", BenchmarkName(c.Variant, c.Filters, d.Config.Workload), benchFloat(c.NsPerOp))
		}
	} else {
		if len(d.Results) > 0 {
			fmt.Fprintln(warn, "note: the result has no per-child records (children); lines come from results[].samples_ns, grouped by cell instead of in run order")
		}
		for _, r := range d.Results {
			for _, x := range r.SamplesNs {
				ew.printf("%s 1 %s ns/op\n", BenchmarkName(r.Variant, r.Filters, d.Config.Workload), benchFloat(x))
			}
		}
	}
	for _, wn := range text.Dedupe(text.SortedCopy(d.Warnings)) {
		fmt.Fprintf(warn, "warning: %s\n", wn)
	}
	return ew.err
}

// benchGoarch is the goarch configuration line: the runner's timed loops
// exist for amd64 only (runner/loop_amd64.s), and the document does not
// record the architecture.
const benchGoarch = "amd64"

// benchFloat formats ns/op rounded to 0.01 ns, as Go benchmarks print
// them (far below the spread between children).
func benchFloat(x float64) string {
	v := math.Round(x*100) / 100
	if v == 0 {
		v = 0 // a negative value that rounds to zero prints "0", not "-0"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// benchValue makes s safe inside a benchmark name: no spaces, slashes or
// '=' (they separate the name's parts).
func benchValue(s string) string {
	return strings.NewReplacer(" ", "_", "/", "_", "=", "_", "\t", "_").Replace(s)
}
