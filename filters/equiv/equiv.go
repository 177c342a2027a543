// Package equiv decides exactly whether two seccomp filter stacks give
// every syscall the same outcome, and if not, names an input where they
// differ.
//
// # What is compared
//
// A stack's result for one struct seccomp_data is what the kernel computes
// in kernel/seccomp.c: seccomp_run_filters: every filter runs, newest
// first; a return value replaces the one kept so far only when its action
// (SECCOMP_RET_ACTION_FULL, compared as a signed 32-bit number) is strictly
// lower, starting from SECCOMP_RET_ALLOW. So the lowest action wins and
// ties go to the newest filter. Two results are the same outcome when the
// kernel does the same thing with them (kernel/seccomp.c:
// __seccomp_filter): the same action after unknown actions are mapped to
// SECCOMP_RET_KILL_PROCESS, and for SECCOMP_RET_ERRNO the same errno
// (capped at MAX_ERRNO = 4095), for SECCOMP_RET_TRAP the same si_errno
// data, for SECCOMP_RET_TRACE the same tracer message. The data of ALLOW,
// LOG, USER_NOTIF and the KILL actions is not observable and not compared.
//
// # How
//
// Both stacks run symbolically, one after the other, on a shared set of
// possible inputs (filters/internal/sym): each of the 16 32-bit words of
// seccomp_data (nr, arch, instruction_pointer and the six args, low and
// high halves) holds an exact set of values, cut by every jump the
// programs take (jeq/jgt/jge/jset against a constant or a constant X,
// after `and #k` or `or #k` on the loaded word). A jump the set decides is
// followed; one it does not decide forks the exploration. Every path ends
// with both stacks' results for a non-empty set of inputs that all behave
// alike, so comparing them at every path's end covers every syscall number
// of every architecture (any arch value, not just x86_64, i386 and x32)
// and every argument value: the check is a proof, not a sample.
//
// Programs the engine cannot follow exactly (arithmetic other than and/or
// with a constant on a loaded word, comparing two loaded words, `ret a` of
// a loaded word, a constraint search that exceeds its budget, more paths
// than MaxPaths) give an error wrapping ErrCannotProve, never a verdict.
package equiv

import (
	"errors"
	"fmt"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/internal/sym"
)

// ErrCannotProve is returned (wrapped) when the checker cannot decide
// equivalence exactly: an instruction it cannot reason about, or a search
// larger than its budgets. It is never turned into a verdict.
var ErrCannotProve = errors.New("cannot prove or refute equivalence")

// MaxPaths bounds the number of paths (sets of inputs with one outcome per
// stack) one check explores; beyond it Stacks returns ErrCannotProve.
const MaxPaths = 4 << 20

// CannotProveError says which filter and instruction stopped the checker.
type CannotProveError struct {
	// Side is "A" or "B"; Filter the stack index (0 = oldest) and Name
	// the program's name; PC the instruction, -1 for a budget.
	Side   string
	Filter int
	Name   string
	PC     int
	Err    error
	// Claim is what could not be decided, for the message: "" for
	// equivalence, e.g. "the subset" for filters/subset.
	Claim string
}

// Error says which filter and instruction stopped the proof.
func (e *CannotProveError) Error() string {
	what := ErrCannotProve.Error()
	if e.Claim != "" {
		what = "cannot prove or refute " + e.Claim
	}
	if e.PC < 0 {
		return fmt.Sprintf("%s: %v", what, e.Err)
	}
	return fmt.Sprintf("%s: stack %s filter %d (%s): %v", what, e.Side, e.Filter, e.Name, e.Err)
}

// Unwrap returns ErrCannotProve and the cause.
func (e *CannotProveError) Unwrap() []error { return []error{ErrCannotProve, e.Err} }

// Outcome is what the kernel does with a stack's result.
type Outcome struct {
	// Ret is the winning 32-bit return value.
	Ret uint32
	// Action is filters.KernelAction(Ret).
	Action filters.Action
	// Data is the observable data: the errno (capped at 4095) for ERRNO,
	// the data for TRAP and TRACE, else 0.
	Data uint16
}

// OutcomeOf maps a stack's winning return value to its observable outcome
// (kernel/seccomp.c: __seccomp_filter).
func OutcomeOf(ret uint32) Outcome {
	o := Outcome{Ret: ret, Action: filters.KernelAction(ret)}
	_, data := filters.SplitRet(ret)
	switch o.Action {
	case filters.ActionErrno:
		o.Data = min(data, filters.MaxErrno)
	case filters.ActionTrap, filters.ActionTrace:
		o.Data = data
	}
	return o
}

// Same reports whether two outcomes are indistinguishable to the task.
func (o Outcome) Same(p Outcome) bool { return o.Action == p.Action && o.Data == p.Data }

// String shows the return value as the disassembler does, e.g. ERRNO(1).
func (o Outcome) String() string { return filters.RetText(o.Ret) }

// Counterexample is one input on which two stacks differ.
type Counterexample struct {
	// Data is the input.
	Data filters.SeccompData
	// Arch is the ABI the input belongs to ("x86_64", "i386", "x32"), or
	// "" for an arch value no x86_64 kernel produces.
	Arch string
	// Nr is the syscall's table number in Arch (x32 bit cleared), Name its
	// name ("" if the table has none).
	Nr   int
	Name string
	// A and B are the two stacks' outcomes.
	A, B Outcome
}

// String names the ABI, syscall, arguments, instruction pointer and both
// outcomes.
func (c *Counterexample) String() string {
	who := fmt.Sprintf("arch %#x nr %d", c.Data.Arch, c.Data.Nr)
	if c.Arch != "" {
		who = fmt.Sprintf("%s nr %d", c.Arch, c.Nr)
		if c.Name != "" {
			who = fmt.Sprintf("%s %s (nr %d)", c.Arch, c.Name, c.Nr)
		}
	}
	return fmt.Sprintf("%s args [%#x %#x %#x %#x %#x %#x] ip %#x: A gives %s, B gives %s",
		who, c.Data.Args[0], c.Data.Args[1], c.Data.Args[2], c.Data.Args[3], c.Data.Args[4], c.Data.Args[5],
		c.Data.InstructionPointer, c.A, c.B)
}

// Result is a check's verdict.
type Result struct {
	// Equivalent is true when every input gives the same outcome.
	Equivalent bool
	// Counterexample is set when Equivalent is false.
	Counterexample *Counterexample
	// Paths is the number of input classes explored.
	Paths int
}

// Programs checks two single filters; see Stacks.
func Programs(a, b *filters.Program) (Result, error) {
	return Stacks(filters.Stack{a}, filters.Stack{b})
}

// Stacks decides whether stacks a and b (index 0 = oldest filter, as
// installed) give every seccomp_data the same outcome (see the package
// comment), and returns a differing input otherwise: the first one found
// whose nr is a syscall the tables name for its arch (looking past up to
// 256 classes of unnamed numbers), else the first one found. An
// empty stack allows everything. Invalid filters (filters.Validate) give an
// error wrapping filters.ErrInvalidProgram; programs it cannot reason about
// give a *CannotProveError wrapping ErrCannotProve.
//
// A counterexample is replayed through filters.EmulateStack before it is
// returned; a disagreement with the emulator is an error, not a verdict.
func Stacks(a, b filters.Stack) (Result, error) {
	c := &checker{}
	paths, err := Walk{Sides: [2]string{"A", "B"}, Leaf: c.leaf}.Run(a, b)
	res := Result{Paths: paths}
	var found errFound
	if err == nil && c.first != nil {
		err = errFound{c.first}
	}
	if errors.As(err, &found) {
		ce := found.ce
		if err := replay(a, b, ce); err != nil {
			return res, err
		}
		res.Counterexample = ce
		return res, nil
	}
	if err != nil {
		return res, err
	}
	res.Equivalent = true
	return res, nil
}

// checker is Stacks' Leaf state: the first differing class that names no
// syscall, and how many such classes it has looked past.
type checker struct {
	first   *Counterexample
	unnamed int
}

type errFound struct{ ce *Counterexample }

func (errFound) Error() string { return "counterexample found" }

// leaf ends the walk with a counterexample when the stacks' outcomes on d
// differ, preferring one that names a syscall.
func (c *checker) leaf(d sym.Domain, oa, ob Outcome) error {
	if oa.Same(ob) {
		return nil
	}
	w, err := d.Witness()
	if err != nil {
		return &CannotProveError{PC: -1, Err: err}
	}
	w[sym.WordNr] = namedNr(&d, w[sym.WordArch], w[sym.WordNr])
	ce := &Counterexample{Data: DataOf(w), A: oa, B: ob}
	ce.Arch, ce.Nr, ce.Name = Describe(ce.Data)
	// Prefer a counterexample that names a syscall: keep exploring a
	// little when this one does not.
	if ce.Name != "" {
		return errFound{ce}
	}
	if c.first == nil {
		c.first = ce
	}
	c.unnamed++
	if c.unnamed >= maxUnnamed {
		return errFound{c.first}
	}
	return nil
}

// maxUnnamed is how many differing input classes without a named syscall
// the checker looks past before it reports the first of them.
const maxUnnamed = 256

// namedNr returns the smallest syscall number the tables name for arch
// that lies in d's nr set, or def when there is none (or the set has
// masked constraints), so counterexamples name a syscall when they can.
func namedNr(d *sym.Domain, arch, def uint32) uint32 {
	ivs, exact := d.Intervals(sym.WordNr)
	if !exact {
		return def
	}
	best, found := uint32(0), false
	for _, a := range filters.NativeArches() {
		if a.AuditArch != arch {
			continue
		}
		for n := range a.Numbers {
			v := uint32(a.Nr(n))
			for _, r := range ivs {
				if v >= r[0] && v <= r[1] && (!found || v < best) {
					best, found = v, true
				}
			}
		}
	}
	if !found {
		return def
	}
	return best
}

// DataOf builds struct seccomp_data from its 16 words (word 0 = nr).
func DataOf(w [sym.Words]uint32) filters.SeccompData {
	d := filters.SeccompData{Nr: int32(w[0]), Arch: w[1], InstructionPointer: uint64(w[2]) | uint64(w[3])<<32}
	for i := range d.Args {
		d.Args[i] = uint64(w[4+2*i]) | uint64(w[5+2*i])<<32
	}
	return d
}

// Describe names the ABI and syscall of d: for AUDIT_ARCH_X86_64 with the
// x32 bit set, x32 and the number without the bit. Another ABI filters
// knows (filters.ArchByAudit: aarch64, arm, riscv64) is named with its
// own table; arch is "" for arch values it does not know.
func Describe(d filters.SeccompData) (arch string, nr int, name string) {
	nr = int(d.Nr)
	var a *filters.Arch
	switch d.Arch {
	case filters.AuditArchX86_64:
		a = filters.ArchX86_64
		if uint32(d.Nr)&filters.X32SyscallBit != 0 && d.Nr >= 0 {
			a = filters.ArchX32
			nr = int(uint32(d.Nr) &^ filters.X32SyscallBit)
		}
	case filters.AuditArchI386:
		a = filters.ArchI386
	default:
		// Another ABI's arch value (an aarch64 policy checked on x86):
		// named when filters knows it.
		if a = filters.ArchByAudit(d.Arch); a == nil {
			return "", nr, ""
		}
	}
	return a.Name, nr, a.SyscallName(nr)
}

// replay confirms a counterexample with the emulator.
func replay(a, b filters.Stack, ce *Counterexample) error {
	ra, err := filters.EmulateStack(a, ce.Data)
	if err != nil {
		return fmt.Errorf("replay counterexample: %w", err)
	}
	rb, err := filters.EmulateStack(b, ce.Data)
	if err != nil {
		return fmt.Errorf("replay counterexample: %w", err)
	}
	if ra.Ret != ce.A.Ret || rb.Ret != ce.B.Ret {
		return &CannotProveError{PC: -1, Err: fmt.Errorf("internal: the emulator gives %#x and %#x for %v, the checker %#x and %#x", ra.Ret, rb.Ret, ce.Data, ce.A.Ret, ce.B.Ret)}
	}
	return nil
}
