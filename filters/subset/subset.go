// Package subset decides exactly whether a seccomp filter stack (the
// profile) is at least as restrictive as another (the baseline) for every
// arch value, syscall number and argument value, and names every syscall
// where it is not: the check Kubernetes KEP-6061 and cri-o ask a runtime to
// make before it accepts a pulled profile, which "may only tighten" the
// node's baseline.
//
// # The order
//
// Outcomes are ranked by runtime-spec#1317's restrictiveness order,
// KILL_PROCESS > KILL_THREAD > TRAP > ERRNO > USER_NOTIF > TRACE > LOG >
// ALLOW (Rank), which is also the kernel's precedence over a stack. The
// profile is a subset of the baseline when, for every input, its outcome
// ranks at least as high as the baseline's.
//
// Outcomes of the same action with different data (ERRNO(EPERM) against
// ERRNO(ENOSYS), TRAP or TRACE with other data) are not ranked: the order
// says nothing about them, the task sees the difference (glibc falls back
// to an older syscall on ENOSYS, not on EPERM), and in a stack of both the
// kernel keeps the newest filter's data, so which one a runtime enforces
// depends on the order it installs them in. They count against the subset
// (DataDiffers), as a conservative check must, unless Options.ClassOnly
// ranks them by action alone and reports them as Result.Notes (the
// subset command's default; --strict-errno counts them). LOG ranks above ALLOW (it allows and logs);
// the data of ALLOW, LOG, USER_NOTIF and the KILL actions is not
// observable and never compared.
//
// # How
//
// Both stacks run symbolically as in filters/equiv (filters/internal/sym):
// every path ends with a set of inputs on which both stacks return one
// value each, so the check covers every input, not a sample. Each set
// where the profile is looser is broken down into the named syscalls of
// x86_64, i386 and x32 it holds, each with a concrete witness (its
// smallest argument values) that the emulator (filters.EmulateStack)
// confirms before it is reported. Programs the engine cannot follow give
// an error wrapping equiv.ErrCannotProve, never a verdict.
package subset

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/equiv"
)

// Options tune Check.
type Options struct {
	// ClassOnly ranks outcomes by action alone: ERRNO(EPERM) in the
	// profile against ERRNO(ENOSYS) in the baseline is then no finding
	// but a note (Result.Notes).
	ClassOnly bool
}

// Finding is one syscall (or one class of unnamed inputs) on which the
// profile is looser than the baseline, or returns other data.
type Finding struct {
	// Arch is the ABI ("x86_64", "i386", "x32"), or "" for an arch value
	// no x86 kernel produces; Nr the table number (x32 bit cleared); Name
	// the syscall's name, "" for a number the table does not name.
	Arch string
	Nr   int
	Name string
	// Relation is Looser or DataDiffers.
	Relation Relation
	// Witness is a concrete input (the first class found, smallest
	// argument values) on which the profile gives Profile and the baseline
	// Baseline; both are confirmed by the emulator.
	Witness           filters.SeccompData
	Profile, Baseline equiv.Outcome
	// Classes is the number of input classes of this syscall (sets of
	// argument values that behave alike) on which the profile violates.
	Classes int
}

// String names the syscall, the witness's arguments and both outcomes.
func (f *Finding) String() string {
	ce := equiv.Counterexample{Data: f.Witness, Arch: f.Arch, Nr: f.Nr, Name: f.Name, A: f.Profile, B: f.Baseline}
	return fmt.Sprintf("%s (%s)", ce.String(), f.Relation)
}

// Result is Check's verdict.
type Result struct {
	// Subset is true when no input violates.
	Subset bool
	// Findings are the named syscalls where the profile violates, sorted
	// by arch (x86_64, i386, x32) and number: every one, not the first.
	Findings []Finding
	// Unnamed are violating inputs whose syscall number no table names
	// for its arch, or whose arch value is none of x86_64's and i386's:
	// one Finding per arch (Name ""), Classes counting its input classes.
	Unnamed []Finding
	// Notes are, with Options.ClassOnly, the syscalls (and per ABI the
	// unnamed inputs) where the profile returns the same action with
	// other data (Relation DataDiffers): not counted against the subset,
	// reported so the difference stays visible. Sorted as Findings, each
	// witness confirmed by the emulator; nil without ClassOnly (they are
	// Findings then).
	Notes []Finding
	// Paths is the number of input classes explored.
	Paths int
}

// Check decides whether profile is at least as restrictive as baseline
// (index 0 = oldest filter of each stack) on every input. An empty stack
// allows everything. Invalid filters give an error wrapping
// filters.ErrInvalidProgram, programs the engine cannot follow a
// *equiv.CannotProveError wrapping equiv.ErrCannotProve.
func Check(profile, baseline filters.Stack, opt Options) (Result, error) {
	c := &checker{opt: opt, viol: newFindings(), notes: newFindings()}
	paths, err := equiv.Walk{Sides: sideNames, Claim: claim, Leaf: c.leaf}.Run(profile, baseline)
	if err != nil {
		return Result{Paths: paths}, err
	}
	res := Result{Paths: paths}
	for _, f := range c.viol.named {
		res.Findings = append(res.Findings, *f)
	}
	for _, f := range c.viol.unnamed {
		res.Unnamed = append(res.Unnamed, *f)
	}
	for _, f := range c.notes.named {
		res.Notes = append(res.Notes, *f)
	}
	for _, f := range c.notes.unnamed {
		res.Notes = append(res.Notes, *f)
	}
	byArch := func(a, b Finding) int {
		return cmp.Or(cmp.Compare(archOrder(a.Arch), archOrder(b.Arch)), cmp.Compare(a.Witness.Arch, b.Witness.Arch), cmp.Compare(a.Nr, b.Nr))
	}
	slices.SortFunc(res.Findings, byArch)
	slices.SortFunc(res.Unnamed, byArch)
	slices.SortFunc(res.Notes, byArch)
	for _, fs := range [][]Finding{res.Findings, res.Unnamed, res.Notes} {
		for i := range fs {
			if err := replay(profile, baseline, &fs[i]); err != nil {
				return res, err
			}
		}
	}
	res.Subset = len(res.Findings) == 0 && len(res.Unnamed) == 0
	return res, nil
}

var sideNames = [2]string{"profile", "baseline"}

// claim names what Check decides in its *equiv.CannotProveError.
const claim = "that the profile is at least as restrictive as the baseline (subset)"

// archOrder sorts x86_64, i386, x32, then unknown arch values.
func archOrder(a string) int {
	for i, n := range filters.NativeArches() {
		if n.Name == a {
			return i
		}
	}
	return len(filters.NativeArches())
}

// replay confirms f's witness with the emulator.
func replay(profile, baseline filters.Stack, f *Finding) error {
	rp, err := filters.EmulateStack(profile, f.Witness)
	if err != nil {
		return fmt.Errorf("replay witness: %w", err)
	}
	rb, err := filters.EmulateStack(baseline, f.Witness)
	if err != nil {
		return fmt.Errorf("replay witness: %w", err)
	}
	if rp.Ret != f.Profile.Ret || rb.Ret != f.Baseline.Ret {
		return &equiv.CannotProveError{Claim: claim, PC: -1, Err: fmt.Errorf("internal: the emulator gives %#x and %#x for %v, the checker %#x and %#x",
			rp.Ret, rb.Ret, f.Witness, f.Profile.Ret, f.Baseline.Ret)}
	}
	return nil
}
