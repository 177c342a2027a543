package equiv

import (
	"math/rand/v2"
	"testing"

	"golang.org/x/net/bpf"

	"github.com/seccompbench/seccompbench/filters"
)

// FuzzEquiv checks the checker against the emulator on random program
// pairs: a verdict of "equivalent" must survive the programs' boundary
// inputs, and a counterexample must be one (Stacks replays it itself).
func FuzzEquiv(f *testing.F) {
	f.Add(uint64(1), uint64(2))
	f.Add(uint64(42), uint64(7))
	f.Fuzz(func(t *testing.T, s1, s2 uint64) {
		r := rand.New(rand.NewPCG(s1, s2))
		a := randomProg(r)
		b := randomProg(r)
		if r.IntN(2) == 0 {
			// A near copy: one instruction changed, so pairs are often
			// equivalent or differ in one corner.
			b = &filters.Program{Name: "mutant", Insns: append([]bpf.RawInstruction(nil), a.Insns...)}
			i := r.IntN(len(b.Insns))
			if ms := mutants(b.Insns[i]); len(ms) > 0 {
				b.Insns[i] = ms[r.IntN(len(ms))]
			}
		}
		if filters.Validate(a.Insns) != nil || filters.Validate(b.Insns) != nil {
			return
		}
		got, err := Programs(a, b)
		if err != nil {
			t.Fatalf("Programs: %v", err)
		}
		if d, diff := differs(t, filters.Stack{a}, filters.Stack{b}, boundaryInputs(r, a, b)); diff && got.Equivalent {
			t.Fatalf("equivalent, but the emulator differs on %+v\nA=%v\nB=%v", d, a.Insns, b.Insns)
		}
	})
}
