package optimize

import (
	"fmt"
	"io"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/analysis"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/report/document"
)

// LoadProfile reads a syscall profile (strace -c output or CSV) from the
// file path; its warnings go to warn, one "warning: " line each. "" gives
// nil.
func LoadProfile(path string, warn io.Writer) (*analysis.Profile, error) {
	if path == "" {
		return nil, nil
	}
	data, err := formats.ReadInput(path)
	if err != nil {
		return nil, fmt.Errorf("read profile: %w", err)
	}
	prof, err := analysis.ParseProfile(path, data)
	if err != nil {
		return nil, err
	}
	for _, msg := range prof.Warnings {
		fmt.Fprintf(warn, "warning: %s\n", msg)
	}
	return prof, nil
}

// CostOf compares enforcing stack s as it is with enforcing merged, its
// merge (nil when merging failed with mergeErr): static paths,
// action-cache predictions and, with prof, the profile-weighted path and
// one row per known syscall of the profile. The static paths and cache
// predictions cover every named syscall of arches (the ABIs of --arch's
// kernel, filters.KernelArches; filters.NativeArches when nil).
func CostOf(s filters.Stack, merged *filters.Program, mergeErr error, prof *analysis.Profile, arches []*filters.Arch) (*document.Cost, error) {
	if arches == nil {
		arches = filters.NativeArches()
	}
	c := &document.Cost{PerSyscall: []document.SyscallCostRow{}}
	for _, a := range arches {
		c.ABIs = append(c.ABIs, a.Name)
	}
	var err error
	if c.Stacked, err = stackCost(s, prof, arches); err != nil {
		return nil, err
	}
	if merged == nil {
		c.IntersectError = fmt.Sprint(mergeErr)
	} else {
		in, err := stackCost(filters.Stack{merged}, prof, arches)
		if err != nil {
			return nil, err
		}
		c.Intersected = &in
	}
	if prof == nil {
		return c, nil
	}
	c.Profile = prof.Source
	before, err := analysis.EvaluateProfile(s, prof)
	if err != nil {
		return nil, fmt.Errorf("evaluate profile: %w", err)
	}
	var after []analysis.ProfileCost
	if merged != nil {
		if after, err = analysis.EvaluateProfile(filters.Stack{merged}, prof); err != nil {
			return nil, fmt.Errorf("evaluate profile: %w", err)
		}
	}
	for i, e := range before {
		if !e.Known {
			continue
		}
		row := document.SyscallCostRow{Arch: e.Arch, Name: e.Name, Calls: e.Calls, Stacked: e.Cost.EffectiveInstructions, StackedCached: e.Cost.Cached}
		if after != nil {
			n := after[i].Cost.EffectiveInstructions
			row.Intersected, row.IntersectedCached = &n, after[i].Cost.Cached
		}
		c.PerSyscall = append(c.PerSyscall, row)
	}
	return c, nil
}

// stackCost is the static cost of enforcing s on arches.
func stackCost(s filters.Stack, prof *analysis.Profile, arches []*filters.Arch) (document.StackCost, error) {
	sc := document.StackCost{Filters: len(s)}
	for _, p := range s {
		sc.Instructions += p.Len()
	}
	var err error
	if sc.MeanPath, err = meanPathOn(s, arches); err != nil {
		return sc, err
	}
	if prof != nil {
		w, err := WeightedPath(s, prof)
		if err != nil {
			return sc, err
		}
		sc.WeightedPath = &w
	}
	for _, e := range analysis.PredictCache(s, arches).Entries {
		if e.Name == "" {
			continue
		}
		sc.Syscalls++
		if e.Cached {
			sc.Cached++
		}
	}
	return sc, nil
}
