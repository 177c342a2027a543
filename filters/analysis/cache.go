package analysis

import (
	"fmt"

	"github.com/seccompbench/seccompbench/filters"
	"golang.org/x/net/bpf"
)

// This file predicts the kernel's seccomp action cache (Linux 5.11+,
// kernel/seccomp.c, "seccomp: Implement constant action bitmaps"). When a
// filter is attached, seccomp_cache_prepare builds one bitmap per ABI the
// kernel caches (native x86_64 and compat i386 on an x86_64 kernel):
// seccomp_cache_prepare_bitmap starts from the previous filter's bitmap
// (all ones for the first filter) and clears bit nr unless
// seccomp_is_const_allow says the new filter returns SECCOMP_RET_ALLOW for
// that nr and arch whatever the other seccomp_data fields hold. On a
// syscall, seccomp_cache_check_allow tests only the newest filter's bitmap,
// so a syscall is cached iff every filter in the stack constant-allows it;
// then no filter runs. Numbers at or above the bitmap size (NR_syscalls for
// x86_64, IA32_NR_syscalls for i386) are never cached; x32 numbers carry
// __X32_SYSCALL_BIT, so they always are out of range and always run the
// filters (arch/x86/include/asm/seccomp.h says so).

// Cache causes: why a syscall is or is not cached.
const (
	// CacheAllowed: every filter returns SECCOMP_RET_ALLOW on a path that
	// reads only nr and arch.
	CacheAllowed = "const-allow"
	// CacheException: the kernel always passes this syscall without
	// filtering (uretprobe and uprobe on x86_64).
	CacheException = "uprobe-exception"
	// CacheNoFilters: the stack is empty; seccomp does not run at all.
	CacheNoFilters = "no-filters"
	// CacheRet: a filter returns a constant other than SECCOMP_RET_ALLOW
	// (any data bits included).
	CacheRet = "not-allow"
	// CacheLoad: a filter loads a field other than nr and arch
	// (instruction_pointer or an argument) on this syscall's path.
	CacheLoad = "load"
	// CacheInsn: a filter runs an instruction outside the cache emulator's
	// subset (X register, scratch memory, ALU other than and #k, ret a, ...).
	CacheInsn = "instruction"
	// CacheRange: the number lies outside the ABI's bitmap (always so for
	// x32).
	CacheRange = "out-of-range"
	// CacheInvalid: a filter is invalid, so the kernel would not attach it.
	CacheInvalid = "invalid"
)

// CacheEntry is the prediction for one syscall of one ABI.
type CacheEntry struct {
	// Arch is the ABI name ("x86_64", "i386", "x32").
	Arch string
	// Nr is the table number, without the x32 bit.
	Nr int
	// Name is the syscall name, "" for a number the table does not name.
	Name string
	// Cached reports that the kernel returns SECCOMP_RET_ALLOW for this
	// syscall from the bitmap, without running any filter.
	Cached bool
	// Cause is one of the Cache* constants.
	Cause string
	// Reason explains Cause for people, naming the filter, the line and the
	// instruction that ended the cache emulation.
	Reason string
	// Filter is the stack index of the oldest filter that does not
	// constant-allow the syscall (the one whose bitmap cleared the bit), or
	// -1.
	Filter int
	// PC is the instruction in Filter where the cache emulation stopped, or
	// -1.
	PC int
}

// CacheReport is the action-cache prediction for a stack.
type CacheReport struct {
	// Entries lists every named syscall of each requested ABI, ABIs in the
	// requested order, numbers ascending.
	Entries []CacheEntry
	// Arches are the requested ABI names, in order.
	Arches []string
	// Filters is the stack depth the report was made for.
	Filters int

	index map[string]map[int]int // arch -> nr -> index in Entries
	bits  map[string]archCache
}

// archCache is the ANDed bitmap of one ABI, with the reason for each
// cleared bit.
type archCache struct {
	arch    *filters.Arch
	entries []CacheEntry // by nr, len CacheBits
}

// Lookup returns the prediction for table number nr of the ABI called arch.
// Numbers the table does not name are predicted as well (the kernel's
// bitmap covers them). The bool is false if the report does not cover arch.
func (r CacheReport) Lookup(arch string, nr int) (CacheEntry, bool) {
	if i, ok := r.index[arch][nr]; ok {
		return r.Entries[i], true
	}
	ac, ok := r.bits[arch]
	if !ok {
		return CacheEntry{}, false
	}
	if nr >= 0 && nr < len(ac.entries) {
		return ac.entries[nr], true
	}
	return outOfRange(ac.arch, nr, r.Filters), true
}

// Count returns how many named syscalls of arch are cached, and how many
// there are.
func (r CacheReport) Count(arch string) (cached, total int) {
	for _, e := range r.Entries {
		if e.Arch != arch {
			continue
		}
		total++
		if e.Cached {
			cached++
		}
	}
	return cached, total
}

func outOfRange(a *filters.Arch, nr, count int) CacheEntry {
	e := CacheEntry{Arch: a.Name, Nr: nr, Name: a.SyscallName(nr), Filter: -1, PC: -1}
	if count == 0 {
		e.Cached, e.Cause, e.Reason = true, CacheNoFilters, "no filters installed"
		return e
	}
	e.Cause = CacheRange
	if a.Mask&filters.X32SyscallBit != 0 {
		e.Reason = "x32 numbers carry __X32_SYSCALL_BIT (0x40000000) and fall outside the native bitmap: never cached, every filter runs (arch/x86/include/asm/seccomp.h)"
	} else {
		e.Reason = fmt.Sprintf("nr %d is outside the %s bitmap of %d syscalls: never cached (kernel/seccomp.c: seccomp_cache_check_allow_bitmap)", nr, a.Name, a.CacheBits)
	}
	return e
}

// constAllowResult is one filter's seccomp_is_const_allow answer for one
// nr and arch.
type constAllowResult struct {
	ok    bool
	cause string
	pc    int
}

// uprobeException reports whether kernel/seccomp.c: seccomp_uprobe_exception
// lets syscall nr of arch through without filtering: uretprobe (x86_64 335,
// since the 2025 fix "seccomp: passthrough uretprobe systemcall without
// filtering") and uprobe (x86_64 336, Linux 6.18), native ABI only.
func uprobeException(a *filters.Arch, nr int32) bool {
	if a.Compat || a.Mask != 0 {
		return false
	}
	name := a.SyscallName(int(nr))
	return name == "uretprobe" || name == "uprobe"
}

// constAllow reproduces kernel/seccomp.c: seccomp_is_const_allow on the
// filter as the user supplied it (the kernel keeps the original program for
// this): an interpreter that knows only nr and arch. It follows `ld [nr]`,
// `ld [arch]`, `ret #k`, `ja`, `jeq/jgt/jge/jset #k` and `and #k`; any
// other instruction or load ends it with "not constant". It must only see
// validated programs (jump targets in range).
func constAllow(insns []bpf.RawInstruction, nr int32, arch uint32) constAllowResult {
	var reg uint32
	for pc := 0; pc < len(insns); pc++ {
		in := insns[pc]
		switch in.Op {
		case filters.Ld | filters.W | filters.Abs:
			switch in.K {
			case filters.OffsetNr:
				reg = uint32(nr)
			case filters.OffsetArch:
				reg = arch
			default:
				return constAllowResult{cause: CacheLoad, pc: pc}
			}
		case filters.Ret | filters.K:
			if in.K == uint32(filters.ActionAllow) {
				return constAllowResult{ok: true, cause: CacheAllowed, pc: pc}
			}
			return constAllowResult{cause: CacheRet, pc: pc}
		case filters.Jmp | filters.Ja:
			pc += int(in.K)
		case filters.Jmp | filters.Jeq | filters.K, filters.Jmp | filters.Jge | filters.K, filters.Jmp | filters.Jgt | filters.K, filters.Jmp | filters.Jset | filters.K:
			var res bool
			switch in.Op & filters.OpMask {
			case filters.Jeq:
				res = reg == in.K
			case filters.Jge:
				res = reg >= in.K
			case filters.Jgt:
				res = reg > in.K
			case filters.Jset:
				res = reg&in.K != 0
			}
			if res {
				pc += int(in.Jt)
			} else {
				pc += int(in.Jf)
			}
		case filters.Alu | filters.And | filters.K:
			reg &= in.K
		default:
			return constAllowResult{cause: CacheInsn, pc: pc}
		}
	}
	// Ran off the end: the kernel WARNs and does not cache.
	return constAllowResult{cause: CacheInsn, pc: len(insns)}
}

// PredictCache predicts, for every named syscall of each ABI in arches
// (NativeArches when nil), whether the kernel's action cache lets it through
// without running the stack's filters, reproducing kernel/seccomp.c:
// seccomp_cache_prepare_bitmap and seccomp_is_const_allow exactly, with the
// uretprobe/uprobe exception of Linux 6.18. An invalid filter makes every
// syscall uncached with cause CacheInvalid (the kernel would refuse it).
// Requires at least Linux 5.11; older kernels cache nothing.
func PredictCache(s filters.Stack, arches []*filters.Arch) CacheReport {
	if arches == nil {
		arches = filters.NativeArches()
	}
	r := CacheReport{Filters: len(s), index: map[string]map[int]int{}, bits: map[string]archCache{}}
	invalid := -1
	var invalidErr error
	for i, p := range s {
		if err := filters.Validate(p.Insns); err != nil {
			invalid, invalidErr = i, err
			break
		}
	}
	for _, a := range arches {
		r.Arches = append(r.Arches, a.Name)
		ac := archCache{arch: a, entries: make([]CacheEntry, a.CacheBits)}
		for nr := range ac.entries {
			ac.entries[nr] = CacheEntry{Arch: a.Name, Nr: nr, Name: a.SyscallName(nr), Cached: true, Cause: CacheAllowed, Filter: -1, PC: -1}
		}
		switch {
		case len(s) == 0:
			for nr := range ac.entries {
				e := &ac.entries[nr]
				e.Cause, e.Reason = CacheNoFilters, "no filters installed"
			}
		case invalid >= 0:
			for nr := range ac.entries {
				e := &ac.entries[nr]
				e.Cached, e.Cause, e.Filter = false, CacheInvalid, invalid
				e.Reason = fmt.Sprintf("filter %d (%s) is invalid, the kernel would not attach it: %v", invalid, s[invalid].Name, invalidErr)
			}
		default:
			predictArch(s, a, ac.entries)
		}
		r.bits[a.Name] = ac
		idx := map[int]int{}
		for _, nr := range a.SortedNumbers() {
			var e CacheEntry
			if nr < len(ac.entries) {
				e = ac.entries[nr]
			} else {
				e = outOfRange(a, nr, len(s))
			}
			idx[nr] = len(r.Entries)
			r.Entries = append(r.Entries, e)
		}
		r.index[a.Name] = idx
	}
	return r
}

// predictArch fills entries (one per nr of a's bitmap, all cached on entry)
// for a valid, non-empty stack.
func predictArch(s filters.Stack, a *filters.Arch, entries []CacheEntry) {
	memo := map[*filters.Program][]constAllowResult{}
	for i, p := range s { // oldest first, as bitmaps are built
		res, ok := memo[p]
		if !ok {
			res = make([]constAllowResult, len(entries))
			for nr := range res {
				if uprobeException(a, int32(nr)) {
					res[nr] = constAllowResult{ok: true, cause: CacheException, pc: -1}
					continue
				}
				res[nr] = constAllow(p.Insns, a.Nr(nr), a.AuditArch)
			}
			memo[p] = res
		}
		for nr := range entries {
			e := &entries[nr]
			c := res[nr]
			if c.cause == CacheException && e.Cached {
				e.Cause = CacheException
				e.Reason = "the kernel passes uretprobe/uprobe without filtering (kernel/seccomp.c: seccomp_uprobe_exception)"
			}
			if !e.Cached || c.ok {
				continue
			}
			e.Cached, e.Cause, e.Filter, e.PC = false, c.cause, i, c.pc
			e.Reason = cacheReason(i, p, c)
		}
	}
}

func cacheReason(i int, p *filters.Program, c constAllowResult) string {
	where := fmt.Sprintf("filter %d (%s) line %d", i, p.Name, c.pc)
	if c.pc >= len(p.Insns) {
		return fmt.Sprintf("filter %d (%s) runs off its end in the cache emulation", i, p.Name)
	}
	text := filters.InstructionText(p.Insns[c.pc], c.pc)
	switch c.cause {
	case CacheRet:
		return fmt.Sprintf("%s: %s is not SECCOMP_RET_ALLOW, so the filter runs", where, text)
	case CacheLoad:
		return fmt.Sprintf("%s: %s reads a field other than nr and arch, so the kernel cannot know the verdict in advance", where, text)
	default:
		return fmt.Sprintf("%s: %s is outside the cache emulator's instruction subset (kernel/seccomp.c: seccomp_is_const_allow)", where, text)
	}
}
