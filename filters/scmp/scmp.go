package scmp

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/seccompbench/seccompbench/filters"
	"golang.org/x/net/bpf"
)

// This file is a small model of libseccomp's filter database (the state
// behind seccomp_init, seccomp_arch_add and seccomp_rule_add) and a compiler
// from it to classic BPF. OCI profiles (runc calls libseccomp) and systemd
// units (systemd calls libseccomp) are both translated into it, so both get
// libseccomp's verdicts; the instruction layout is our own (see
// Filter.Compile).

// Audit architecture values of the non-x86 ABIs OCI profiles may list
// (include/uapi/linux/audit.h); the x86 ones are in arch.go.
const (
	auditArchAARCH64 = filters.AuditArchAArch64
	auditArchARM     = filters.AuditArchARM
)

// Arch is one architecture as libseccomp filters it.
type Arch struct {
	OCI   string // OCI/libseccomp token name, e.g. "SCMP_ARCH_X86_64"
	Name  string // short name used in messages: "x86_64", "x86", "x32"
	Audit uint32
	X32   bool // numbers carry X32SyscallBit; shares audit with x86_64
	// bits is the argument width libseccomp compares: 64 on x86_64 and
	// aarch64, 32 on x86, x32 and arm (libseccomp src/arch-*.c .size), where
	// only the low word of each argument is checked.
	Bits  int
	Table map[string]int
}

// The architectures libseccomp filters: the three x86 ABIs this project
// measures, and aarch64 and arm, which OCI profiles may list.
var (
	X86_64  = &Arch{OCI: "SCMP_ARCH_X86_64", Name: "x86_64", Audit: filters.AuditArchX86_64, Bits: 64, Table: filters.ArchX86_64.Names}
	X86     = &Arch{OCI: "SCMP_ARCH_X86", Name: "x86", Audit: filters.AuditArchI386, Bits: 32, Table: filters.ArchI386.Names}
	X32     = &Arch{OCI: "SCMP_ARCH_X32", Name: "x32", Audit: filters.AuditArchX86_64, X32: true, Bits: 32, Table: filters.ArchX32.Names}
	AARCH64 = &Arch{OCI: "SCMP_ARCH_AARCH64", Name: "aarch64", Audit: auditArchAARCH64, Bits: 64, Table: filters.ArchAArch64.Names}
	ARM     = &Arch{OCI: "SCMP_ARCH_ARM", Name: "arm", Audit: auditArchARM, Bits: 32, Table: filters.ArchARM.Names}
	RISCV64 = &Arch{OCI: "SCMP_ARCH_RISCV64", Name: "riscv64", Audit: filters.AuditArchRISCV64, Bits: 64, Table: filters.ArchRISCV64.Names}
)

// Arches lists the architectures whose syscall tables we have (the x86
// ones and aarch64 and arm from the filters package's tables), all
// little-endian.
var Arches = []*Arch{X86_64, X86, X32, AARCH64, ARM, RISCV64}

// ArchByOCI returns the architecture an OCI profile names (e.g.
// "SCMP_ARCH_X86_64"), or nil.
func ArchByOCI(name string) *Arch {
	for _, a := range Arches {
		if a.OCI == name {
			return a
		}
	}
	return nil
}

// Nr returns the value seccomp_data.nr has for the named syscall on a, with
// the x32 bit set for x32, and false if a has no such syscall.
func (a *Arch) Nr(name string) (uint32, bool) {
	n, ok := a.Table[name]
	if !ok {
		return 0, false
	}
	if a.X32 {
		return uint32(n) | filters.X32SyscallBit, true
	}
	return uint32(n), true
}

// Op is a libseccomp comparison operator (enum scmp_compare).
type Op int

const (
	NE       Op = iota + 1 // SCMP_CMP_NE
	LT                     // SCMP_CMP_LT
	LE                     // SCMP_CMP_LE
	EQ                     // SCMP_CMP_EQ
	GE                     // SCMP_CMP_GE
	GT                     // SCMP_CMP_GT
	MaskedEQ               // SCMP_CMP_MASKED_EQ
)

var opNames = map[Op]string{
	NE: "SCMP_CMP_NE", LT: "SCMP_CMP_LT", LE: "SCMP_CMP_LE", EQ: "SCMP_CMP_EQ",
	GE: "SCMP_CMP_GE", GT: "SCMP_CMP_GT", MaskedEQ: "SCMP_CMP_MASKED_EQ",
}

func (o Op) String() string { return opNames[o] }

// Cond is one argument comparison: args[Arg] Op Datum, or for
// MASKED_EQ (args[Arg] & Mask) == Datum. Comparisons are unsigned.
type Cond struct {
	Arg   int
	Op    Op
	Datum uint64
	Mask  uint64
	// Low32 compares only the low 32 bits of the argument (and of Datum
	// and Mask), as Kafel does for an argument its syscall table
	// declares 4 bytes wide (google/kafel src/codegen.c: is_64bit). No
	// libseccomp rule has it; only the native compiler honours it.
	Low32 bool
}

// holds evaluates c on a 64-bit argument the way the compiled BPF does on
// an architecture with the given argument width.
func (c Cond) holds(v uint64, bits int) bool {
	d, m := c.Datum, c.Mask
	if bits == 32 || c.Low32 {
		v, d, m = v&0xffffffff, d&0xffffffff, m&0xffffffff
	}
	switch c.Op {
	case NE:
		return v != d
	case LT:
		return v < d
	case LE:
		return v <= d
	case EQ:
		return v == d
	case GE:
		return v >= d
	case GT:
		return v > d
	case MaskedEQ:
		// libseccomp masks the datum too: (arg & mask) == (datum &
		// mask). A datum with bits outside the mask still matches
		// (src/db.c: _db_rule_gen_64/32 store datum & mask).
		return v&m == d&m
	}
	return false
}

// Rule is one seccomp_rule_add call: when every condition holds for the
// named syscall, the filter returns Action (a full SECCOMP_RET_* value).
type Rule struct {
	Syscall string
	Action  uint32
	Conds   []Cond
}

// Filter is one libseccomp filter context: what seccomp_init, the
// arch calls and the rule calls built, before seccomp_load.
type Filter struct {
	DefAction uint32  // SCMP_FLTATR_ACT_DEFAULT
	BadArch   uint32  // SCMP_FLTATR_ACT_BADARCH
	Arches    []*Arch // in the order the filter checks them
	Rules     []Rule
	// ENOSYSAbove models runc's -ENOSYS stub (runc
	// libcontainer/seccomp/patchbpf: generateEnosysStub): for each
	// architecture it holds, a syscall whose seccomp_data.nr (x32 bit
	// included) is above the value gets ERRNO(ENOSYS) before any rule is
	// looked at. nil (or an architecture missing) means no stub. It is
	// outside libseccomp's database: runc prepends it to libseccomp's
	// program (see runcENOSYSBounds).
	ENOSYSAbove map[*Arch]uint32
	// Tree lays each architecture's syscall tests out as a binary search
	// tree by syscall number (jgt nodes, leaves of up to treeLeaf jeq
	// tests), as libseccomp does with SCMP_FLTATR_CTL_OPTIMIZE = 2
	// (src/gen_bpf.c), which runc asks for above 32 rules. false keeps a
	// linear chain of jeq tests in ascending order, libseccomp's default
	// shape.
	Tree bool
	// Ordered makes each syscall's rules a first-match-wins list, as
	// Kafel's are (google/kafel src/codegen.c: a syscall's expressions
	// are tried in policy order): rules whose action is DefAction are
	// kept (they still stop the rules after them), and an unconditional
	// rule after conditional ones ends the list instead of absorbing
	// them. Only the native compiler (Compile) honours it; false keeps
	// libseccomp's database semantics (archTable).
	Ordered bool
	// NoX32Split leaves out the x86_64 part's test of the x32 syscall
	// bit, as Kafel's filter has none (google/kafel src/codegen.c: the
	// arch check, then the syscall ranges): a number with the bit set
	// goes through the x86_64 rules, which match none, to DefAction. It
	// applies to a filter without an X32 architecture only.
	NoX32Split bool
}

// treeLeaf is how many syscalls a leaf of the binary tree tests one after
// the other, as libseccomp 2.5's binary tree does (4 per leaf in its
// output for Docker's default profile).
const treeLeaf = 4

// treePool is the largest subtree of the binary tree followed by its own
// pool of returns and rule bodies: small enough that most jumps to the pool
// fit a conditional jump's 8-bit offset, large enough that few returns are
// repeated (each costs 2 instructions of the kernel's path budget once
// converted to eBPF).
const treePool = 128

// RetENOSYS is SCMP_ACT_ERRNO(ENOSYS): ERRNO with data 38
// (include/uapi/asm-generic/errno.h: ENOSYS).
const RetENOSYS = uint32(filters.ActionErrno) | 38

// archSyscall is what one architecture's part of the filter does for one
// syscall number.
type archSyscall struct {
	nr     uint32
	uncond bool
	action uint32 // when uncond
	rules  []Rule // conditional rules, first match wins
}

// archTable resolves the filter's rules for one architecture, following
// libseccomp's database semantics (src/db.c):
//   - a syscall the architecture lacks is skipped for it (libseccomp
//     translates rules per architecture and drops those that do not exist);
//   - a rule whose action equals the default action is dropped (libseccomp
//     refuses it with EACCES, and runc and systemd skip it first);
//   - an unconditional rule decides the syscall and absorbs conditional
//     rules for it, whichever came first;
//   - conditional rules are tried in the order added and the first whose
//     conditions all hold decides. Overlapping rules with different actions
//     are where libseccomp's tree may pick differently.
//   - on x86, a rule for a socket or SysV IPC call (socket, bind, ...,
//     shmat, semop, ...) also applies to the multiplexer (socketcall or
//     ipc) with argument 0 equal to the call's number, its own conditions
//     kept except one on argument 0 (src/arch-x86.c: x86_rule_add), next
//     to the direct syscall where the table has one (see X86Muxed).
func (f *Filter) archTable(a *Arch) []*archSyscall {
	by := map[uint32]*archSyscall{}
	rules := f.Rules
	if a == X86 {
		rules = X86Demux(rules)
	}
	closed := map[uint32]bool{}
	for _, r := range rules {
		if r.Action == f.DefAction && !f.Ordered {
			continue
		}
		nr, ok := a.Nr(r.Syscall)
		if !ok {
			continue
		}
		s := by[nr]
		if s == nil {
			s = &archSyscall{nr: nr}
			by[nr] = s
		}
		if s.uncond || closed[nr] {
			continue
		}
		if f.Ordered && len(r.Conds) == 0 && len(s.rules) > 0 {
			// First match wins: the rules before it keep their
			// place, and nothing after it is reached.
			s.rules = append(s.rules, r)
			closed[nr] = true
			continue
		}
		if len(r.Conds) == 0 {
			s.uncond, s.action, s.rules = true, r.Action, nil
			continue
		}
		s.rules = append(s.rules, r)
	}
	out := make([]*archSyscall, 0, len(by))
	for _, s := range by {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].nr < out[j].nr })
	return out
}

// X86Mux is one socket or SysV IPC call as the x86 multiplexers see it:
// socketcall(call, args) or ipc(call, ...).
type X86Mux struct {
	mux  string // "socketcall" or "ipc"
	call uint64 // SYS_* (include/uapi/linux/net.h) or IPC op (ipc/syscall.c)
}

// X86Muxed lists the calls libseccomp multiplexes on x86: it resolves their
// names to pseudo-syscalls (-100-call for sockets, -200-call for IPC) and
// adds each rule twice, for the multiplexer and for the direct syscall
// where one exists (src/arch-x86.c: x86_rule_add, _x86_sock_demux,
// _x86_ipc_demux).
var X86Muxed = map[string]X86Mux{
	"socket": {"socketcall", 1}, "bind": {"socketcall", 2}, "connect": {"socketcall", 3},
	"listen": {"socketcall", 4}, "accept": {"socketcall", 5}, "getsockname": {"socketcall", 6},
	"getpeername": {"socketcall", 7}, "socketpair": {"socketcall", 8}, "send": {"socketcall", 9},
	"recv": {"socketcall", 10}, "sendto": {"socketcall", 11}, "recvfrom": {"socketcall", 12},
	"shutdown": {"socketcall", 13}, "setsockopt": {"socketcall", 14}, "getsockopt": {"socketcall", 15},
	"sendmsg": {"socketcall", 16}, "recvmsg": {"socketcall", 17}, "accept4": {"socketcall", 18},
	"recvmmsg": {"socketcall", 19}, "sendmmsg": {"socketcall", 20},
	"semop": {"ipc", 1}, "semget": {"ipc", 2}, "semctl": {"ipc", 3}, "semtimedop": {"ipc", 4},
	"msgsnd": {"ipc", 11}, "msgrcv": {"ipc", 12}, "msgget": {"ipc", 13}, "msgctl": {"ipc", 14},
	"shmat": {"ipc", 21}, "shmdt": {"ipc", 22}, "shmget": {"ipc", 23}, "shmctl": {"ipc", 24},
}

// X86Demux returns rules as libseccomp adds them to an x86 filter: each
// rule for a call in X86Muxed is followed by its multiplexer rule, with
// argument 0 tested for the call number.
func X86Demux(rules []Rule) []Rule {
	out := make([]Rule, 0, len(rules))
	for _, r := range rules {
		out = append(out, r)
		m, ok := X86Muxed[r.Syscall]
		if !ok {
			continue
		}
		conds := []Cond{{Arg: 0, Op: EQ, Datum: m.call}}
		for _, c := range r.Conds {
			if c.Arg != 0 {
				conds = append(conds, c)
			}
		}
		out = append(out, Rule{Syscall: m.mux, Action: r.Action, Conds: conds})
	}
	return out
}

// Verdict returns what f returns for one syscall, evaluated directly on the
// database (no BPF): the reference the compiled program is tested against.
func (f *Filter) Verdict(auditArch, nr uint32, args [6]uint64) uint32 {
	for _, a := range f.Arches {
		if a.Audit != auditArch {
			continue
		}
		neg1 := false
		noSplit := f.NoX32Split && !slices.ContainsFunc(f.Arches, func(b *Arch) bool { return b.X32 })
		if a.Audit == filters.AuditArchX86_64 && (nr >= filters.X32SyscallBit) != a.X32 && !noSplit {
			// nr -1 goes to the x86_64 rules of a filter without x32,
			// past runc's stub (which skips numbers with the x32 bit).
			if nr != 0xffffffff || a.X32 || slices.Contains(f.Arches, X32) {
				continue
			}
			neg1 = true
		}
		if max, ok := f.ENOSYSAbove[a]; ok && nr > max && !neg1 {
			return RetENOSYS
		}
		for _, s := range f.archTable(a) {
			if s.nr != nr {
				continue
			}
			if s.uncond {
				return s.action
			}
			for _, r := range s.rules {
				ok := true
				for _, c := range r.Conds {
					if !c.holds(args[c.Arg], a.Bits) {
						ok = false
						break
					}
				}
				if ok {
					return r.Action
				}
			}
		}
		return f.DefAction
	}
	return f.BadArch
}

// dispatchChunk is how many `jeq nr` tests share one pool of return
// instructions and rule bodies placed after them, keeping most jumps within
// the 255-instruction reach of a conditional jump.
const dispatchChunk = 64

// Compile lays the filter out as classic BPF:
//
//	ld [arch]; jeq AUDIT_ARCH_a → La; ...; ret BadArch
//	La: ld [nr]; (x86_64/X32: jge 0x40000000 → x32 part or BadArch)
//	    jeq nr1 → body1/ret; jeq nr2 → ...; ret DefAction; pool
//
// Syscalls are tested in ascending order, in chunks of dispatchChunk
// followed by their shared `ret` instructions and argument-rule bodies. An
// x86_64 task's syscall with the x32 bit goes to the x32 rules if the filter
// has x32, else to the bad-arch action, as libseccomp's gen_bpf.c does
// (except nr -1, which then goes to the x86_64 rules). With ENOSYSAbove,
// each architecture's dispatch starts with runc's ENOSYS test.
// 64-bit argument comparisons test the high word, then the low word, as
// libseccomp does; on 32-bit ABIs only the low word is tested.
func (f *Filter) Compile() ([]bpf.RawInstruction, error) {
	if len(f.Arches) == 0 {
		return nil, fmt.Errorf("compile filter: no architectures")
	}
	a := filters.NewBuilder()
	groups := groupArches(a, f.Arches)
	badArch := a.NewLabel("badarch")
	a.LoadAbs(filters.OffsetArch)
	for _, g := range groups {
		a.JumpIf(filters.Jeq, g.Audit, g.label, "")
	}
	a.Label(badArch)
	a.Ret(f.BadArch)
	for _, g := range groups {
		f.emitArchGroup(a, g)
	}
	return a.Assemble()
}

// archGroup is the architectures of a filter that share one AUDIT_ARCH
// value (x86_64 and X32), with the labels of their parts.
type archGroup struct {
	Audit      uint32
	Main, X32  *Arch
	label      string
	mainL, x3L string
	rulesL     string // the x86_64 rules past the ENOSYS check
}

// groupArches groups arches by AUDIT_ARCH value in order of first
// appearance, keeping the first main and the first X32 architecture of
// each, and labels each group in a.
func groupArches(a *filters.Builder, arches []*Arch) []*archGroup {
	var groups []*archGroup
	for _, ar := range arches {
		var g *archGroup
		for _, h := range groups {
			if h.Audit == ar.Audit {
				g = h
			}
		}
		if g == nil {
			g = &archGroup{Audit: ar.Audit, label: a.NewLabel("arch_" + ar.Name)}
			groups = append(groups, g)
		}
		if ar.X32 {
			if g.X32 == nil {
				g.X32 = ar
			}
		} else if g.Main == nil {
			g.Main = ar
		}
	}
	return groups
}

// emitArchGroup emits group g's part of the filter: ld [nr], for
// AUDIT_ARCH_X86_64 the split on the x32 bit, each architecture's dispatch
// and, if needed, the part's own bad-arch return.
func (f *Filter) emitArchGroup(a *filters.Builder, g *archGroup) {
	a.Label(g.label)
	a.LoadAbs(filters.OffsetNr)
	localBad := ""
	if g.Audit == filters.AuditArchX86_64 && !(f.NoX32Split && g.X32 == nil) {
		localBad = emitX32Split(a, g)
	}
	if g.Main != nil {
		if g.mainL != "" {
			a.Label(g.mainL)
		}
		f.emitDispatch(a, g.Main, g.rulesL)
	}
	if g.X32 != nil {
		if g.x3L != "" {
			a.Label(g.x3L)
		}
		f.emitDispatch(a, g.X32, "")
	}
	if localBad != "" {
		a.Label(localBad)
		a.Ret(f.BadArch)
	}
}

// emitX32Split emits the test of the x32 syscall bit of the x86_64 group
// g, sending nr to the x32 or the x86_64 part, and sets g's labels for
// them. It returns the label of the group's own bad-arch return when one
// of the two parts is missing, "" otherwise.
func emitX32Split(a *filters.Builder, g *archGroup) (localBad string) {
	if g.X32 == nil || g.Main == nil {
		// Jumps only go forward: this part gets its own
		// bad-arch return after its dispatch.
		localBad = a.NewLabel("badarch")
	}
	x32Target, mainTarget := localBad, localBad
	if g.X32 != nil {
		g.x3L = a.NewLabel("x32")
		x32Target = g.x3L
	}
	if g.Main != nil {
		g.mainL = a.NewLabel("x86_64")
		mainTarget = g.mainL
	}
	if g.X32 == nil && g.Main != nil {
		// nr -1 (a tracer skipping the syscall) is no x32
		// call: libseccomp sends it to the x86_64 rules
		// (gen_bpf.c: _gen_bpf_arch), past runc's stub.
		neg1 := a.NewLabel("nr_minus_1")
		g.rulesL = a.NewLabel("x86_64_rules")
		a.JumpIf(filters.Jge, filters.X32SyscallBit, neg1, mainTarget)
		a.Label(neg1)
		a.JumpIf(filters.Jeq, 0xffffffff, g.rulesL, localBad)
	} else {
		a.JumpIf(filters.Jge, filters.X32SyscallBit, x32Target, mainTarget)
	}
	return localBad
}

// emitDispatch emits one architecture's syscall tests, its default return
// and the pools of returns and rule bodies. A is expected to hold nr.
//
// If rules is not empty it labels the start of the rules, past the ENOSYS
// check, for callers that must skip that check.
func (f *Filter) emitDispatch(a *filters.Builder, ar *Arch, rules string) {
	if max, ok := f.ENOSYSAbove[ar]; ok {
		// runc's stub, folded into the dispatch: one jgt on every path
		// (runc's own stub runs 4-6 instructions before libseccomp's
		// program even starts).
		cont := a.NewLabel("known")
		a.JumpIf(filters.Jgt, max, "", cont)
		a.Ret(RetENOSYS)
		a.Label(cont)
	}
	if rules != "" {
		a.Label(rules)
	}
	table := f.archTable(ar)
	if len(table) == 0 {
		a.Ret(f.DefAction)
		return
	}
	if f.Tree && len(table) > treeLeaf {
		f.emitTree(a, ar, table)
		return
	}
	for start := 0; start < len(table); start += dispatchChunk {
		end := min(start+dispatchChunk, len(table))
		chunk := table[start:end]
		last := end == len(table)
		next := ""
		if !last {
			next = a.NewLabel("chunk")
		}
		p := newRetPool(a)
		for i, s := range chunk {
			jf := ""
			if i == len(chunk)-1 && !last {
				jf = next
			}
			a.JumpIf(filters.Jeq, s.nr, p.target(s), jf)
		}
		if last {
			p.placeRet(f.DefAction)
		}
		p.emit(ar.Bits, f.DefAction)
		if !last {
			a.Label(next)
			// The next chunk compares nr again: a rule body in the pool
			// may have left an argument in A, but bodies always return,
			// so only the jf path arrives here and A still holds nr.
		}
	}
}

// retPool collects what a part of the dispatch jumps to: one `ret` per
// action of the unconditional syscalls, and one rule body per distinct set
// of conditional rules (syscalls with the same rules share it, as
// identical blocks do in libseccomp's gen_bpf.c, _hsh_add). emit places
// them after that part, so the jumps to them stay short.
type retPool struct {
	a        *filters.Builder
	rets     map[uint32]string
	retOrder []uint32
	placed   map[uint32]bool
	bodyOf   map[string]string
	bodies   []string
	rules    map[string][]Rule
}

func newRetPool(a *filters.Builder) *retPool {
	return &retPool{a: a, rets: map[uint32]string{}, placed: map[uint32]bool{}, bodyOf: map[string]string{}, rules: map[string][]Rule{}}
}

// ret returns the label of the pool's `ret act`.
func (p *retPool) ret(act uint32) string {
	l, ok := p.rets[act]
	if !ok {
		l = p.a.NewLabel("ret")
		p.rets[act] = l
		p.retOrder = append(p.retOrder, act)
	}
	return l
}

// placeRet places `ret act` here, with its label, instead of in emit: the
// fall-through default return of a dispatch part or a rule body.
func (p *retPool) placeRet(act uint32) {
	p.a.Label(p.ret(act))
	p.a.Ret(act)
	p.placed[act] = true
}

// target returns the label the dispatch jumps to for s.
func (p *retPool) target(s *archSyscall) string {
	if s.uncond {
		return p.ret(s.action)
	}
	key := rulesKey(s.rules)
	l, ok := p.bodyOf[key]
	if !ok {
		l = p.a.NewLabel("body")
		p.bodyOf[key] = l
		p.bodies = append(p.bodies, l)
		p.rules[l] = s.rules
	}
	return l
}

// emit places the returns not placed yet, then the rule bodies
// (emitRules, with argument width bits and default action def).
func (p *retPool) emit(bits int, def uint32) {
	for _, act := range p.retOrder {
		if !p.placed[act] {
			p.a.Label(p.rets[act])
			p.a.Ret(act)
		}
	}
	for _, l := range p.bodies {
		p.a.Label(l)
		emitRules(p.a, p.rules[l], bits, def)
	}
}

// emitTree emits one architecture's syscall tests as a binary search tree
// (Tree): each node sends numbers above the last one of its left half to
// the right half with one jgt; a leaf tests its syscalls with jeq, highest
// first, and falls to the default action. Each subtree of at most
// treePool syscalls is followed by its own default return and retPool,
// which keeps the leaves' jumps short: a pool after the whole tree would
// cost a `ja` trampoline for most of them. A is expected to hold nr, and
// still does at every jeq.
func (f *Filter) emitTree(a *filters.Builder, ar *Arch, table []*archSyscall) {
	var node func(items []*archSyscall, p *retPool)
	node = func(items []*archSyscall, p *retPool) {
		if p == nil && len(items) <= treePool {
			p = newRetPool(a)
			node(items, p)
			p.placeRet(f.DefAction)
			p.emit(ar.Bits, f.DefAction)
			return
		}
		if len(items) <= treeLeaf {
			for i := len(items) - 1; i >= 0; i-- {
				jf := ""
				if i == 0 {
					jf = p.ret(f.DefAction)
				}
				a.JumpIf(filters.Jeq, items[i].nr, p.target(items[i]), jf)
			}
			return
		}
		// Split on a leaf boundary, so leaves are full and the tree
		// has one jgt per leaf, less one.
		leaves := (len(items) + treeLeaf - 1) / treeLeaf
		mid := leaves / 2 * treeLeaf
		right := a.NewLabel("gt")
		a.JumpIf(filters.Jgt, items[mid-1].nr, right, "")
		node(items[:mid], p)
		a.Label(right)
		node(items[mid:], p)
	}
	node(table, nil)
}

// rulesKey identifies what a syscall's conditional rules do, whatever the
// syscall's Name: two syscalls with the same key can share a body.
func rulesKey(rules []Rule) string {
	var b strings.Builder
	for _, r := range rules {
		fmt.Fprintf(&b, "%#x:", r.Action)
		for _, c := range r.Conds {
			fmt.Fprintf(&b, "%d,%d,%#x,%#x,%v;", c.Arg, c.Op, c.Datum, c.Mask, c.Low32)
		}
		b.WriteByte('|')
	}
	return b.String()
}

// emitRules emits the body of one syscall's conditional rules: the first
// rule whose conditions all hold returns its action, and if none does the
// default action is returned. It shares work between rules the way
// libseccomp's decision tree does (src/gen_bpf.c), without reordering them:
//   - on 64-bit ABIs, consecutive rules whose first condition tests the same
//     high word (same argument, mask and datum high word; EQ and MASKED_EQ)
//     test it once, and a failed high word skips the whole run;
//   - a load is left out when A is known to hold the word already, e.g.
//     after a one-condition rule failed on the same argument;
//   - every action gets one `ret`, which passing rules jump to.
func emitRules(a *filters.Builder, rules []Rule, bits int, def uint32) {
	rp := newRetPool(a)
	var known accWord
	for i := 0; i < len(rules); {
		r := rules[i]
		if len(r.Conds) == 0 {
			// Only archTable's unconditional syscalls have rules without
			// conditions, and they never get here; if one did, it would
			// decide the syscall, as in verdict.
			a.Jump(rp.ret(r.Action))
			known = accWord{}
			i++
			continue
		}
		c := r.Conds[0]
		if bits == 64 && !c.Low32 && (c.Op == EQ || c.Op == MaskedEQ) {
			key := hiTest(c)
			j := i + 1
			for j < len(rules) && sharesHiTest(rules[j], key) {
				j++
			}
			groupFail := a.NewLabel("fail")
			if key.mask != 0 {
				// A zero mask makes the test (hi & 0) == (datum & 0),
				// which always holds: libseccomp leaves it out too.
				loadWord(a, &known, accWord{off: key.off, mask: key.mask, ok: true})
				a.JumpIf(filters.Jeq, key.datum, "", groupFail)
			}
			for k := i; k < j; k++ {
				fail := groupFail
				if k < j-1 {
					fail = a.NewLabel("fail")
				}
				emitRule(a, &known, rules[k], bits, rp.ret(rules[k].Action), fail)
				if k < j-1 {
					a.Label(fail)
				}
			}
			a.Label(groupFail)
			known = accWord{}
			i = j
			continue
		}
		fail := a.NewLabel("fail")
		emitRule(a, &known, r, bits, rp.ret(r.Action), fail)
		a.Label(fail)
		i++
	}
	rp.placeRet(def)
	rp.emit(bits, def)
}

// accWord is what the accumulator A is known to hold at a point of a rule
// body: the seccomp_data word at offset off, ANDed with mask (0xffffffff
// for a plain load). ok is false when it is not known.
type accWord struct {
	off, mask uint32
	ok        bool
}

// hiKey is a high-word test shared by a run of rules: (word at off & mask)
// == datum, with off the argument's high word.
type hiKey struct {
	off, mask, datum uint32
}

// hiTest returns the high-word test of an EQ or MASKED_EQ condition on a
// 64-bit ABI. Argument words are little-endian: the high 32 bits at
// 20+8*i.
func hiTest(c Cond) hiKey {
	k := hiKey{off: uint32(filters.OffsetArgs+8*c.Arg) + 4, mask: 0xffffffff, datum: uint32(c.Datum >> 32)}
	if c.Op == MaskedEQ {
		k.mask = uint32(c.Mask >> 32)
		k.datum &= k.mask
	}
	return k
}

// sharesHiTest reports whether r's first condition is an EQ or MASKED_EQ
// whose high-word test is k, so that r fails whenever k fails.
func sharesHiTest(r Rule, k hiKey) bool {
	if len(r.Conds) == 0 {
		return false
	}
	c := r.Conds[0]
	return !c.Low32 && (c.Op == EQ || c.Op == MaskedEQ) && hiTest(c) == k
}

// loadWord makes A hold want, emitting `ld` (and `and` for a mask) unless
// *known says A holds it already, and records the new state in *known.
func loadWord(a *filters.Builder, known *accWord, want accWord) {
	if *known == want {
		return
	}
	a.LoadAbs(want.off)
	if want.mask != 0xffffffff {
		a.AndK(want.mask)
	}
	*known = want
}

// emitRule emits one rule's conditions: all holding jumps to pass (the
// rule's shared return), any failing jumps to fail. On a 64-bit ABI, an EQ
// or MASKED_EQ first condition is expected to have had its high word
// tested by the caller (emitRules), so only its low word is tested here;
// a Low32 condition tests only its low word anyway.
// *known is updated to what A holds at fail, if that is one word on every
// path there.
func emitRule(a *filters.Builder, known *accWord, r Rule, bits int, pass, fail string) {
	for n, c := range r.Conds {
		p := pass
		if n < len(r.Conds)-1 {
			// A real label: emitCond64 jumps to pass from the middle of
			// its instructions, where "" would mean the next one.
			p = a.NewLabel("pass")
		}
		lo := uint32(filters.OffsetArgs + 8*c.Arg)
		lowOnly := bits == 32 || c.Low32 || (n == 0 && (c.Op == EQ || c.Op == MaskedEQ))
		if lowOnly {
			w := accWord{off: lo, mask: 0xffffffff, ok: true}
			d := uint32(c.Datum)
			if c.Op == MaskedEQ {
				w.mask = uint32(c.Mask)
				d &= w.mask
				if w.mask == 0 {
					// (lo & 0) == 0 always holds: no test, as
					// libseccomp does.
					if p == pass {
						a.Jump(pass)
					}
					continue
				}
			}
			loadWord(a, known, w)
			emitCmpLow(a, c.Op, d, p, fail)
		} else {
			emitCond64(a, c, p, fail)
			*known = accWord{}
		}
		if p != pass {
			a.Label(p)
		}
	}
	if len(r.Conds) != 1 {
		// Several conditions: fail is reached with different words in A.
		*known = accWord{}
	}
}

// emitCmpLow emits the comparison of A (a low word, already masked for
// MASKED_EQ) with d: a jump to pass when it holds, to fail otherwise.
func emitCmpLow(a *filters.Builder, op Op, d uint32, pass, fail string) {
	switch op {
	case EQ, MaskedEQ:
		a.JumpIf(filters.Jeq, d, pass, fail)
	case NE:
		a.JumpIf(filters.Jeq, d, fail, pass)
	case GT:
		a.JumpIf(filters.Jgt, d, pass, fail)
	case GE:
		a.JumpIf(filters.Jge, d, pass, fail)
	case LT:
		a.JumpIf(filters.Jge, d, fail, pass)
	case LE:
		a.JumpIf(filters.Jgt, d, fail, pass)
	}
}

// emitCond64 emits a full 64-bit comparison of args[c.Arg] that jumps to
// pass when it holds and to fail otherwise: the high word first, then the
// low word, as libseccomp does. Argument words are little-endian: the low
// 32 bits at offset 16+8*i, the high 32 bits at 20+8*i.
func emitCond64(a *filters.Builder, c Cond, pass, fail string) {
	if c.Op == MaskedEQ {
		emitMaskedEQ64(a, c, pass, fail)
		return
	}
	lo := uint32(filters.OffsetArgs + 8*c.Arg)
	hi := lo + 4
	dl, dh := uint32(c.Datum), uint32(c.Datum>>32)
	a.LoadAbs(hi)
	switch c.Op {
	case EQ:
		a.JumpIf(filters.Jeq, dh, "", fail)
		a.LoadAbs(lo)
		a.JumpIf(filters.Jeq, dl, pass, fail)
	case NE:
		a.JumpIf(filters.Jeq, dh, "", pass)
		a.LoadAbs(lo)
		a.JumpIf(filters.Jeq, dl, fail, pass)
	case GT, GE:
		a.JumpIf(filters.Jgt, dh, pass, "")
		a.JumpIf(filters.Jeq, dh, "", fail)
		a.LoadAbs(lo)
		op := uint16(filters.Jgt)
		if c.Op == GE {
			op = filters.Jge
		}
		a.JumpIf(op, dl, pass, fail)
	case LT, LE:
		a.JumpIf(filters.Jgt, dh, fail, "")
		a.JumpIf(filters.Jeq, dh, "", pass)
		a.LoadAbs(lo)
		op := uint16(filters.Jge) // lo < dl  <=>  !(lo >= dl)
		if c.Op == LE {
			op = filters.Jgt // lo <= dl  <=>  !(lo > dl)
		}
		a.JumpIf(op, dl, fail, pass)
	}
}

// emitMaskedEQ64 emits a 64-bit MASKED_EQ test for emitCond64:
// (arg & mask) == (datum & mask), high word first, leaving out a word whose
// mask is 0: (word & 0) == (datum & 0) always holds, as libseccomp knows
// too.
func emitMaskedEQ64(a *filters.Builder, c Cond, pass, fail string) {
	mh, ml := uint32(c.Mask>>32), uint32(c.Mask)
	if mh != 0 && ml != 0 {
		lo := uint32(filters.OffsetArgs + 8*c.Arg)
		a.LoadAbs(lo + 4)
		a.AndK(mh)
		a.JumpIf(filters.Jeq, uint32(c.Datum>>32)&mh, "", fail)
		a.LoadAbs(lo)
		a.AndK(ml)
		a.JumpIf(filters.Jeq, uint32(c.Datum)&ml, pass, fail)
		return
	}
	if mh == 0 && ml == 0 {
		a.Jump(pass)
		return
	}
	off, m, d := uint32(filters.OffsetArgs+8*c.Arg), ml, uint32(c.Datum)
	if mh != 0 {
		off, m, d = off+4, mh, uint32(c.Datum>>32)
	}
	a.LoadAbs(off)
	if m != 0xffffffff {
		a.AndK(m)
	}
	a.JumpIf(filters.Jeq, d&m, pass, fail)
}

// ActionName formats a full return value the way libseccomp's
// constants read, e.g. "SCMP_ACT_ERRNO(1)".
func ActionName(ret uint32) string {
	act, data := filters.SplitRet(ret)
	switch act {
	case filters.ActionErrno:
		return fmt.Sprintf("SCMP_ACT_ERRNO(%d)", data)
	case filters.ActionTrace:
		return fmt.Sprintf("SCMP_ACT_TRACE(%d)", data)
	case filters.ActionUserNotif:
		return "SCMP_ACT_NOTIFY"
	}
	return "SCMP_ACT_" + strings.ToUpper(act.String())
}
