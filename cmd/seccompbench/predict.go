package main

import (
	"errors"
	"fmt"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/runner"
)

// errPreflight is wrapped when the stack would kill or trap a syscall of the
// workload: the children would die instead of measuring.
var errPreflight = errors.New("policy stops the workload")

// predictWorkload emulates the deepest stack of each variant on the
// workload's syscalls (native arch, zero arguments) and predicts the action
// cache. It refuses stacks that kill or trap a workload syscall, naming the
// syscall and the filter, and warns when one returns an errno (the deny path
// is then what gets measured).
func predictWorkload(progs []*filters.Program, variants []runner.Variant, n int, w runner.Workload) ([]report.CacheVariant, []string, error) {
	arch := filters.ArchX86_64
	var out []report.CacheVariant
	var warnings []string
	for _, v := range variants {
		stack, err := runner.StackFor(progs, runner.Cell{Variant: v, Filters: n})
		if err != nil {
			return nil, nil, err
		}
		cv := report.CacheVariant{Variant: string(v)}
		pred := filters.PredictCache(stack, []*filters.Arch{arch})
		for _, name := range w.Syscalls {
			nr, ok := arch.Lookup(name)
			if !ok {
				return nil, nil, fmt.Errorf("workload syscall %q unknown on %s", name, arch.Name)
			}
			cs := report.CacheSyscall{Name: name, Nr: nr, Cached: n == 0}
			if n > 0 {
				e, ok := pred.Lookup(arch.Name, nr)
				cs.Cached = ok && e.Cached
				if ok && !e.Cached {
					cs.Reason = e.Reason
				}
				res, err := filters.EmulateStack(stack, arch.Data(nr))
				if err != nil {
					return nil, nil, fmt.Errorf("emulate %s under the stack: %w", name, err)
				}
				cs.Action = res.Action.String()
				if !cs.Cached {
					cs.Instructions = res.Instructions
				}
				src := "none"
				if res.Decider >= 0 {
					src = stack[res.Decider].Name
				}
				switch res.Action {
				case filters.ActionKillProcess, filters.ActionKillThread, filters.ActionTrap, filters.ActionUserNotif, filters.ActionTrace:
					if v == variants[0] {
						return nil, nil, fmt.Errorf("%w: filter %d (%s) returns %s for %s, which the %s workload calls; the child would be stopped instead of measured: allow %s in the policy or pick another --workload",
							errPreflight, res.Decider, src, res.Action.KernelName(), name, w.Name, name)
					}
				case filters.ActionErrno:
					if v == variants[0] {
						warnings = append(warnings, fmt.Sprintf("filter %d (%s) returns ERRNO(%d) for %s: the deny path is measured, not the syscall itself", res.Decider, src, res.Data, name))
					}
				}
			}
			cv.Syscalls = append(cv.Syscalls, cs)
		}
		out = append(out, cv)
	}
	return out, warnings, nil
}
