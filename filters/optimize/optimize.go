// Package optimize merges a stack of seccomp filters into one classic BPF
// program and lays a program out for a workload, proving every result
// equivalent to its input with filters/equiv before returning it.
//
// # How a program is built
//
//  1. Phase 1 runs every filter of the stack (newest first) symbolically on
//     nr and arch only (filters/internal/sym). Each jump on a plain
//     comparison of nr or arch splits the inputs; a jump on anything else
//     (an argument, the instruction pointer, a masked nr test) stops that
//     filter. Every resulting class of (arch, nr) values has, per filter,
//     either its return value or the filter's state at the stop.
//  2. Phase 2 decides each class: stopped filters are explored on the
//     remaining words, newest first, and each return value is folded into
//     the result so far with the kernel's precedence (kernel/seccomp.c:
//     seccomp_run_filters: the lowest action wins, ties go to the newest
//     filter). A filter none of whose returns could lower the result is
//     skipped. A class whose outcome does not depend on the other words
//     becomes a single `ret`, so a syscall whose stack result does not depend
//     on its arguments is reached through `ld [arch]`, `ld [nr]`, `jeq`/`jge`
//     and `ret` only and stays cacheable (kernel/seccomp.c:
//     seccomp_is_const_allow).
//  3. Layout (dispatch, search) puts a search over arch, then per arch a
//     search over nr, on top: weight-balanced on `jge`, with heavy single
//     syscalls peeled off with `jeq` first. Without a profile each run of
//     syscall numbers with one outcome weighs the same (a balanced search);
//     with one (Weights), the workload's hot syscalls sit near the root.
//  4. The decision DAG is hash-consed, so equal rule bodies and returns are
//     emitted once; emission skips reloading a word the accumulator already
//     holds on every incoming path and inserts trampolines for jumps beyond
//     255 instructions.
//  5. Small named passes (passes.go) clean up until nothing changes.
//  6. The result is validated (filters.Validate), checked against BPF_MAXINSNS
//     and proven equivalent to the input by equiv.Stacks; a program that
//     fails any of these is never returned.
package optimize

import (
	"errors"
	"fmt"

	"golang.org/x/net/bpf"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/analysis"
	"github.com/seccompbench/seccompbench/filters/equiv"
	"github.com/seccompbench/seccompbench/filters/internal/sym"
)

// ErrTooComplex is returned (wrapped) when building the merged program
// would take more work than the package's budgets.
var ErrTooComplex = errors.New("stack too complex to merge")

// ErrNotEquivalent is returned (wrapped in a *NotEquivalentError) when the
// built program fails the equivalence check: a bug, reported rather than
// written.
var ErrNotEquivalent = errors.New("built program is not equivalent to its input")

// NotEquivalentError carries the checker's counterexample.
type NotEquivalentError struct {
	Counterexample *equiv.Counterexample
}

// Error gives the counterexample.
func (e *NotEquivalentError) Error() string {
	return fmt.Sprintf("%v: %v", ErrNotEquivalent, e.Counterexample)
}

// Unwrap returns ErrNotEquivalent.
func (e *NotEquivalentError) Unwrap() error { return ErrNotEquivalent }

// TooLongError reports a merged program over BPF_MAXINSNS (4096
// instructions, include/uapi/linux/bpf_common.h; the kernel rejects longer
// filters with EINVAL) and what would fit.
type TooLongError struct {
	// Have is the merged program's length in instructions, Max the limit.
	Have, Max int
	// FitFilters is the largest number of newest filters whose merge
	// fits (0 if not even the newest alone does), FitLen that merge's
	// length in instructions, Filters the stack's size.
	FitFilters, FitLen, Filters int
}

// Error says by how much the limit is exceeded and what would fit.
func (e *TooLongError) Error() string {
	s := fmt.Sprintf("merged program has %d instructions, %d over BPF_MAXINSNS (%d)", e.Have, e.Have-e.Max, e.Max)
	if e.FitFilters > 0 {
		return s + fmt.Sprintf(": the newest %d of the %d filters merge into %d instructions; merge those and keep the %d older ones as they are",
			e.FitFilters, e.Filters, e.FitLen, e.Filters-e.FitFilters)
	}
	return s + ": not even the newest filter alone fits after merging"
}

// Unwrap returns filters.ErrLimit.
func (e *TooLongError) Unwrap() error { return filters.ErrLimit }

// CacheChange is a syscall whose action-cache status differs between the
// input and the result (analysis.PredictCache).
type CacheChange struct {
	// Arch is the ABI name, Nr the table number, Name the syscall name.
	Arch string
	Nr   int
	Name string
	// Reason is the cache predictor's explanation for the side that is
	// not cached.
	Reason string
}

// Result is a merged or optimized program with what was checked.
type Result struct {
	// Program is the built filter (valid, at most BPF_MAXINSNS long,
	// proven equivalent to the input).
	Program *filters.Program
	// Check is the equivalence proof's result (Equivalent is true).
	Check equiv.Result
	// Passes lists the cleanup passes that changed something, in order.
	Passes []string
	// CacheLost are syscalls the input's stack had cached and the result
	// does not; CacheGained the reverse. Requires at least Linux 5.11.
	CacheLost, CacheGained []CacheChange
	// Longer lists, for Optimize without a profile, the syscalls (all
	// arguments 0) whose path is still longer than in the input, with
	// both lengths in Reason; empty when none is.
	Longer []CacheChange
}

// Merge returns one program whose outcome equals stack s's for every
// seccomp_data (every arch value, syscall number and argument), laid out
// with weights w (the zero Weights for a balanced layout). s is in
// installation order (index 0 = oldest). Errors: filters.ErrInvalidProgram
// for an invalid filter; a *TooLongError (wrapping filters.ErrLimit) when
// the result would exceed BPF_MAXINSNS; errors wrapping
// sym.ErrCannotReason or equiv.ErrCannotProve for programs the engine
// cannot follow exactly; a *NotEquivalentError if the proof fails.
func Merge(s filters.Stack, w Weights) (*Result, error) {
	if len(s) == 0 {
		return nil, errors.New("merge: empty stack")
	}
	insns, fired, err := build(s, w)
	if err != nil {
		return nil, err
	}
	if len(insns) > filters.MaxInsns {
		e := &TooLongError{Have: len(insns), Max: filters.MaxInsns, Filters: len(s)}
		for n := len(s) - 1; n >= 1; n-- {
			sub, _, err := build(s[len(s)-n:], w)
			if err == nil && len(sub) <= filters.MaxInsns {
				e.FitFilters, e.FitLen = n, len(sub)
				break
			}
		}
		return nil, e
	}
	name := "merged"
	if len(s) == 1 {
		name = s[0].Name + "-optimized"
	}
	p := &filters.Program{Name: name, Source: name, Insns: insns}
	if err := filters.Validate(p.Insns); err != nil {
		return nil, fmt.Errorf("merge: built an invalid program (a bug): %w", err)
	}
	chk, err := equiv.Stacks(s, filters.Stack{p})
	if err != nil {
		return nil, fmt.Errorf("merge: prove equivalence: %w", err)
	}
	if !chk.Equivalent {
		return nil, &NotEquivalentError{Counterexample: chk.Counterexample}
	}
	r := &Result{Program: p, Check: chk, Passes: fired}
	r.CacheLost, r.CacheGained = cacheDiff(s, filters.Stack{p})
	return r, nil
}

// repairRounds bounds Optimize's rounds of re-weighting syscalls whose
// path came out longer than the input's.
const repairRounds = 8

// Optimize returns p laid out for weights w, proven equivalent; see Merge.
//
// Without a profile (w has no Calls) the layout is balanced over the named
// syscalls, and then repaired: a syscall (all arguments 0, on x86_64, i386
// or x32) whose path is longer than in p gets more weight and the layout
// is rebuilt, up to repairRounds times, so that the result is at least as
// short as p on every syscall whenever the rounds find such a layout. With
// p compiled in libseccomp's binary-tree shape this gives "no syscall
// slower than libseccomp's tree"; Longer lists the syscalls where that
// still fails.
func Optimize(p *filters.Program, w Weights) (*Result, error) {
	return OptimizeStack(filters.Stack{p}, w)
}

// OptimizeStack is Optimize for a whole stack s (installation order): the
// result is one program equivalent to the stack, as Merge's, laid out for
// w and, without a profile, repaired so that no syscall's path is longer
// than the stack's (the instructions of all its filters added up).
func OptimizeStack(s filters.Stack, w Weights) (*Result, error) {
	r, err := Merge(s, w)
	if err != nil || w.profiled() {
		return r, err
	}
	before, err := analysis.Analyze(s, nil)
	if err != nil {
		return nil, fmt.Errorf("optimize: %w", err)
	}
	extra := map[[2]uint32]float64{}
	for round := 0; ; round++ {
		after, err := analysis.Analyze(filters.Stack{r.Program}, nil)
		if err != nil {
			return nil, fmt.Errorf("optimize: %w", err)
		}
		r.Longer = r.Longer[:0]
		for i := range before {
			if after[i].Executed > before[i].Executed {
				b := before[i]
				r.Longer = append(r.Longer, CacheChange{Arch: b.Arch, Nr: b.Nr, Name: b.Name,
					Reason: fmt.Sprintf("%d instructions, %d in the input", after[i].Executed, b.Executed)})
			}
		}
		if len(r.Longer) == 0 || round == repairRounds {
			return r, nil
		}
		for _, l := range r.Longer {
			a, _ := filters.LookupArch(l.Arch)
			k := [2]uint32{a.AuditArch, uint32(a.Nr(l.Nr))}
			extra[k] = max(4*extra[k], 16)
		}
		w.extra = extra
		r2, err := Merge(s, w)
		if err != nil {
			return nil, err
		}
		r2.Longer = r.Longer
		r = r2
	}
}

// build returns the merged program of s before checks.
func build(s filters.Stack, w Weights) ([]bpf.RawInstruction, []string, error) {
	m := &merger{b: newBuilder()}
	for i := len(s) - 1; i >= 0; i-- {
		if err := filters.Validate(s[i].Insns); err != nil {
			return nil, nil, fmt.Errorf("merge: filter %d (%s): %w", i, s[i].Name, err)
		}
		m.progs = append(m.progs, s[i])
	}
	m.rest = make([]int32, len(m.progs)+1)
	m.rest[len(m.progs)] = 0x7fffffff
	for k := len(m.progs) - 1; k >= 0; k-- {
		m.rest[k] = min(m.rest[k+1], minAction(m.progs[k].Insns))
	}
	var leaves []leafOut
	err := m.explore1(func(st leafState) error {
		n, err := m.residual(st)
		if err != nil {
			return err
		}
		arch, ok1 := st.dom.Intervals(sym.WordArch)
		nr, ok2 := st.dom.Intervals(sym.WordNr)
		if !ok1 || !ok2 {
			return errors.New("merge: internal: masked nr or arch constraint in phase 1")
		}
		leaves = append(leaves, leafOut{arch: arch, nr: nr, n: n})
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("merge: %w", err)
	}
	root := m.b.dispatch(leaves, w)
	insns, fired := runPasses(emit(root))
	return insns, fired, nil
}

// cacheDiff compares the action-cache predictions of two stacks over the
// x86_64 kernel's ABIs.
func cacheDiff(a, b filters.Stack) (lost, gained []CacheChange) {
	ra, rb := analysis.PredictCache(a, nil), analysis.PredictCache(b, nil)
	for _, ea := range ra.Entries {
		eb, ok := rb.Lookup(ea.Arch, ea.Nr)
		if !ok || ea.Cached == eb.Cached {
			continue
		}
		if ea.Cached {
			lost = append(lost, CacheChange{Arch: ea.Arch, Nr: ea.Nr, Name: ea.Name, Reason: eb.Reason})
		} else {
			gained = append(gained, CacheChange{Arch: ea.Arch, Nr: ea.Nr, Name: ea.Name, Reason: ea.Reason})
		}
	}
	return lost, gained
}
