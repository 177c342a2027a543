package analysis

import (
	"fmt"
	"slices"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/equiv"
)

// This file answers a unit author's question for a stacked source whose
// filters come in parts (a systemd unit: one part per directive): what
// each part installs, which syscalls it keeps out of the kernel's action
// cache (kernel/seccomp.c: seccomp_cache_prepare_bitmap clears a
// syscall's bit unless every filter of the stack is constant ALLOW for it,
// seccomp_is_const_allow), and whether the rest of the stack already gives
// every input the same outcome without it.

// Redundancy verdicts of a part (PartCost.Redundant).
const (
	// RedundantYes: the stack without the part's filters gives every
	// seccomp_data the same outcome (proved by filters/equiv).
	RedundantYes = "yes"
	// RedundantNo: some input gets another outcome without the part;
	// PartCost.Witness names one.
	RedundantNo = "no"
	// RedundantUnknown: the checker could not decide; Witness says why.
	RedundantUnknown = "unknown"
)

// PartFilter is one filter a part installs.
type PartFilter struct {
	// Index is the filter's place in the stack, 0 installed first.
	Index int
	// ABI is the source's name for the filter's architecture
	// (filters.Source.Arches: "x86", "x32", "x86_64", "all"), "" when the
	// source does not say.
	ABI string
	// Insns is the filter's length in BPF instructions.
	Insns int
}

// PartCost is what one part of a stacked source installs and what it
// costs in the action cache, for the ABI of its PartsReport.
type PartCost struct {
	// Name names the part, e.g. "MemoryDenyWriteExecute".
	Name string
	// Filters are the filters it installs, oldest first.
	Filters []PartFilter
	// Uncached are the syscalls (by name, ascending number) its filters
	// keep out of the cache without refusing them by number: one of them
	// reads an argument or the instruction pointer (or runs an
	// instruction outside seccomp_is_const_allow's subset) before
	// deciding, or returns SECCOMP_RET_LOG, after which the call goes on.
	// Every such call runs every filter of the stack. Syscalls another
	// part refuses by number are left out: those calls fail anyway.
	Uncached []string
	// Refused is the number of named syscalls its filters refuse by
	// number alone (a constant other than ALLOW and LOG: an errno, a
	// kill, a trap): uncached too, but a refused call fails, so it is not
	// a cost of the program's working path.
	Refused int
	// OnlyThis are the syscalls of PartsReport.Uncached that only this
	// part keeps out of the cache: without its filters the kernel would
	// cache them.
	OnlyThis []string
	// Redundant is RedundantYes, RedundantNo or RedundantUnknown.
	Redundant string
	// Witness, for RedundantNo, is an input whose outcome changes without
	// the part, e.g. "x86_64 mmap (nr 9) args [0 0 0x6 0 0 0]: ERRNO(1)
	// with it, ALLOW without"; for RedundantUnknown, why the checker
	// stopped.
	Witness string
}

// PartsReport is PartCosts for a stacked source.
type PartsReport struct {
	// ABI is the ABI the syscall lists are for ("x86_64").
	ABI string
	// Parts are the source's parts with filters, in install order.
	Parts []PartCost
	// Uncached are the syscalls of ABI (by name, ascending number) that
	// the stack keeps out of the cache although no filter refuses them by
	// number alone: the calls that can succeed and pay for every filter.
	Uncached []string
	// Cached and Total count the ABI's named syscalls the kernel caches,
	// and all of them.
	Cached, Total int
}

// filterClass is one filter's seccomp_is_const_allow answer for one
// syscall, sorted into what the cost report needs.
type filterClass int

const (
	classAllow   filterClass = iota // constant ALLOW (or the uprobe exception)
	classLog                        // constant SECCOMP_RET_LOG: uncached, the call goes on
	classRefused                    // a constant that refuses the call: not ALLOW or LOG
	classArgs                       // depends on more than nr and arch
)

// classify is constAllow for one filter and syscall, sorted into classes.
func classify(p *filters.Program, a *filters.Arch, nr int) filterClass {
	if uprobeException(a, int32(nr)) {
		return classAllow
	}
	c := constAllow(p.Insns, a.Nr(nr), a.AuditArch)
	switch {
	case c.ok:
		return classAllow
	case c.cause == CacheRet:
		act := filters.KernelAction(p.Insns[c.pc].K)
		if act == filters.ActionLog {
			return classLog
		}
		return classRefused
	default:
		return classArgs
	}
}

// PartCosts reports, for each part of src (a stacked source with Parts,
// such as a systemd unit), its filters, the syscalls of arch (the native
// ABI when nil) it keeps out of the kernel's action cache, and whether
// the stack without it is equivalent (filters/equiv.Stacks, a proof over
// every arch, syscall number and argument value). The cache classes
// follow kernel/seccomp.c: seccomp_is_const_allow exactly (see
// PredictCache). For a part that limits the architectures (systemd's
// SystemCallArchitectures=), the stack without it is the stack minus its
// filter; systemd itself would then also install the later directives'
// filters for the foreign ABIs. It returns nil for a source without
// parts, and an error for an invalid filter.
func PartCosts(src *filters.Source, arch *filters.Arch) (*PartsReport, error) {
	if src == nil || len(src.Parts) == 0 {
		return nil, nil
	}
	if arch == nil {
		arch = filters.ArchX86_64
	}
	for i, p := range src.Filters {
		if err := filters.Validate(p.Insns); err != nil {
			return nil, fmt.Errorf("filter %d (%s): %w", i, p.Name, err)
		}
	}
	a := newPartsAnalysis(src, arch)
	r := &PartsReport{ABI: arch.Name, Total: len(a.nrs)}
	onlyThis := a.stackCache(r)
	full := src.Stack()
	off := 0
	for pi, part := range src.Parts {
		if part.Count == 0 {
			continue
		}
		pc := a.part(part.Name, off, off+part.Count)
		pc.OnlyThis = onlyThis[pi]
		without := append(append(filters.Stack(nil), full[:off]...), full[off+part.Count:]...)
		pc.Redundant, pc.Witness = redundancy(full, without)
		r.Parts = append(r.Parts, pc)
		off += part.Count
	}
	return r, nil
}

// partsAnalysis holds every filter's class on every named syscall of one
// ABI.
type partsAnalysis struct {
	src  *filters.Source
	arch *filters.Arch
	nrs  []int // the ABI's named numbers, ascending
	// class[i][k] is filter i on syscall nrs[k]; owner[i] the part of
	// filter i; refused[k] whether some filter refuses nrs[k] by number.
	class   [][]filterClass
	owner   []int
	refused []bool
}

func newPartsAnalysis(src *filters.Source, arch *filters.Arch) *partsAnalysis {
	a := &partsAnalysis{src: src, arch: arch, nrs: arch.SortedNumbers(), owner: make([]int, len(src.Filters))}
	a.class = make([][]filterClass, len(src.Filters))
	for i, p := range src.Filters {
		a.class[i] = make([]filterClass, len(a.nrs))
		for k, nr := range a.nrs {
			if nr < arch.CacheBits {
				a.class[i][k] = classify(p, arch, nr)
			} else {
				a.class[i][k] = classArgs // out of the bitmap: never cached
			}
		}
	}
	off := 0
	for pi, part := range src.Parts {
		for j := off; j < off+part.Count && j < len(a.owner); j++ {
			a.owner[j] = pi
		}
		off += part.Count
	}
	a.refused = make([]bool, len(a.nrs))
	return a
}

// stackCache fills r's whole-stack counts and list, marks the syscalls
// some filter refuses by number, and returns per part the syscalls only
// it keeps out of the cache.
func (a *partsAnalysis) stackCache(r *PartsReport) [][]string {
	onlyThis := make([][]string, len(a.src.Parts))
	for k, nr := range a.nrs {
		var blockers []int
		for i := range a.src.Filters {
			c := a.class[i][k]
			if c == classRefused {
				a.refused[k] = true
			}
			if c != classAllow && !slices.Contains(blockers, a.owner[i]) {
				blockers = append(blockers, a.owner[i])
			}
		}
		switch {
		case len(blockers) == 0 && nr < a.arch.CacheBits:
			r.Cached++
		case a.refused[k]:
		default:
			name := a.arch.SyscallName(nr)
			r.Uncached = append(r.Uncached, name)
			if len(blockers) == 1 {
				onlyThis[blockers[0]] = append(onlyThis[blockers[0]], name)
			}
		}
	}
	return onlyThis
}

// part is the cost of filters [from, to), one part; stackCache must have
// run.
func (a *partsAnalysis) part(name string, from, to int) PartCost {
	pc := PartCost{Name: name}
	for j := from; j < to; j++ {
		f := PartFilter{Index: j, Insns: a.src.Filters[j].Len()}
		if j < len(a.src.Arches) {
			f.ABI = a.src.Arches[j]
		}
		pc.Filters = append(pc.Filters, f)
	}
	for k, nr := range a.nrs {
		uncached, refused := false, false
		for j := from; j < to; j++ {
			switch a.class[j][k] {
			case classArgs:
				uncached = uncached || nr < a.arch.CacheBits
			case classLog:
				uncached = true
			case classRefused:
				refused = true
			}
		}
		switch {
		case refused:
			pc.Refused++
		case uncached && !a.refused[k]:
			pc.Uncached = append(pc.Uncached, a.arch.SyscallName(nr))
		}
	}
	return pc
}

// redundancy decides whether stack and without give every input the
// same outcome.
func redundancy(stack, without filters.Stack) (string, string) {
	res, err := equiv.Stacks(stack, without)
	switch {
	case err != nil:
		// equiv.ErrCannotProve (an instruction or budget it cannot
		// follow) or a disagreement with the emulator: never a verdict.
		return RedundantUnknown, err.Error()
	case res.Equivalent:
		return RedundantYes, ""
	case res.Counterexample != nil:
		return RedundantNo, witnessText(res.Counterexample)
	}
	return RedundantNo, ""
}

// witnessText says where the stack (A) and the stack without a part (B)
// differ.
func witnessText(ce *equiv.Counterexample) string {
	who := fmt.Sprintf("arch %#x nr %d", ce.Data.Arch, ce.Data.Nr)
	if ce.Arch != "" {
		who = fmt.Sprintf("%s nr %d", ce.Arch, ce.Nr)
		if ce.Name != "" {
			who = fmt.Sprintf("%s %s (nr %d)", ce.Arch, ce.Name, ce.Nr)
		}
	}
	args := ""
	for i, a := range ce.Data.Args {
		if i > 0 {
			args += " "
		}
		args += fmt.Sprintf("%#x", a)
	}
	return fmt.Sprintf("%s args [%s]: %s with it, %s without", who, args, ce.A, ce.B)
}
