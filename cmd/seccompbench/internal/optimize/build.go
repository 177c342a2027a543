package optimize

import (
	"fmt"
	"io"
	"strings"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/analysis"
	filteropt "github.com/seccompbench/seccompbench/filters/optimize"
	"github.com/seccompbench/seccompbench/report/document"
)

// Merge merges stack s (installation order) into one filter named
// "merged" with source desc, proven equivalent by filters/optimize.Merge,
// and summarizes it. Errors are Merge's (a *filteropt.TooLongError when
// the result exceeds BPF_MAXINSNS, 4096 instructions), wrapped with desc.
func Merge(s filters.Stack, desc string) (*filters.Program, *document.BuildSummary, error) {
	res, err := filteropt.Merge(s, filteropt.Weights{})
	if err != nil {
		return nil, nil, &mergeError{desc: desc, err: err}
	}
	res.Program.Name = "merged"
	res.Program.Source = desc
	sum, err := Summarize(s, res, nil)
	if err != nil {
		return nil, nil, err
	}
	sum.Command = "merge"
	return res.Program, sum, nil
}

// mergeError is Merge's error: "merge DESC: " and filters/optimize's
// message without its own "merge: " prefix, which would stutter.
type mergeError struct {
	desc string
	err  error
}

func (e *mergeError) Error() string {
	return fmt.Sprintf("merge %s: %s", e.desc, strings.TrimPrefix(e.err.Error(), "merge: "))
}

func (e *mergeError) Unwrap() error { return e.err }

// Optimize lays stack s (installation order; one filter for most
// policies, a systemd unit's whole stack) out again as one filter
// (filters/optimize.OptimizeStack: for several filters a merge, as
// Merge's), weighted by the syscall profile in the file profile (strace
// -c output or CSV; "" for a balanced layout), and summarizes it; desc
// names s (the result's Source). The profile's warnings go to warn, and a
// note saying the stack becomes one filter when s has several. Errors:
// reading or parsing the profile, and OptimizeStack's (a
// *filteropt.TooLongError when the stack does not fit one filter), wrapped
// with desc.
func Optimize(s filters.Stack, desc, profile string, warn io.Writer) (*filters.Program, *document.BuildSummary, error) {
	prof, err := LoadProfile(profile, warn)
	if err != nil {
		return nil, nil, err
	}
	var w filteropt.Weights
	if prof != nil {
		if w, err = filteropt.WeightsFromProfile(prof); err != nil {
			return nil, nil, fmt.Errorf("read profile: %w", err)
		}
	}
	if len(s) > 1 {
		fmt.Fprintf(warn, "note: %s installs a stack of %d filters; optimize lays out one filter equivalent to the whole stack, as merge does, to install in its place\n", desc, len(s))
	}
	res, err := filteropt.OptimizeStack(s, w)
	if err != nil {
		return nil, nil, fmt.Errorf("optimize %s: %w", desc, err)
	}
	res.Program.Source = desc
	sum, err := Summarize(s, res, prof)
	if err != nil {
		return nil, nil, err
	}
	sum.Command = "optimize"
	return res.Program, sum, nil
}

// cacheChanges copies cs into the document's type; nil for nil.
func cacheChanges(cs []filteropt.CacheChange) []document.CacheChange {
	if cs == nil {
		return nil
	}
	out := make([]document.CacheChange, len(cs))
	for i, c := range cs {
		out[i] = document.CacheChange(c)
	}
	return out
}

// Summarize describes res, built from stack s, for document.BuildSummary:
// sizes, the proof, mean paths (profile-weighted too when prof is not
// nil) and cache changes. Command is left for the caller to set.
func Summarize(s filters.Stack, res *filteropt.Result, prof *analysis.Profile) (*document.BuildSummary, error) {
	sum := &document.BuildSummary{Filters: len(s), Instructions: res.Program.Len(), Equivalent: res.Check.Equivalent,
		InputClasses: res.Check.Paths, CacheLost: cacheChanges(res.CacheLost), CacheGained: cacheChanges(res.CacheGained), Longer: cacheChanges(res.Longer), Passes: res.Passes}
	if sum.CacheLost == nil {
		sum.CacheLost = []document.CacheChange{}
	}
	if sum.CacheGained == nil {
		sum.CacheGained = []document.CacheChange{}
	}
	for _, p := range s {
		sum.InstructionsBefore += p.Len()
	}
	after := filters.Stack{res.Program}
	var err error
	if sum.MeanPathBefore, err = MeanPath(s); err != nil {
		return nil, err
	}
	if sum.MeanPathAfter, err = MeanPath(after); err != nil {
		return nil, err
	}
	if prof != nil {
		sum.Profile = prof.Source
		if sum.WeightedPathBefore, err = WeightedPath(s, prof); err != nil {
			return nil, err
		}
		if sum.WeightedPathAfter, err = WeightedPath(after, prof); err != nil {
			return nil, err
		}
	}
	return sum, nil
}

// MeanPath is the mean number of instructions stack s executes, summed
// over its filters, over every named syscall of x86_64, i386 and x32,
// arguments 0, the action cache ignored (analysis.Analyze).
func MeanPath(s filters.Stack) (float64, error) { return meanPathOn(s, nil) }

// meanPathOn is MeanPath over the named syscalls of arches
// (filters.NativeArches when nil).
func meanPathOn(s filters.Stack, arches []*filters.Arch) (float64, error) {
	costs, err := analysis.Analyze(s, arches)
	if err != nil {
		return 0, fmt.Errorf("analyze path lengths: %w", err)
	}
	if len(costs) == 0 {
		return 0, nil
	}
	n := 0
	for _, c := range costs {
		n += c.Executed
	}
	return float64(n) / float64(len(costs)), nil
}

// WeightedPath is the call-weighted mean of instructions stack s executes
// over the profile's known syscalls; 0 when none is known.
func WeightedPath(s filters.Stack, prof *analysis.Profile) (float64, error) {
	costs, err := analysis.EvaluateProfile(s, prof)
	if err != nil {
		return 0, fmt.Errorf("evaluate profile: %w", err)
	}
	var sum, n float64
	for _, c := range costs {
		if c.Known {
			sum += float64(c.Calls) * float64(c.Cost.Executed)
			n += float64(c.Calls)
		}
	}
	if n == 0 {
		return 0, nil
	}
	return sum / n, nil
}
