package runjob

import (
	"fmt"
	"slices"
	"strings"

	"github.com/seccompbench/seccompbench/runner"
	"github.com/seccompbench/seccompbench/runner/result"
)

// placement is the job's pad choice: fixed with --pad, else random over
// 0..runner.DefaultMaxPad per child.
func (j *Job) placement() runner.Placement {
	if j.Workload.Container != nil {
		// The runtime installs the filter it compiles, unpadded.
		return runner.Placement{Mode: runner.PlacementFixed}
	}
	if j.PadSet {
		return runner.Placement{Mode: runner.PlacementFixed, Pad: j.Pad}
	}
	return runner.DefaultPlacement()
}

// smallestPad is the fewest instructions the job appends to a filter:
// the fixed --pad, or 0.
func (j *Job) smallestPad() int {
	if j.PadSet {
		return j.Pad
	}
	return 0
}

// reportPlacement is p with its pad range as the report shows it (a fixed
// pad is the range [Pad, Pad]).
func reportPlacement(p runner.Placement) runner.Placement {
	p = p.Normalized()
	if p.Mode == runner.PlacementFixed {
		p.MinPad, p.MaxPad = p.Pad, p.Pad
	}
	return p
}

// loaderName is the --loader value the report records: "both", the one
// loader measured, or "runtime" when a container runtime loaded the
// filter (--bundle, --rootfs).
func (j *Job) loaderName() string {
	if j.Workload.Container != nil {
		return "runtime"
	}
	switch len(j.Loaders) {
	case 0:
		return string(result.LoaderUnprivileged)
	case 1:
		return string(j.Loaders[0])
	}
	return "both"
}

// padCapWarnings says which cells drew their random pads from a smaller
// range because larger ones would not fit MAX_INSNS_PER_PATH.
func padCapWarnings(caps map[result.Cell]int) []string {
	var cells []result.Cell
	for c := range caps {
		cells = append(cells, c)
	}
	slices.SortFunc(cells, func(a, b result.Cell) int { return strings.Compare(a.String(), b.String()) })
	var out []string
	for _, c := range cells {
		out = append(out, fmt.Sprintf("%s: pads drawn from 0-%d only, since a larger pad takes the stack over MAX_INSNS_PER_PATH; that cell samples fewer program sizes", c, caps[c]))
	}
	return out
}

// LoaderNames are the names of loaders, in order, as stats and the report
// name them.
func LoaderNames(loaders []result.Loader) []string {
	var names []string
	for _, l := range loaders {
		names = append(names, string(l))
	}
	return names
}
