// Package simulate builds the filter stack of `simulate` and `sandbox` and
// runs it through the emulator: one syscall with its arguments, or every
// syscall of every ABI of one kernel.
package simulate

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/analysis"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/report/chart"
)

// Stack opens the policies for a host whose ABI is arch (nil:
// cmdutil.NativeArch; formats.OpenOptions.Arch), compiling OCI profiles
// with comp, and builds the stack of n filters (0: one per policy) by
// cycling them; defeat prepends the cache-defeating load to every filter.
// Loader warnings go to warn. A source of alternative filters is an error
// (simulate loads through cmdutil.LoadFlags and uses Build).
func Stack(specs []string, n int, defeat bool, comp scmp.Compiler, arch *filters.Arch, warn io.Writer) (filters.Stack, error) {
	if arch == nil {
		arch = cmdutil.NativeArch()
	}
	progs, _, err := cmdutil.OpenPolicies(specs, formats.OpenOptions{Compiler: comp, Arch: arch})
	if err != nil {
		return nil, err
	}
	cmdutil.PrintWarnings(warn, progs)
	return Build(progs, n, defeat)
}

// Named is a stack with the name of the alternative filter it holds (a
// Firecracker thread category; "" when the sources hold none).
type Named struct {
	Name  string
	Stack filters.Stack
}

// Build cycles progs to n filters (0: one each), prepending the
// cache-defeating load to every filter when defeat is set.
func Build(progs []*filters.Program, n int, defeat bool) (filters.Stack, error) {
	progs = append([]*filters.Program(nil), progs...)
	if defeat {
		for i, p := range progs {
			progs[i] = p.DefeatCache()
		}
	}
	if n == 0 {
		n = len(progs)
	}
	s, err := filters.BuildStack(progs, n)
	if err != nil {
		return nil, fmt.Errorf("build stack: %w", err)
	}
	return s, nil
}

// Syscall analyzes and emulates one syscall (name or number) of the ABI
// archName names ("": the native ABI, cmdutil.NativeArch) under s with
// args. An unknown syscall or arch is a *cmdutil.FlagError.
func Syscall(s filters.Stack, archName, name string, args []uint64) (analysis.SyscallCost, filters.StackResult, error) {
	arch, err := cmdutil.LookupArch(archName)
	if err != nil {
		return analysis.SyscallCost{}, filters.StackResult{}, err
	}
	nr, err := analysis.LookupSyscall(arch, name)
	if err != nil {
		return analysis.SyscallCost{}, filters.StackResult{}, &cmdutil.FlagError{Err: fmt.Errorf("--syscall: %w", err)}
	}
	cost, err := analysis.AnalyzeSyscall(s, arch, nr, args...)
	if err != nil {
		return analysis.SyscallCost{}, filters.StackResult{}, fmt.Errorf("simulate %s: %w", name, err)
	}
	sr, err := filters.EmulateStack(s, arch.Data(nr, args...))
	if err != nil {
		return analysis.SyscallCost{}, filters.StackResult{}, fmt.Errorf("simulate %s: %w", name, err)
	}
	return cost, sr, nil
}

// Costs analyzes every syscall of every ABI of the kernel of the ABI
// archName names (filters.KernelArches; "": the native ABI,
// cmdutil.NativeArch, so x86_64, i386 and x32 on amd64, aarch64 and arm
// on arm64) and sorts them by order: "cost" (most instructions first),
// "name", or "nr" (as analyzed). An unknown arch is a *cmdutil.FlagError.
func Costs(s filters.Stack, archName, order string) ([]*filters.Arch, []analysis.SyscallCost, error) {
	a, err := cmdutil.LookupArch(archName)
	if err != nil {
		return nil, nil, err
	}
	arches := filters.KernelArches(a)
	costs, err := analysis.Analyze(s, arches)
	if err != nil {
		return nil, nil, fmt.Errorf("simulate all syscalls: %w", err)
	}
	switch order {
	case "cost":
		analysis.SortByCost(costs)
	case "name":
		sort.SliceStable(costs, func(i, j int) bool { return costs[i].Name < costs[j].Name })
	}
	return arches, costs, nil
}

// Plot is the plot of one ABI's costs (archName, the native ABI when "" or
// unknown), in the given order; defeated says the cache was defeated.
func Plot(s filters.Stack, costs []analysis.SyscallCost, archName, order string, defeated bool) *chart.SimulatePlot {
	arch := cmdutil.NativeArch().Name
	if a, err := filters.LookupArch(archName); archName != "" && err == nil {
		arch = a.Name
	}
	p := &chart.SimulatePlot{Arch: arch, Stack: report.StackText(s), Order: order, CacheDefeated: defeated}
	for _, c := range costs {
		if c.Arch != arch {
			continue
		}
		p.Bars = append(p.Bars, chart.SyscallBar{Arch: c.Arch, Name: c.Name, Nr: c.Nr, Instructions: c.Executed,
			Cached: c.Cached, Allowed: c.Action == filters.ActionAllow, Verdict: filters.VerdictText(c.Ret)})
	}
	return p
}

// Names lists the alternatives' names, comma-separated.
func Names(stacks []Named) string {
	var names []string
	for _, n := range stacks {
		names = append(names, n.Name)
	}
	return strings.Join(names, ", ")
}
