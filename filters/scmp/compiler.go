package scmp

import (
	"errors"
	"fmt"
	"strings"

	"github.com/seccompbench/seccompbench/filters"
	"golang.org/x/net/bpf"
)

// Compiler chooses who lays out the BPF of OCI profiles and systemd units:
// this package (CompilerNative) or libseccomp, as runc, crun and systemd
// do (CompilerLibseccomp). Verdicts are the same; the instruction layout,
// and so the cost per syscall, is not. Beats policies are compiled by
// github.com/elastic/go-seccomp-bpf, as Beats does, and raw BPF is taken as
// it is, whatever the Compiler.
type Compiler int

// Compilers.
const (
	// CompilerNative is this package's layout: per architecture, a chunked
	// ascending jeq dispatch with shared returns (scmp.go).
	CompilerNative Compiler = iota
	// CompilerLibseccomp is libseccomp's layout, through
	// github.com/seccomp/libseccomp-golang. It needs a binary built with
	// -tags libseccomp (cgo and libseccomp-dev); otherwise compiling with
	// it returns an error wrapping ErrNoLibseccomp.
	CompilerLibseccomp
)

// String returns "native" or "libseccomp".
func (c Compiler) String() string {
	switch c {
	case CompilerNative:
		return "native"
	case CompilerLibseccomp:
		return "libseccomp"
	}
	return fmt.Sprintf("compiler(%d)", int(c))
}

// ErrUnknownCompiler is returned by ParseCompiler for a name other than
// "native" or "libseccomp".
var ErrUnknownCompiler = errors.New("unknown compiler")

// ParseCompiler parses a --compiler value: "native" (or "") or
// "libseccomp". Any other name returns an error wrapping
// ErrUnknownCompiler. It does not check that libseccomp is built in; see
// LibseccompAvailable.
func ParseCompiler(s string) (Compiler, error) {
	switch strings.ToLower(s) {
	case "", "native":
		return CompilerNative, nil
	case "libseccomp":
		return CompilerLibseccomp, nil
	}
	return 0, fmt.Errorf("parse compiler %q: %w; want native or libseccomp", s, ErrUnknownCompiler)
}

// ErrNoLibseccomp is returned (wrapped, with a hint on how to build it in)
// by the libseccomp compilers in a binary built without the libseccomp
// build tag or without cgo: the default build is pure Go and static.
var ErrNoLibseccomp = errors.New("libseccomp compiler not built in")

// LibseccompHint is the advice every ErrNoLibseccomp error carries.
const LibseccompHint = "build with -tags libseccomp (needs libseccomp-dev and cgo)"

// LibseccompAvailable reports whether this binary was built with the
// libseccomp compiler (build tag libseccomp, cgo on).
func LibseccompAvailable() bool { return libseccompBuilt }

// LibseccompVersion returns the version of the libseccomp library linked
// in, e.g. "2.5.4", or an error wrapping ErrNoLibseccomp.
func LibseccompVersion() (string, error) { return libseccompVersion() }

// LibseccompOptions are the libseccomp filter attributes and rule calls a caller
// uses, which decide the layout.
type LibseccompOptions struct {
	// optimize is SCMP_FLTATR_CTL_OPTIMIZE: 0 leaves libseccomp's default
	// (1: rules sorted by priority and complexity), 2 asks for a binary
	// tree sorted by syscall number.
	Optimize int
	// exact adds rules with seccomp_rule_add_exact, as systemd does;
	// otherwise seccomp_rule_add, as runc does.
	Exact bool
}

// RuncOptimizeThreshold is the number of syscall rules above which runc
// asks libseccomp for a binary tree (libcontainer/seccomp/seccomp_linux.go:
// InitSeccomp, "len(config.Syscalls) > 32").
const RuncOptimizeThreshold = 32

// stubJump is one instruction of runc's ENOSYS stub before layout: a jump
// names its targets as stub positions (stubNext = the next instruction).
type stubJump struct {
	ins    bpf.RawInstruction
	jt, jf int
}

const (
	stubNext   = -1 // the next instruction
	stubENOSYS = -2 // the stub's `ret ERRNO(ENOSYS)`
	stubFilter = -3 // the first instruction after the stub
)

// StubBound is one audit architecture's part of runc's ENOSYS stub: the
// highest syscall number the profile names for the main ABI and, on
// x86_64, for x32 (X32SyscallBit included); 0 means none.
type StubBound struct {
	Audit     uint32
	Main, X32 uint32
}

// RuncENOSYSStub lays out runc's ENOSYS stub (runc
// libcontainer/seccomp/patchbpf: generateEnosysStub) for the given bounds,
// in runc's shape, so its instruction count and path are runc's:
//
//	ld [arch]; jeq audit_1 → S1; ...; ja → filter
//	S (one ABI):     ld [nr]; (x86_64: jset X32 bit → ja); jgt max → ENOSYS; ja → filter
//	S (x86_64+x32):  ld [nr]; jset X32 bit → x32; jgt max → ENOSYS else ja;
//	                 X32: jgt max32 → ENOSYS; ja → filter
//	ja +1; ret ERRNO(ENOSYS)
//
// runc emits the architectures in Go map order; here they come in the
// order given (RuncENOSYSStubs gives the other orders). It fails if a jump
// would need more than 255 instructions (runc switches to long jumps
// there; no real profile gets near).
func RuncENOSYSStub(bounds []StubBound) ([]bpf.RawInstruction, error) {
	secs, used := stubSections(bounds)
	order := identity(len(secs))
	return layoutStub(secs, used, order, order)
}

// RuncENOSYSStubs returns every stub runc may lay out for bounds, the
// order given first. runc (patchbpf: generateEnosysStub) ranges over a Go
// map twice, once to lay out the sections and once to write the jump
// table, and Go randomizes map order, so with n audit architectures
// (x86_64 and i386 for Docker's profile: n = 2) any of n!*n! stubs can be
// installed, one per container start. Their verdicts are the same.
func RuncENOSYSStubs(bounds []StubBound) ([][]bpf.RawInstruction, error) {
	secs, used := stubSections(bounds)
	perms := permutations(len(secs))
	var out [][]bpf.RawInstruction
	for _, sec := range perms {
		for _, jeq := range perms {
			s, err := layoutStub(secs, used, sec, jeq)
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
	}
	return out, nil
}

// identity returns 0, 1, ..., n-1.
func identity(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	return p
}

// permutations returns every order of 0..n-1, identity first.
func permutations(n int) [][]int {
	if n == 0 {
		return [][]int{{}}
	}
	var out [][]int
	for _, p := range permutations(n - 1) {
		for i := len(p); i >= 0; i-- {
			q := append(append(append([]int{}, p[:i]...), n-1), p[i:]...)
			out = append(out, q)
		}
	}
	return out
}

// stubSections builds the stub's per-architecture sections, with their
// jump targets symbolic (stubNext, stubENOSYS, stubFilter or an offset in
// the section), and the bounds they belong to.
func stubSections(bounds []StubBound) ([][]stubJump, []StubBound) {
	var secs [][]stubJump
	var used []StubBound
	for _, b := range bounds {
		if b.Main == 0 && b.X32 == 0 {
			continue
		}
		s := []stubJump{{ins: bpf.RawInstruction{Op: filters.Ld | filters.W | filters.Abs, K: filters.OffsetNr}}}
		jgt := func(k uint32, jf int) stubJump {
			return stubJump{ins: bpf.RawInstruction{Op: filters.Jmp | filters.Jgt | filters.K, K: k}, jt: stubENOSYS, jf: jf}
		}
		jset := func(jt, jf int) stubJump {
			return stubJump{ins: bpf.RawInstruction{Op: filters.Jmp | filters.Jset | filters.K, K: filters.X32SyscallBit}, jt: jt, jf: jf}
		}
		switch {
		case b.Audit == filters.AuditArchX86_64 && b.Main != 0 && b.X32 != 0:
			// 1 jset, 2 jgt main (false: skip the x32 test), 3 jgt x32, 4 ja
			s = append(s, jset(3, stubNext), jgt(b.Main, 4), jgt(b.X32, stubNext))
		case b.Audit == filters.AuditArchX86_64 && b.Main != 0:
			s = append(s, jset(3, stubNext), jgt(b.Main, stubNext))
		case b.Audit == filters.AuditArchX86_64:
			s = append(s, jset(stubNext, 3), jgt(b.X32, stubNext))
		default:
			s = append(s, jgt(b.Main, stubNext))
		}
		s = append(s, stubJump{ins: bpf.RawInstruction{Op: filters.Jmp | filters.Ja}, jt: stubFilter})
		secs = append(secs, s)
		used = append(used, b)
	}
	return secs, used
}

// layoutStub lays the sections out, sections in secOrder and the jump
// table's entries in jeqOrder (both orders of indexes into secs).
// Layout: 0 ld arch, 1..n jeq, n+1 ja filter, sections, ja +1, ret.
func layoutStub(secs [][]stubJump, used []StubBound, secOrder, jeqOrder []int) ([]bpf.RawInstruction, error) {
	start := make([]int, len(secs))
	pos := len(secs) + 2
	for _, i := range secOrder {
		start[i] = pos
		pos += len(secs[i])
	}
	enosys := pos + 1
	filter := pos + 2
	out := []bpf.RawInstruction{{Op: filters.Ld | filters.W | filters.Abs, K: filters.OffsetArch}}
	rel := func(pc, target int) (uint8, error) {
		d := target - pc - 1
		if d < 0 || d > filters.MaxCondJump {
			return 0, fmt.Errorf("lay out runc's ENOSYS stub: jump of %d instructions at %d", d, pc)
		}
		return uint8(d), nil
	}
	for _, i := range jeqOrder {
		jt, err := rel(len(out), start[i])
		if err != nil {
			return nil, err
		}
		out = append(out, bpf.RawInstruction{Op: filters.Jmp | filters.Jeq | filters.K, K: used[i].Audit, Jt: jt})
	}
	out = append(out, bpf.RawInstruction{Op: filters.Jmp | filters.Ja, K: uint32(filter - len(out) - 1)})
	for _, i := range secOrder {
		for _, j := range secs[i] {
			pc := len(out)
			abs := func(t int) int {
				switch t {
				case stubNext:
					return pc + 1
				case stubENOSYS:
					return enosys
				case stubFilter:
					return filter
				}
				return start[i] + t
			}
			ins := j.ins
			if ins.Op == filters.Jmp|filters.Ja {
				ins.K = uint32(abs(j.jt) - pc - 1)
			} else if ins.Op&filters.ClassMask == filters.Jmp {
				var err error
				if ins.Jt, err = rel(pc, abs(j.jt)); err != nil {
					return nil, err
				}
				if ins.Jf, err = rel(pc, abs(j.jf)); err != nil {
					return nil, err
				}
			}
			out = append(out, ins)
		}
	}
	out = append(out, bpf.RawInstruction{Op: filters.Jmp | filters.Ja, K: 1}, bpf.RawInstruction{Op: filters.Ret | filters.K, K: RetENOSYS})
	return out, nil
}

// StubBoundsFrom groups per-ABI bounds by audit architecture, in the
// order the ABIs are listed.
func StubBoundsFrom(listed []*Arch, max func(a *Arch) uint32) []StubBound {
	var out []StubBound
	for _, a := range listed {
		m := max(a)
		if m == 0 {
			continue
		}
		i := -1
		for k := range out {
			if out[k].Audit == a.Audit {
				i = k
			}
		}
		if i < 0 {
			out = append(out, StubBound{Audit: a.Audit})
			i = len(out) - 1
		}
		if a.X32 {
			out[i].X32 = m
		} else {
			out[i].Main = m
		}
	}
	return out
}

// maxStubLen bounds the search for runc's ENOSYS stub: its jump table and
// sections take a few instructions per audit architecture (at most 5 per
// section, RuncENOSYSStub), far below this.
const maxStubLen = 64

// ENOSYSStubReturn returns the index of the `ret ERRNO(ENOSYS)` of runc's
// ENOSYS stub (RuncENOSYSStub's layout: ld [arch] first, only loads and
// jumps up to the `ja +1; ret ERRNO(ENOSYS)` pair) when insns starts with
// one, or -1. A syscall that returns there got ERRNO(38) from the stub
// (runc libcontainer/seccomp/patchbpf: generateEnosysStub, for numbers
// above every one the profile names), not from a rule of the profile.
func ENOSYSStubReturn(insns []bpf.RawInstruction) int {
	if len(insns) < 3 || insns[0] != (bpf.RawInstruction{Op: filters.Ld | filters.W | filters.Abs, K: filters.OffsetArch}) {
		return -1
	}
	for i := 1; i < len(insns) && i < maxStubLen; i++ {
		switch insns[i].Op & filters.ClassMask {
		case filters.Ld, filters.Jmp:
			continue
		case filters.Ret:
			if insns[i] == (bpf.RawInstruction{Op: filters.Ret | filters.K, K: RetENOSYS}) && insns[i-1] == (bpf.RawInstruction{Op: filters.Jmp | filters.Ja, K: 1}) {
				return i
			}
		}
		return -1
	}
	return -1
}

// FromENOSYSStub reports whether s's verdict for d is ERRNO(ENOSYS) from
// runc's ENOSYS stub rather than from a rule: the stub at the head of the
// deciding filter (ENOSYSStubReturn, the libseccomp compiler's layout), or
// the native compiler's fold of it into each ABI's dispatch (emitDispatch:
// `jgt max` falling through to `ret ERRNO(ENOSYS)`). Invalid filters give
// an error wrapping filters.ErrInvalidProgram.
func FromENOSYSStub(s filters.Stack, d filters.SeccompData) (bool, error) {
	r, err := filters.EmulateStack(s, d)
	if err != nil {
		return false, err
	}
	if r.Ret != RetENOSYS || r.Decider < 0 {
		return false, nil
	}
	return ENOSYSStubPath(s[r.Decider].Insns, r.PerFilter[r.Decider].Path), nil
}

// ENOSYSStubPath reports whether path (the PCs one run of insns executed,
// filters.Result.Path) ends at runc's ENOSYS stub's return, as
// FromENOSYSStub decides it.
func ENOSYSStubPath(insns []bpf.RawInstruction, path []int) bool {
	if len(path) < 2 {
		return false
	}
	pc, prev := path[len(path)-1], path[len(path)-2]
	if pc >= len(insns) || insns[pc] != (bpf.RawInstruction{Op: filters.Ret | filters.K, K: RetENOSYS}) {
		return false
	}
	if pc == ENOSYSStubReturn(insns) {
		return true
	}
	if prev != pc-1 || insns[prev] != (bpf.RawInstruction{Op: filters.Jmp | filters.Jgt | filters.K, K: insns[prev].K, Jt: 0, Jf: 1}) {
		return false
	}
	// The jgt must test nr, not an argument word: the last load on the
	// path is ld [nr].
	for i := len(path) - 3; i >= 0; i-- {
		if in := insns[path[i]]; in.Op&filters.ClassMask == filters.Ld {
			return in == bpf.RawInstruction{Op: filters.Ld | filters.W | filters.Abs, K: filters.OffsetNr}
		}
	}
	return false
}
