package scmp

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
)

// scmpProbeNames are the syscalls random filters use: common to the three x86
// ABIs, plus mmap2 (i386 only) and a name no table has.
var scmpProbeNames = []string{"read", "write", "openat", "clone", "futex", "ioctl", "mmap", "mmap2", "socket", "personality", "no_such_call"}

// scmpEdgeValues are argument values around the datums random rules use,
// and the 32-bit boundaries where hi/lo splitting could go wrong.
var scmpEdgeValues = []uint64{0, 1, 2, 3, 0x7f, 0x80, 0xff, 0xffffffff, 0x100000000, 0x100000001, 0x1ffffffff, 0xffffffff00000000, ^uint64(0)}

// randomScmpFilter returns a random filter. clustered rules mostly test
// EQ and MASKED_EQ on arguments 0 and 1 with datums sharing high words, so
// that runs of rules share a high-word test and loads (emitRules); the
// others spread over every operator and argument.
func randomScmpFilter(r *rand.Rand, clustered bool) *Filter {
	actions := []uint32{uint32(filters.ActionAllow), errnoRet(1), errnoRet(38), uint32(filters.ActionKillProcess), uint32(filters.ActionTrap), uint32(filters.ActionLog), uint32(filters.ActionKillThread)}
	f := &Filter{
		DefAction: actions[r.IntN(len(actions))],
		BadArch:   actions[r.IntN(len(actions))],
		Tree:      r.IntN(2) == 0,
	}
	for _, a := range []*Arch{X86_64, X86, X32} {
		if r.IntN(3) > 0 {
			f.Arches = append(f.Arches, a)
		}
	}
	if len(f.Arches) == 0 {
		f.Arches = []*Arch{X86_64}
	}
	ops := []Op{NE, LT, LE, EQ, GE, GT, MaskedEQ}
	names, nargs := scmpProbeNames, 6
	if clustered {
		ops = []Op{EQ, EQ, EQ, MaskedEQ, MaskedEQ, GT, NE}
		names, nargs = scmpProbeNames[:3], 2
	}
	for i, n := 0, r.IntN(25); i < n; i++ {
		rule := Rule{Syscall: names[r.IntN(len(names))], Action: actions[r.IntN(len(actions))]}
		for j, m := 0, r.IntN(4); j < m; j++ {
			c := Cond{Arg: r.IntN(nargs), Op: ops[r.IntN(len(ops))], Datum: scmpEdgeValues[r.IntN(len(scmpEdgeValues))]}
			if c.Op == MaskedEQ {
				c.Mask = scmpEdgeValues[r.IntN(len(scmpEdgeValues))]
			}
			rule.Conds = append(rule.Conds, c)
		}
		f.Rules = append(f.Rules, rule)
	}
	return f
}

// TestScmpCompileMatchesDatabase is the differential test of the compiler:
// for random rule sets, the BPF program run by the emulator must return what
// the rule database itself says, for every ABI (and a foreign one), every
// probe syscall, and argument values at the edges of the rules' datums.
func TestScmpCompileMatchesDatabase(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	inputs := 0
	for iter := 0; iter < 300; iter++ {
		f := randomScmpFilter(r, iter%2 == 1)
		insns, err := f.Compile()
		if err != nil {
			t.Fatalf("filter %d: compile: %v", iter, err)
		}
		if err := filters.Validate(insns); err != nil {
			t.Fatalf("filter %d: invalid program: %v", iter, err)
		}
		p := &filters.Program{Name: "random", Insns: insns}
		abis := []struct {
			arch *filters.Arch
			tab  *Arch
		}{{filters.ArchX86_64, X86_64}, {filters.ArchI386, X86}, {filters.ArchX32, X32}}
		for _, abi := range abis {
			for _, name := range scmpProbeNames {
				n, ok := abi.arch.Lookup(name)
				if !ok {
					n = 999
				}
				for k := 0; k < 8; k++ {
					var args [6]uint64
					for i := range args {
						args[i] = scmpEdgeValues[r.IntN(len(scmpEdgeValues))]
					}
					d := abi.arch.Data(n, args[:]...)
					want := f.Verdict(d.Arch, uint32(d.Nr), d.Args)
					got, err := filters.Emulate(p, d)
					if err != nil {
						t.Fatal(err)
					}
					inputs++
					if got.Ret != want {
						t.Fatalf("filter %d, %s %s%v: compiled returns %#x, database says %#x\nrules: %+v", iter, abi.arch.Name, name, args, got.Ret, want, f.Rules)
					}
				}
			}
		}
		// A foreign architecture gets the bad-arch action.
		got, _ := filters.Emulate(p, filters.SeccompData{Nr: 63, Arch: auditArchAARCH64})
		if got.Ret != f.BadArch {
			t.Fatalf("filter %d: aarch64 syscall returns %#x, want bad-arch %#x", iter, got.Ret, f.BadArch)
		}
	}
	if inputs < 50000 {
		t.Fatalf("only %d inputs checked", inputs)
	}
}

// TestScmpCondHolds pins the comparison semantics the compiler must match:
// unsigned 64-bit on 64-bit ABIs, the low word only on 32-bit ones, and
// MASKED_EQ as (arg & mask) == datum.
func TestScmpCondHolds(t *testing.T) {
	tests := []struct {
		name string
		c    Cond
		v    uint64
		bits int
		want bool
	}{
		{"gt across words", Cond{Op: GT, Datum: 0xffffffff}, 0x100000000, 64, true},
		{"gt low word only on 32-bit", Cond{Op: GT, Datum: 0xffffffff}, 0x100000000, 32, false},
		{"lt high word decides", Cond{Op: LT, Datum: 0x100000000}, 0xffffffff, 64, true},
		{"eq needs both words", Cond{Op: EQ, Datum: 1}, 0x100000001, 64, false},
		{"eq low word on 32-bit", Cond{Op: EQ, Datum: 1}, 0x100000001, 32, true},
		{"masked eq", Cond{Op: MaskedEQ, Mask: 0x10000000, Datum: 0}, 0x10000011, 64, false},
		{"masked eq clear", Cond{Op: MaskedEQ, Mask: 0x10000000, Datum: 0}, 0x11, 64, true},
		// libseccomp stores datum & mask: bits of the datum outside the
		// mask do not make the rule unmatchable.
		{"masked eq datum outside mask", Cond{Op: MaskedEQ, Mask: 0xff, Datum: 0x134}, 0x34, 64, true},
		{"masked eq datum outside mask, 64-bit", Cond{Op: MaskedEQ, Mask: 0xff00000000ff, Datum: 0x1200000034}, 0x1200000034, 64, true},
		{"masked eq zero low mask on 32-bit", Cond{Op: MaskedEQ, Mask: 0xffffffff00000000, Datum: 5}, 7, 32, true},
		{"ne", Cond{Op: NE, Datum: 8}, 8, 64, false},
		{"le equal", Cond{Op: LE, Datum: 8}, 8, 64, true},
		{"ge below", Cond{Op: GE, Datum: 8}, 7, 64, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.c.holds(tt.v, tt.bits); got != tt.want {
				t.Errorf("holds(%#x, %d) = %v, want %v", tt.v, tt.bits, got, tt.want)
			}
		})
	}
}

// TestScmpSharedLayout checks the work emitRules and emitDispatch share, on
// the shapes systemd's hardening filters have: a run of EQ rules on one
// argument (RestrictAddressFamilies) tests the high word once; MASKED_EQ
// rules with 32-bit masks (RestrictSUIDSGID) test no high word; syscalls
// with the same rules share one body. Verdicts are checked against the
// database on the edge values.
func TestScmpSharedLayout(t *testing.T) {
	deny := errnoRet(97)
	f := &Filter{DefAction: uint32(filters.ActionAllow), BadArch: uint32(filters.ActionAllow), Arches: []*Arch{X86_64}}
	for _, fam := range []uint64{0, 3, 4, 5, 6, 7, 8, 9, 11, 12} {
		f.Rules = append(f.Rules, Rule{Syscall: "socket", Action: deny, Conds: []Cond{{Arg: 0, Op: EQ, Datum: fam}}})
	}
	for _, name := range []string{"chmod", "fchmod", "mkdir"} {
		for _, bit := range []uint64{04000, 02000} {
			f.Rules = append(f.Rules, Rule{Syscall: name, Action: errnoRet(1), Conds: []Cond{{Arg: 1, Op: MaskedEQ, Mask: bit, Datum: bit}}})
		}
	}
	insns, err := f.Compile()
	if err != nil {
		t.Fatal(err)
	}
	p := &filters.Program{Name: "shared", Insns: insns}
	loads := map[uint32]int{}
	for _, ri := range insns {
		if ri.Op == 0x20 { // BPF_LD | BPF_W | BPF_ABS
			loads[ri.K]++
		}
	}
	a0hi, a1hi, a1lo := uint32(filters.OffsetArgs+4), uint32(filters.OffsetArgs+12), uint32(filters.OffsetArgs+8)
	if loads[a0hi] != 1 {
		t.Errorf("args[0] hi loaded %d times for 10 EQ rules, want 1", loads[a0hi])
	}
	if loads[a1hi] != 0 {
		t.Errorf("args[1] hi loaded %d times for 32-bit masks, want 0", loads[a1hi])
	}
	if loads[a1lo] != 2 {
		t.Errorf("args[1] lo loaded %d times, want 2 (one shared body, two masks)", loads[a1lo])
	}
	for _, name := range []string{"socket", "chmod", "fchmod", "mkdir", "read"} {
		nr, _ := filters.ArchX86_64.Lookup(name)
		for _, v := range append(scmpEdgeValues, 04000, 02000, 06000, 0x100000800, 10) {
			args := [6]uint64{v, v}
			d := filters.ArchX86_64.Data(nr, args[:]...)
			got, err := filters.Emulate(p, d)
			if err != nil {
				t.Fatal(err)
			}
			if want := f.Verdict(d.Arch, uint32(d.Nr), d.Args); got.Ret != want {
				t.Errorf("%s(%#x, %#x): compiled returns %#x, database says %#x", name, v, v, got.Ret, want)
			}
		}
	}
}

// TestScmpTree checks the binary-tree layout (Tree) on a large random
// filter: every syscall number of the three x86 ABIs (and nr -1) gets the
// database's verdict, and the longest path is far shorter than the linear
// layout's, as a tree of ~150 syscalls needs about log2(150/4)+4 tests.
func TestScmpTree(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	names := make([]string, 0, len(filters.ArchX86_64.Names))
	for n := range filters.ArchX86_64.Names {
		names = append(names, n)
	}
	slices.Sort(names)
	actions := []uint32{uint32(filters.ActionAllow), errnoRet(1), uint32(filters.ActionLog), uint32(filters.ActionTrap)}
	f := &Filter{DefAction: errnoRet(38), BadArch: uint32(filters.ActionKillThread), Arches: []*Arch{X86_64, X86, X32}}
	for _, i := range r.Perm(len(names))[:150] {
		rule := Rule{Syscall: names[i], Action: actions[r.IntN(len(actions))]}
		if r.IntN(5) == 0 {
			rule.Conds = []Cond{{Arg: r.IntN(3), Op: EQ, Datum: scmpEdgeValues[r.IntN(len(scmpEdgeValues))]}}
		}
		f.Rules = append(f.Rules, rule)
	}
	longest := map[bool]int{}
	for _, tree := range []bool{false, true} {
		f.Tree = tree
		insns, err := f.Compile()
		if err != nil {
			t.Fatal(err)
		}
		if err := filters.Validate(insns); err != nil {
			t.Fatal(err)
		}
		p := &filters.Program{Name: "tree", Insns: insns}
		for _, abi := range []*filters.Arch{filters.ArchX86_64, filters.ArchI386, filters.ArchX32} {
			for n := -1; n < 600; n++ {
				for _, v := range []uint64{0, 1, 0xffffffff, 0x100000000} {
					d := abi.Data(n, v, v, v)
					if n == -1 {
						d.Nr = -1
					}
					got, err := filters.Emulate(p, d)
					if err != nil {
						t.Fatal(err)
					}
					if want := f.Verdict(d.Arch, uint32(d.Nr), d.Args); got.Ret != want {
						t.Fatalf("tree=%v %s nr %d args %#x: compiled returns %#x, database says %#x", tree, abi.Name, d.Nr, v, got.Ret, want)
					}
					longest[tree] = max(longest[tree], got.Executed)
				}
			}
		}
	}
	t.Logf("longest path: linear %d instructions, tree %d", longest[false], longest[true])
	if longest[true]*4 > longest[false] {
		t.Errorf("tree's longest path %d is not under a quarter of the linear layout's %d", longest[true], longest[false])
	}
}

// errnoRet is SECCOMP_RET_ERRNO with errno e.
func errnoRet(e int) uint32 { return uint32(filters.ActionErrno) | uint32(e)&filters.RetData }

// TestX32Numbers: the libseccomp model numbers x32 syscalls with the x32
// bit, from the x32 table (ioctl is 514, not x86_64's 16).
func TestX32Numbers(t *testing.T) {
	if got, _ := X32.Nr("ioctl"); got != filters.X32SyscallBit|514 {
		t.Errorf("libseccomp model x32 ioctl = %#x, want %#x", got, filters.X32SyscallBit|514)
	}
}

// TestOrderedFirstMatch: with Ordered, a rule whose action is the
// default still stops the rules after it, and an unconditional rule
// after conditional ones keeps them; without it libseccomp's database
// drops the first and lets the second absorb them.
func TestOrderedFirstMatch(t *testing.T) {
	kill, allow := uint32(filters.ActionKillThread), uint32(filters.ActionAllow)
	eperm := uint32(filters.ActionErrno) | 1
	rules := []Rule{
		{Syscall: "write", Action: kill, Conds: []Cond{{Arg: 0, Op: EQ, Datum: 2}}},
		{Syscall: "write", Action: allow},
		{Syscall: "read", Action: eperm, Conds: []Cond{{Arg: 0, Op: EQ, Datum: 0}}},
		{Syscall: "read", Action: allow},
	}
	nrW, nrR := uint32(filters.ArchX86_64.Names["write"]), uint32(filters.ArchX86_64.Names["read"])
	for _, tt := range []struct {
		ordered bool
		nr      uint32
		arg0    uint64
		want    uint32
	}{
		{true, nrW, 2, kill}, {true, nrW, 1, allow}, {true, nrR, 0, eperm}, {true, nrR, 3, allow},
		{false, nrW, 2, allow}, {false, nrR, 0, allow},
	} {
		f := &Filter{DefAction: kill, BadArch: kill, Arches: []*Arch{X86_64}, Rules: rules, Ordered: tt.ordered}
		if got := f.Verdict(filters.AuditArchX86_64, tt.nr, [6]uint64{tt.arg0}); got != tt.want {
			t.Errorf("ordered %v nr %d arg0 %d: Verdict %#x, want %#x", tt.ordered, tt.nr, tt.arg0, got, tt.want)
		}
		insns, err := f.Compile()
		if err != nil {
			t.Fatal(err)
		}
		res, err := filters.Emulate(&filters.Program{Name: "t", Insns: insns}, filters.SeccompData{Nr: int32(tt.nr), Arch: filters.AuditArchX86_64, Args: [6]uint64{tt.arg0}})
		if err != nil || res.Ret != tt.want {
			t.Errorf("ordered %v nr %d arg0 %d: compiled %#x (%v), want %#x", tt.ordered, tt.nr, tt.arg0, res.Ret, err, tt.want)
		}
	}
}

// TestNoX32Split: without the x32 test, an x32 number reaches the
// x86_64 rules (matching none) and gets DefAction, in the database and
// in the compiled program alike; with it, BadArch.
func TestNoX32Split(t *testing.T) {
	def, bad := uint32(filters.ActionAllow), uint32(filters.ActionKillThread)
	for _, noSplit := range []bool{true, false} {
		f := &Filter{DefAction: def, BadArch: bad, Arches: []*Arch{X86_64}, NoX32Split: noSplit,
			Rules: []Rule{{Syscall: "read", Action: uint32(filters.ActionErrno) | 1}}}
		want := bad
		if noSplit {
			want = def
		}
		nr := uint32(filters.X32SyscallBit)
		if got := f.Verdict(filters.AuditArchX86_64, nr, [6]uint64{}); got != want {
			t.Errorf("NoX32Split %v: Verdict %#x, want %#x", noSplit, got, want)
		}
		insns, err := f.Compile()
		if err != nil {
			t.Fatal(err)
		}
		res, err := filters.Emulate(&filters.Program{Name: "t", Insns: insns}, filters.SeccompData{Nr: int32(nr), Arch: filters.AuditArchX86_64})
		if err != nil || res.Ret != want {
			t.Errorf("NoX32Split %v: compiled %#x (%v), want %#x", noSplit, res.Ret, err, want)
		}
	}
}

// TestLow32: a Low32 condition on a 64-bit ABI compares the low words
// only, in the database and in the compiled program alike.
func TestLow32(t *testing.T) {
	allow, kill := uint32(filters.ActionAllow), uint32(filters.ActionKillThread)
	nr := uint32(filters.ArchX86_64.Names["close"])
	for _, op := range []Op{EQ, NE, LT, LE, GT, GE} {
		f := &Filter{DefAction: kill, BadArch: kill, Arches: []*Arch{X86_64},
			Rules: []Rule{{Syscall: "close", Action: allow, Conds: []Cond{{Arg: 0, Op: op, Datum: 7, Low32: true}}}}}
		insns, err := f.Compile()
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []uint64{6, 7, 8, 1<<32 | 6, 1<<32 | 7, 1<<32 | 8} {
			want := kill
			if (Cond{Op: op, Datum: 7}).holds(v&0xffffffff, 64) {
				want = allow
			}
			if got := f.Verdict(filters.AuditArchX86_64, nr, [6]uint64{v}); got != want {
				t.Errorf("%v %#x: Verdict %#x, want %#x", op, v, got, want)
			}
			res, err := filters.Emulate(&filters.Program{Name: "t", Insns: insns}, filters.SeccompData{Nr: int32(nr), Arch: filters.AuditArchX86_64, Args: [6]uint64{v}})
			if err != nil || res.Ret != want {
				t.Errorf("%v %#x: compiled %#x (%v), want %#x", op, v, res.Ret, err, want)
			}
		}
	}
}
