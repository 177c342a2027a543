package filters

import (
	"math/rand/v2"
	"testing"
)

// scmpProbeNames are the syscalls random filters use: common to the three x86
// ABIs, plus mmap2 (i386 only) and a name no table has.
var scmpProbeNames = []string{"read", "write", "openat", "clone", "futex", "ioctl", "mmap", "mmap2", "socket", "personality", "no_such_call"}

// scmpEdgeValues are argument values around the datums random rules use,
// and the 32-bit boundaries where hi/lo splitting could go wrong.
var scmpEdgeValues = []uint64{0, 1, 2, 3, 0x7f, 0x80, 0xff, 0xffffffff, 0x100000000, 0x100000001, 0x1ffffffff, 0xffffffff00000000, ^uint64(0)}

func randomScmpFilter(r *rand.Rand) *scmpFilter {
	actions := []uint32{uint32(ActionAllow), sdErrno(1), sdErrno(38), uint32(ActionKillProcess), uint32(ActionTrap), uint32(ActionLog), uint32(ActionKillThread)}
	f := &scmpFilter{
		DefAction: actions[r.IntN(len(actions))],
		BadArch:   actions[r.IntN(len(actions))],
	}
	for _, a := range []*scmpArch{scmpX86_64, scmpX86, scmpX32} {
		if r.IntN(3) > 0 {
			f.Arches = append(f.Arches, a)
		}
	}
	if len(f.Arches) == 0 {
		f.Arches = []*scmpArch{scmpX86_64}
	}
	ops := []scmpOp{scmpNE, scmpLT, scmpLE, scmpEQ, scmpGE, scmpGT, scmpMaskedEQ}
	for i, n := 0, r.IntN(25); i < n; i++ {
		rule := scmpRule{Syscall: scmpProbeNames[r.IntN(len(scmpProbeNames))], Action: actions[r.IntN(len(actions))]}
		for j, m := 0, r.IntN(4); j < m; j++ {
			c := scmpCond{Arg: r.IntN(6), Op: ops[r.IntN(len(ops))], Datum: scmpEdgeValues[r.IntN(len(scmpEdgeValues))]}
			if c.Op == scmpMaskedEQ {
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
		f := randomScmpFilter(r)
		insns, err := f.compile()
		if err != nil {
			t.Fatalf("filter %d: compile: %v", iter, err)
		}
		if err := Validate(insns); err != nil {
			t.Fatalf("filter %d: invalid program: %v", iter, err)
		}
		p := &Program{Name: "random", Insns: insns}
		abis := []struct {
			arch *Arch
			tab  *scmpArch
		}{{ArchX86_64, scmpX86_64}, {ArchI386, scmpX86}, {ArchX32, scmpX32}}
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
					want := f.verdict(d.Arch, uint32(d.Nr), d.Args)
					got, err := Emulate(p, d)
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
		got, _ := Emulate(p, SeccompData{Nr: 63, Arch: auditArchAARCH64})
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
		c    scmpCond
		v    uint64
		bits int
		want bool
	}{
		{"gt across words", scmpCond{Op: scmpGT, Datum: 0xffffffff}, 0x100000000, 64, true},
		{"gt low word only on 32-bit", scmpCond{Op: scmpGT, Datum: 0xffffffff}, 0x100000000, 32, false},
		{"lt high word decides", scmpCond{Op: scmpLT, Datum: 0x100000000}, 0xffffffff, 64, true},
		{"eq needs both words", scmpCond{Op: scmpEQ, Datum: 1}, 0x100000001, 64, false},
		{"eq low word on 32-bit", scmpCond{Op: scmpEQ, Datum: 1}, 0x100000001, 32, true},
		{"masked eq", scmpCond{Op: scmpMaskedEQ, Mask: 0x10000000, Datum: 0}, 0x10000011, 64, false},
		{"masked eq clear", scmpCond{Op: scmpMaskedEQ, Mask: 0x10000000, Datum: 0}, 0x11, 64, true},
		{"ne", scmpCond{Op: scmpNE, Datum: 8}, 8, 64, false},
		{"le equal", scmpCond{Op: scmpLE, Datum: 8}, 8, 64, true},
		{"ge below", scmpCond{Op: scmpGE, Datum: 8}, 7, 64, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.c.holds(tt.v, tt.bits); got != tt.want {
				t.Errorf("holds(%#x, %d) = %v, want %v", tt.v, tt.bits, got, tt.want)
			}
		})
	}
}
