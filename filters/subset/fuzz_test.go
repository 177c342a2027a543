package subset

import (
	"math/rand/v2"
	"slices"
	"testing"

	"golang.org/x/net/bpf"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/equiv"
)

// fuzzConsts are the constants random programs compare with and random
// inputs are drawn from, so the programs' branches are taken both ways.
var fuzzConsts = []uint32{0, 1, 2, 5, 1000, filters.AuditArchX86_64, filters.AuditArchI386, filters.X32SyscallBit | 1}

var fuzzRets = []uint32{uint32(filters.ActionAllow), uint32(filters.ActionLog), uint32(filters.ActionTrace),
	uint32(filters.ActionErrno) | 1, uint32(filters.ActionErrno) | 38, uint32(filters.ActionTrap), uint32(filters.ActionKillThread),
	uint32(filters.ActionKillProcess), uint32(filters.ActionUserNotif)}

// randomProg builds a small valid filter: a chain of loads of nr, arch
// or args[0] (low half) and forward jumps, ending in returns.
func randomProg(r *rand.Rand) *filters.Program {
	n := 1 + r.IntN(6)
	var ins []bpf.Instruction
	for i := 0; i < n; i++ {
		ins = append(ins, bpf.LoadAbsolute{Off: []uint32{0, 4, 16}[r.IntN(3)], Size: 4})
		left := 2*(n-i) - 1 // instructions after the jump, returns included
		cond := []bpf.JumpTest{bpf.JumpEqual, bpf.JumpGreaterThan, bpf.JumpBitsSet}[r.IntN(3)]
		ins = append(ins, bpf.JumpIf{Cond: cond, Val: fuzzConsts[r.IntN(len(fuzzConsts))],
			SkipTrue: uint8(r.IntN(left)), SkipFalse: uint8(r.IntN(left))})
	}
	for i := 0; i < n+1; i++ {
		ins = append(ins, bpf.RetConstant{Val: fuzzRets[r.IntN(len(fuzzRets))]})
	}
	raw, err := bpf.Assemble(ins)
	if err != nil {
		panic(err)
	}
	return &filters.Program{Name: "random", Insns: raw}
}

// FuzzCheck compares Check with the emulator on random concrete inputs:
// every input where the emulated profile violates must be covered by a
// finding (its syscall, or its ABI's unnamed entry), and a subset verdict
// allows no such input.
func FuzzCheck(f *testing.F) {
	f.Add(uint64(1), uint64(2))
	f.Add(uint64(7), uint64(42))
	f.Fuzz(func(t *testing.T, s1, s2 uint64) {
		r := rand.New(rand.NewPCG(s1, s2))
		p := filters.Stack{randomProg(r)}
		b := filters.Stack{randomProg(r), randomProg(r)}[:1+r.IntN(2)]
		opt := Options{ClassOnly: r.IntN(2) == 0}
		res, err := Check(p, b, opt)
		if err != nil {
			t.Fatalf("Check: %v", err)
		}
		for range 200 {
			d := filters.SeccompData{Nr: int32(fuzzConsts[r.IntN(len(fuzzConsts))]), Arch: fuzzConsts[r.IntN(len(fuzzConsts))]}
			d.Args[0] = uint64(fuzzConsts[r.IntN(len(fuzzConsts))])
			rp, err := filters.EmulateStack(p, d)
			if err != nil {
				t.Fatal(err)
			}
			rb, err := filters.EmulateStack(b, d)
			if err != nil {
				t.Fatal(err)
			}
			if !Relate(equiv.OutcomeOf(rp.Ret), equiv.OutcomeOf(rb.Ret)).Violates(opt.ClassOnly) {
				continue
			}
			if res.Subset {
				t.Fatalf("subset, but %+v gives %#x against %#x\nP=%v\nB=%v", d, rp.Ret, rb.Ret, p[0].Insns, b[0].Insns)
			}
			arch, nr, name := equiv.Describe(d)
			covered := slices.ContainsFunc(res.Findings, func(f Finding) bool { return f.Arch == arch && f.Nr == nr })
			if name == "" {
				covered = slices.ContainsFunc(res.Unnamed, func(f Finding) bool { return f.Arch == arch })
			}
			if !covered {
				t.Fatalf("%+v (%s %d %q) violates but no finding covers it: %v %v", d, arch, nr, name, res.Findings, res.Unnamed)
			}
		}
	})
}
