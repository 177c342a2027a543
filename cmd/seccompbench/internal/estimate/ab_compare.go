package estimate

import (
	"context"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/runner/command"
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/stats"
)

// ABResult is one A/B design's measurement of opts.Command in CompareAB,
// times in ns per run of the command.
type ABResult struct {
	Design command.Design
	// Wall and CPU are the measured added time, execve to reaping and
	// user+sys, with their intervals at opts.Confidence.
	Wall, CPU     stats.Estimate
	BaselineRunNs float64
	// Children and Pairs are the timing children and the pairs over them
	// (0 for children); Runs the timed runs (or pairs) per child.
	Children, Pairs, Runs int
	// Elapsed is the wall time the design took, its calibration child
	// included.
	Elapsed time.Duration
}

// HalfWidthPct returns the half-width of e's interval in percent of its
// centre.
func HalfWidthPct(e stats.Estimate) float64 {
	return 100 * (e.Hi - e.Lo) / 2 / math.Abs(e.Center)
}

// CompareAB measures opts.Command under the stack of opts (policies,
// --systemd-unit, --filters, --cache) with each design in turn, each
// given opts.ABTime over opts.Trials blocks, for a side-by-side account
// of their precision (BenchmarkABDesign; docs/estimate-command.md, "Choosing the
// A/B design"). Errors: loading the policies, building the stack, and
// the first design whose measurement fails.
func CompareAB(ctx context.Context, opts *Options, designs []command.Design, warn io.Writer) ([]ABResult, error) {
	base, variant, n, err := commandStack(opts, warn)
	if err != nil {
		return nil, err
	}
	var out []ABResult
	for _, d := range designs {
		o := *opts
		o.AB = d
		start := time.Now()
		samples, info, err := commandSamples(ctx, &o, o.Command, nil, base, variant, n, o.ABTime, nil)
		if err != nil {
			return out, fmt.Errorf("design %s: %w", d, err)
		}
		m := measuredAdded(samples, d, o.Confidence, o.Seed)
		out = append(out, ABResult{Design: d, Wall: m.Wall, CPU: m.CPU, BaselineRunNs: m.BaselineRunNs,
			Children: m.Children, Pairs: m.Pairs, Runs: info.Runs, Elapsed: time.Since(start)})
	}
	return out, nil
}

// commandStack loads opts' stack as Run does: the policies (and the
// systemd unit's filters first), its depth n and variant.
func commandStack(opts *Options, warn io.Writer) ([]*filters.Program, result.Variant, int, error) {
	o := opts.Open
	o.Compiler = opts.Compiler
	l, err := (&cmdutil.LoadFlags{Systemd: opts.Systemd}).LoadPolicies(opts.Policies, o)
	if err != nil {
		return nil, "", 0, err
	}
	l.PrintWarnings(warn)
	base, err := cmdutil.OneStack(l)
	if err != nil {
		return nil, "", 0, err
	}
	if base, err = withUnit(opts, base); err != nil {
		return nil, "", 0, err
	}
	n := opts.Filters
	if n == 0 {
		n = len(base)
	}
	return base, result.Variant(opts.Cache), n, nil
}

// WriteABComparison writes one line per design: the added time (wall and
// CPU) with its interval in ms, the half-width in percent of the added
// time and of the baseline run, whether that meets the bar
// (meetsBar), the children, pairs and the time spent.
func WriteABComparison(w io.Writer, rs []ABResult) {
	fmt.Fprintf(w, "%-8s  %-30s %6s %6s  %-30s %6s  %4s  %8s %6s %5s %8s\n",
		"design", "wall added, ms [95% CI]", "±%add", "±%base", "CPU added, ms [95% CI]", "±%add", "bar", "children", "pairs", "runs", "time")
	for _, r := range rs {
		ci := func(e stats.Estimate) string {
			return fmt.Sprintf("%+.3f [%+.3f, %+.3f]", e.Center/1e6, e.Lo/1e6, e.Hi/1e6)
		}
		hw := (r.Wall.Hi - r.Wall.Lo) / 2
		bar := "no"
		if meetsBar(hw, r.Wall.Center, r.BaselineRunNs) {
			bar = "yes"
		}
		fmt.Fprintf(w, "%-8s  %-30s %6.1f %6.2f  %-30s %6.1f  %4s  %8d %6d %5d %8s\n",
			r.Design, ci(r.Wall), HalfWidthPct(r.Wall), 100*hw/r.BaselineRunNs, ci(r.CPU), HalfWidthPct(r.CPU), bar,
			r.Children, r.Pairs, r.Runs, r.Elapsed.Round(100*time.Millisecond))
	}
}
