package analysis

import (
	"fmt"
	"sort"
	"strings"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/internal/suggest"
)

// SyscallCost is the static cost model's answer for one syscall: the
// stack's verdict, whether the action cache skips the filters, and how many
// BPF instructions each filter executes.
type SyscallCost struct {
	// Arch is the ABI name; Nr the table number (without the x32 bit); Name
	// the syscall name ("" if the table has none).
	Arch string
	Nr   int
	Name string
	// Args are the arguments the verdict was computed for (all 0 in
	// Analyze).
	Args [6]uint64
	// Ret is the value the kernel acts on; Action is KernelAction(Ret) and
	// Data its SECCOMP_RET_DATA part (the errno for ERRNO).
	Ret    uint32
	Action filters.Action
	Data   uint16
	// Decider is the stack index of the filter whose return value won, -1
	// if every filter allowed (or the cache decided).
	Decider int
	// Cached reports that the action cache returns ALLOW without running
	// any filter; CacheCause and CacheReason come from PredictCache.
	Cached      bool
	CacheCause  string
	CacheReason string
	// Executed is the number of instructions the filters execute when they
	// run, summed over the stack, even if the cache skips them.
	Executed int
	// EffectiveInstructions is what the kernel actually executes: 0 when
	// Cached, else Executed.
	EffectiveInstructions int
	// PerFilter holds each filter's executed instructions; index = stack
	// index, 0 = oldest.
	PerFilter []int
	// Read is the union over the stack of the seccomp_data words loaded.
	Read filters.FieldSet
}

// ErrUnknownSyscall is filters.ErrUnknownSyscall, kept here for callers of
// the analysis API.
var ErrUnknownSyscall = filters.ErrUnknownSyscall

// Analyze computes SyscallCost for every named syscall of each ABI in
// arches (NativeArches when nil), with all arguments and the instruction
// pointer 0, in PredictCache's order. For a cached syscall whose cause is
// the kernel's uprobe exception, the verdict is ALLOW whatever the filters
// say, since they never run. It returns an error wrapping ErrInvalidProgram
// if a filter is invalid.
func Analyze(s filters.Stack, arches []*filters.Arch) ([]SyscallCost, error) {
	cs, err := filters.NewExecutableStack(s)
	if err != nil {
		return nil, fmt.Errorf("analyze stack: %w", err)
	}
	cache := PredictCache(s, arches)
	out := make([]SyscallCost, 0, len(cache.Entries))
	byArch := map[string]*filters.Arch{}
	for _, a := range filters.NativeArches() {
		byArch[a.Name] = a
	}
	for _, a := range arches {
		byArch[a.Name] = a
	}
	for _, e := range cache.Entries {
		a := byArch[e.Arch]
		d := a.Data(e.Nr)
		out = append(out, costOf(cs, a, e.Nr, d, e))
	}
	return out, nil
}

// AnalyzeSyscall computes the SyscallCost of table number nr of arch with
// the given arguments (missing ones are 0). It returns an error wrapping
// ErrInvalidProgram if a filter is invalid.
func AnalyzeSyscall(s filters.Stack, arch *filters.Arch, nr int, args ...uint64) (SyscallCost, error) {
	cs, err := filters.NewExecutableStack(s)
	if err != nil {
		return SyscallCost{}, fmt.Errorf("analyze %s syscall %d: %w", arch.Name, nr, err)
	}
	e, _ := PredictCache(s, []*filters.Arch{arch}).Lookup(arch.Name, nr)
	return costOf(cs, arch, nr, arch.Data(nr, args...), e), nil
}

// LookupSyscall is filters.LookupSyscall.
//
// An unknown name's error suggests the closest names of the table ("did
// you mean getpid?"), and names the other ABIs that have it.
func LookupSyscall(arch *filters.Arch, name string) (int, error) {
	n, err := filters.LookupSyscall(arch, name)
	if err == nil {
		return n, nil
	}
	var other []string
	for _, a := range []*filters.Arch{filters.ArchX86_64, filters.ArchI386, filters.ArchX32, filters.ArchAArch64, filters.ArchARM, filters.ArchRISCV64} {
		if _, ok := a.Lookup(name); ok && a != arch {
			other = append(other, a.Name)
		}
	}
	if len(other) > 0 {
		verb := "has"
		if len(other) > 1 {
			verb = "have"
		}
		return 0, fmt.Errorf("%w; %s %s it (give --arch %s)", err, strings.Join(other, " and "), verb, other[0])
	}
	if c := suggest.Closest(name, arch.Names, 3); len(c) > 0 {
		return 0, fmt.Errorf("%w; did you mean %s?", err, strings.Join(c, ", "))
	}
	return 0, err
}

func costOf(cs filters.ExecutableStack, a *filters.Arch, nr int, d filters.SeccompData, e CacheEntry) SyscallCost {
	r := cs.Exec(&d)
	c := SyscallCost{
		Arch: a.Name, Nr: nr, Name: a.SyscallName(nr), Args: d.Args,
		Ret: r.Ret, Action: r.Action, Data: r.Data, Decider: r.Decider,
		Cached: e.Cached, CacheCause: e.Cause, CacheReason: e.Reason,
		Executed: r.Instructions, EffectiveInstructions: r.Instructions,
		PerFilter: make([]int, len(r.PerFilter)),
	}
	for i, f := range r.PerFilter {
		c.PerFilter[i] = f.Executed
		c.Read |= f.Read
	}
	if c.Cached {
		c.EffectiveInstructions = 0
		if e.Cause == CacheException || e.Cause == CacheNoFilters {
			c.Ret, c.Action, c.Data, c.Decider = uint32(filters.ActionAllow), filters.ActionAllow, 0, -1
		}
	}
	return c
}

// SortByCost orders costs by EffectiveInstructions, then Executed, both
// descending, then by ABI and number; the sort is stable.
func SortByCost(costs []SyscallCost) {
	sort.SliceStable(costs, func(i, j int) bool {
		a, b := costs[i], costs[j]
		if a.EffectiveInstructions != b.EffectiveInstructions {
			return a.EffectiveInstructions > b.EffectiveInstructions
		}
		if a.Executed != b.Executed {
			return a.Executed > b.Executed
		}
		if a.Arch != b.Arch {
			return a.Arch < b.Arch
		}
		return a.Nr < b.Nr
	})
}
