package optimize

import (
	"errors"
	"testing"

	"golang.org/x/net/bpf"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/equiv"
)

// stackFromBytes decodes fuzz input into a stack of 1-4 small valid
// programs over nr, arch and the first two arguments, with few distinct
// constants and return values so that filters interact: ties, shadowed
// rules, masked tests.
func stackFromBytes(b []byte) filters.Stack {
	next := func() byte {
		if len(b) == 0 {
			return 0
		}
		c := b[0]
		b = b[1:]
		return c
	}
	rets := []uint32{allow, errnoA | 1, errnoA | 2, kill, uint32(filters.ActionTrap) | 3, uint32(filters.ActionLog)}
	consts := []uint32{0, 1, 2, 3, 39, 0x800, 0x40000000, filters.AuditArchX86_64, filters.AuditArchI386}
	words := []uint32{0, 4, 16, 20, 24}
	nf := 1 + int(next()%4)
	var s filters.Stack
	for range nf {
		n := 1 + int(next()%8)
		var ins []bpf.RawInstruction
		for i := range n {
			c := next()
			left := n - i
			switch c % 5 {
			case 0:
				ins = append(ins, bpf.RawInstruction{Op: 0x20, K: words[int(next())%len(words)]})
			case 1:
				ins = append(ins, bpf.RawInstruction{Op: 0x54, K: []uint32{0xff, 0x800, 0xffff0000}[next()%3]})
			default:
				op := []uint16{0x15, 0x25, 0x35, 0x45}[next()%4]
				ins = append(ins, bpf.RawInstruction{Op: op, K: consts[int(next())%len(consts)],
					Jt: next() % uint8(left+2), Jf: next() % uint8(left+2)})
			}
		}
		for range 3 {
			ins = append(ins, bpf.RawInstruction{Op: 0x06, K: rets[int(next())%len(rets)]})
		}
		for i := range ins {
			if ins[i].Op&0x07 == 0x05 {
				maxOff := uint8(len(ins) - i - 2)
				ins[i].Jt %= maxOff + 1
				ins[i].Jf %= maxOff + 1
			}
		}
		s = append(s, &filters.Program{Name: "fuzz", Insns: ins})
	}
	return s
}

// FuzzMerge merges random stacks: Merge must either refuse with an error
// it documents or return a program the checker proves equivalent and the
// emulator agrees with on the programs' boundary values.
func FuzzMerge(f *testing.F) {
	f.Add([]byte{0})
	f.Add([]byte{1, 3, 0, 1, 2, 1, 0, 4, 2, 3, 2, 0, 1, 2, 3, 4, 5, 6})
	f.Add([]byte{3, 7, 2, 2, 7, 1, 1, 0, 0, 2, 0, 3, 4, 5, 5, 1, 3, 2, 2, 1, 0, 9, 9, 9, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Fuzz(func(t *testing.T, b []byte) {
		s := stackFromBytes(b)
		for _, p := range s {
			if filters.Validate(p.Insns) != nil {
				return
			}
		}
		res, err := Merge(s, Weights{})
		if err != nil {
			if errors.Is(err, ErrNotEquivalent) {
				t.Fatalf("merge built a wrong program: %v", err)
			}
			return // cannot-reason and size refusals are allowed
		}
		var ks []uint32
		for _, p := range s {
			for _, in := range p.Insns {
				ks = append(ks, in.K-1, in.K, in.K+1)
			}
		}
		arches := []uint32{filters.AuditArchX86_64, filters.AuditArchI386, 7}
		for i, k := range ks {
			d := filters.SeccompData{Nr: int32(k), Arch: arches[i%3], Args: [6]uint64{uint64(ks[(i*7)%len(ks)]), uint64(ks[(i*13)%len(ks)]) << (32 * uint(i%2))}}
			ra, err := filters.EmulateStack(s, d)
			if err != nil {
				t.Fatal(err)
			}
			rb, err := filters.Emulate(res.Program, d)
			if err != nil {
				t.Fatal(err)
			}
			if !equiv.OutcomeOf(ra.Ret).Same(equiv.OutcomeOf(rb.Ret)) {
				t.Fatalf("input %+v: stack %#x, merged %#x", d, ra.Ret, rb.Ret)
			}
		}
	})
}
