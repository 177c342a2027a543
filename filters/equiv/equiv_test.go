package equiv

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/bpf"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/filters/systemd"
)

const (
	ax86   = filters.AuditArchX86_64
	ai386  = filters.AuditArchI386
	allow  = uint32(filters.ActionAllow)
	kill   = uint32(filters.ActionKillProcess)
	killT  = uint32(filters.ActionKillThread)
	errnoA = uint32(filters.ActionErrno)
	trap   = uint32(filters.ActionTrap)
	logA   = uint32(filters.ActionLog)
)

func prog(t testing.TB, name string, ins ...bpf.Instruction) *filters.Program {
	t.Helper()
	raw, err := bpf.Assemble(ins)
	if err != nil {
		t.Fatalf("assemble %s: %v", name, err)
	}
	return &filters.Program{Name: name, Insns: raw}
}

func ldNr() bpf.Instruction   { return bpf.LoadAbsolute{Off: 0, Size: 4} }
func ldArch() bpf.Instruction { return bpf.LoadAbsolute{Off: 4, Size: 4} }
func ldArg(i int, hi bool) bpf.Instruction {
	off := uint32(16 + 8*i)
	if hi {
		off += 4
	}
	return bpf.LoadAbsolute{Off: off, Size: 4}
}
func ret(k uint32) bpf.Instruction { return bpf.RetConstant{Val: k} }
func jeq(k uint32, t, f uint8) bpf.Instruction {
	return bpf.JumpIf{Cond: bpf.JumpEqual, Val: k, SkipTrue: t, SkipFalse: f}
}

// retOnly returns a program that returns k for everything.
func retOnly(t testing.TB, k uint32) *filters.Program { return prog(t, "ret", ret(k)) }

// denyNr returns a program: x86_64 nr == n → r, else allow.
func denyNr(t testing.TB, n, r uint32) *filters.Program {
	return prog(t, "deny",
		ldArch(), jeq(ax86, 0, 3),
		ldNr(), jeq(n, 0, 1),
		ret(r),
		ret(allow))
}

func TestStacksKnownPairs(t *testing.T) {
	tests := []struct {
		name  string
		a, b  filters.Stack
		equal bool
		// want, for a difference: the counterexample's arch, nr and
		// args[0]; -1 to skip a field.
		arch string
		nr   int
		arg0 int64
	}{
		{name: "empty stacks", equal: true},
		{name: "empty vs allow", b: filters.Stack{retOnly(t, allow)}, equal: true},
		{name: "allow data is not observable", a: filters.Stack{retOnly(t, allow|7)}, b: filters.Stack{retOnly(t, allow)}, equal: true},
		{name: "errno capped at MAX_ERRNO", a: filters.Stack{retOnly(t, errnoA|4095)}, b: filters.Stack{retOnly(t, errnoA|5000)}, equal: true},
		{name: "errno data differs", a: filters.Stack{retOnly(t, errnoA|1)}, b: filters.Stack{retOnly(t, errnoA|2)}, arch: "", nr: 0, arg0: 0},
		{name: "trap data differs", a: filters.Stack{retOnly(t, trap|1)}, b: filters.Stack{retOnly(t, trap|2)}, arch: "", nr: 0, arg0: 0},
		{name: "kill_thread vs kill_process", a: filters.Stack{retOnly(t, killT)}, b: filters.Stack{retOnly(t, kill)}, nr: -1, arg0: -1},
		{name: "unknown action is kill_process", a: filters.Stack{retOnly(t, 0x00010000)}, b: filters.Stack{retOnly(t, kill)}, equal: true},
		{
			name:  "precedence tie goes to the newest filter",
			a:     filters.Stack{retOnly(t, errnoA|1), retOnly(t, errnoA|2)},
			b:     filters.Stack{retOnly(t, errnoA|2)},
			equal: true,
		},
		{
			name: "precedence tie: oldest does not win",
			a:    filters.Stack{retOnly(t, errnoA|1), retOnly(t, errnoA|2)},
			b:    filters.Stack{retOnly(t, errnoA|1)},
			nr:   -1, arg0: -1,
		},
		{
			name:  "kill_process beats everything whatever its place",
			a:     filters.Stack{retOnly(t, kill), retOnly(t, errnoA|1), retOnly(t, trap)},
			b:     filters.Stack{retOnly(t, kill)},
			equal: true,
		},
		{
			name:  "log loses to errno",
			a:     filters.Stack{retOnly(t, errnoA|3), retOnly(t, logA)},
			b:     filters.Stack{retOnly(t, errnoA|3)},
			equal: true,
		},
		{
			name:  "stack of two denials equals one filter",
			a:     filters.Stack{denyNr(t, 39, errnoA|1), denyNr(t, 102, errnoA|2)},
			b:     filters.Stack{prog(t, "both", ldArch(), jeq(ax86, 0, 3), ldNr(), jeq(39, 2, 0), jeq(102, 2, 0), ret(allow), ret(errnoA|1), ret(errnoA|2))},
			equal: true,
		},
		{
			name: "swapped errnos found on the right syscall",
			a:    filters.Stack{denyNr(t, 39, errnoA|1), denyNr(t, 102, errnoA|2)},
			b:    filters.Stack{prog(t, "both", ldArch(), jeq(ax86, 0, 3), ldNr(), jeq(39, 2, 0), jeq(102, 2, 0), ret(allow), ret(errnoA|2), ret(errnoA|1))},
			arch: "x86_64", nr: -1, arg0: -1,
		},
		{
			name:  "jeq chain order does not matter",
			a:     filters.Stack{prog(t, "a", ldNr(), jeq(1, 2, 0), jeq(2, 1, 0), ret(allow), ret(kill))},
			b:     filters.Stack{prog(t, "b", ldNr(), jeq(2, 2, 0), jeq(1, 1, 0), ret(allow), ret(kill))},
			equal: true,
		},
		{
			name:  "and #0xffffffff is a no-op",
			a:     filters.Stack{prog(t, "a", ldNr(), bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: 0xffffffff}, jeq(5, 0, 1), ret(kill), ret(allow))},
			b:     filters.Stack{prog(t, "b", ldNr(), jeq(5, 0, 1), ret(kill), ret(allow))},
			equal: true,
		},
		{
			name: "argument boundary: jgt 5 vs jge 5 differ only at 5",
			a:    filters.Stack{prog(t, "a", ldArg(0, false), bpf.JumpIf{Cond: bpf.JumpGreaterThan, Val: 5, SkipTrue: 0, SkipFalse: 1}, ret(errnoA|1), ret(allow))},
			b:    filters.Stack{prog(t, "b", ldArg(0, false), bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: 5, SkipTrue: 0, SkipFalse: 1}, ret(errnoA|1), ret(allow))},
			nr:   0, arg0: 5,
		},
		{
			name:  "argument boundary: jgt 5 equals jge 6",
			a:     filters.Stack{prog(t, "a", ldArg(0, false), bpf.JumpIf{Cond: bpf.JumpGreaterThan, Val: 5, SkipTrue: 0, SkipFalse: 1}, ret(errnoA|1), ret(allow))},
			b:     filters.Stack{prog(t, "b", ldArg(0, false), bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: 6, SkipTrue: 0, SkipFalse: 1}, ret(errnoA|1), ret(allow))},
			equal: true,
		},
		{
			name: "high argument word matters",
			a:    filters.Stack{prog(t, "a", ldArg(1, false), jeq(0, 0, 1), ret(allow), ret(kill))},
			b:    filters.Stack{prog(t, "b", ldArg(1, true), jeq(0, 0, 2), ldArg(1, false), jeq(0, 0, 1), ret(allow), ret(kill))},
			nr:   0, arg0: 0,
		},
		{
			name:  "jset equals masked jeq",
			a:     filters.Stack{prog(t, "a", ldArg(2, false), bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: 0x800, SkipTrue: 0, SkipFalse: 1}, ret(errnoA|1), ret(allow))},
			b:     filters.Stack{prog(t, "b", ldArg(2, false), bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: 0x800}, jeq(0x800, 0, 1), ret(errnoA|1), ret(allow))},
			equal: true,
		},
		{
			name: "masked jeq with a different mask",
			a:    filters.Stack{prog(t, "a", ldArg(2, false), bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: 0xc00, SkipTrue: 0, SkipFalse: 1}, ret(errnoA|1), ret(allow))},
			b:    filters.Stack{prog(t, "b", ldArg(2, false), bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: 0x800}, jeq(0x800, 0, 1), ret(errnoA|1), ret(allow))},
			nr:   0, arg0: 0,
		},
		{
			name: "i386 path differs",
			a:    filters.Stack{prog(t, "a", ldArch(), jeq(ax86, 1, 0), ret(kill), ret(allow))},
			b:    filters.Stack{prog(t, "b", ldArch(), jeq(ax86, 2, 0), jeq(ai386, 1, 0), ret(kill), ret(allow))},
			arch: "i386", nr: 0, arg0: -1,
		},
		{
			name: "x32 numbers need their own check",
			a:    filters.Stack{prog(t, "a", ldArch(), jeq(ax86, 0, 4), ldNr(), bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: 0x40000000, SkipTrue: 1}, ret(allow), ret(kill), ret(kill))},
			b:    filters.Stack{prog(t, "b", ldArch(), jeq(ax86, 0, 1), ret(allow), ret(kill))},
			arch: "x32", nr: 0, arg0: -1,
		},
		{
			name:  "constant arithmetic and scratch memory are followed",
			a:     filters.Stack{prog(t, "a", bpf.LoadConstant{Dst: bpf.RegA, Val: 3}, bpf.ALUOpConstant{Op: bpf.ALUOpAdd, Val: 4}, bpf.StoreScratch{Src: bpf.RegA, N: 2}, ldNr(), bpf.LoadScratch{Dst: bpf.RegX, N: 2}, bpf.JumpIfX{Cond: bpf.JumpEqual, SkipTrue: 0, SkipFalse: 1}, ret(kill), ret(allow))},
			b:     filters.Stack{prog(t, "b", ldNr(), jeq(7, 0, 1), ret(kill), ret(allow))},
			equal: true,
		},
		{
			name:  "constant compared with a loaded X",
			a:     filters.Stack{prog(t, "a", ldNr(), bpf.TAX{}, bpf.LoadConstant{Dst: bpf.RegA, Val: 10}, bpf.JumpIfX{Cond: bpf.JumpGreaterThan, SkipTrue: 0, SkipFalse: 1}, ret(kill), ret(allow))},
			b:     filters.Stack{prog(t, "b", ldNr(), bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: 10, SkipTrue: 1}, ret(kill), ret(allow))},
			equal: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Stacks(tt.a, tt.b)
			if err != nil {
				t.Fatalf("Stacks: %v", err)
			}
			if got.Equivalent != tt.equal {
				t.Fatalf("Equivalent = %v, want %v (counterexample %v)", got.Equivalent, tt.equal, got.Counterexample)
			}
			if tt.equal {
				if got.Counterexample != nil {
					t.Errorf("counterexample %v for equivalent stacks", got.Counterexample)
				}
				return
			}
			ce := got.Counterexample
			if ce == nil {
				t.Fatal("no counterexample")
			}
			if tt.arch != "" && ce.Arch != tt.arch {
				t.Errorf("arch = %q, want %q (%v)", ce.Arch, tt.arch, ce)
			}
			if tt.nr >= 0 && tt.arch != "" && ce.Nr != tt.nr {
				t.Errorf("nr = %d, want %d (%v)", ce.Nr, tt.nr, ce)
			}
			if tt.arg0 >= 0 && ce.Data.Args[0] != uint64(tt.arg0) {
				t.Errorf("args[0] = %#x, want %#x (%v)", ce.Data.Args[0], tt.arg0, ce)
			}
			if ce.A.Same(ce.B) {
				t.Errorf("counterexample with equal outcomes: %v", ce)
			}
		})
	}
}

func TestStacksCannotProve(t *testing.T) {
	tests := []struct {
		name string
		p    *filters.Program
	}{
		{"add on nr", prog(t, "add", ldNr(), bpf.ALUOpConstant{Op: bpf.ALUOpAdd, Val: 1}, jeq(5, 0, 1), ret(kill), ret(allow))},
		{"shift on an argument", prog(t, "rsh", ldArg(0, false), bpf.ALUOpConstant{Op: bpf.ALUOpShiftRight, Val: 4}, jeq(5, 0, 1), ret(kill), ret(allow))},
		{"ret a of nr", prog(t, "reta", ldNr(), bpf.RetA{})},
		{"two loaded words compared", prog(t, "xx", ldNr(), bpf.TAX{}, ldArg(0, false), bpf.JumpIfX{Cond: bpf.JumpEqual, SkipTrue: 0, SkipFalse: 1}, ret(kill), ret(allow))},
		{"ordered compare after or", prog(t, "or", ldArg(0, false), bpf.ALUOpConstant{Op: bpf.ALUOpOr, Val: 1}, bpf.JumpIf{Cond: bpf.JumpGreaterThan, Val: 5, SkipTrue: 0, SkipFalse: 1}, ret(kill), ret(allow))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Programs(tt.p, tt.p)
			if !errors.Is(err, ErrCannotProve) {
				t.Fatalf("Programs = %+v, %v; want an error wrapping ErrCannotProve", got, err)
			}
			if got.Equivalent {
				t.Error("Equivalent = true with an error")
			}
			var cpe *CannotProveError
			if !errors.As(err, &cpe) || cpe.PC < 0 {
				t.Errorf("error %v does not name the instruction", err)
			}
		})
	}
}

func TestStacksInvalidProgram(t *testing.T) {
	bad := &filters.Program{Name: "bad", Insns: []bpf.RawInstruction{{Op: 0x20, K: 3}}}
	_, err := Programs(bad, retOnly(t, allow))
	if !errors.Is(err, filters.ErrInvalidProgram) {
		t.Fatalf("err = %v, want ErrInvalidProgram", err)
	}
}

// corpus returns the repository's policies compiled, plus the hardened
// systemd unit's stack.
func corpus(t testing.TB) (progs []*filters.Program, hardened filters.Stack) {
	t.Helper()
	root := "../../testdata/policies"
	ents, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	progs = append(progs, mustOpen(t, "docker-default"), mustOpen(t, "default"))
	for _, e := range ents {
		path := filepath.Join(root, e.Name())
		if strings.HasSuffix(e.Name(), ".service") {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			u, err := systemd.ParseUnit(path, data, systemd.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if e.Name() == "hardened.service" {
				hardened = u.Stack()
			}
			continue
		}
		if e.IsDir() {
			continue // included files (minijail/)
		}
		src, err := formats.Load(path, corpusOptions(e.Name()))
		if err != nil {
			t.Fatalf("open %s: %v", path, err)
		}
		progs = append(progs, src.Filters...) // every Firecracker thread
	}
	return progs, hardened
}

// corpusOptions picks one profile of the multi-profile corpus files.
func corpusOptions(name string) formats.OpenOptions {
	if name == "k8s-profiles.yaml" {
		return formats.OpenOptions{ProfileName: "checkout-api"}
	}
	return formats.OpenOptions{}
}

func mustOpen(t testing.TB, spec string) *filters.Program {
	t.Helper()
	p, err := formats.Open(spec)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCorpusSelfEquivalent(t *testing.T) {
	progs, hardened := corpus(t)
	for _, p := range progs {
		t.Run(p.Name, func(t *testing.T) {
			got, err := Programs(p, p.DefeatCache())
			if err != nil {
				t.Fatal(err)
			}
			if !got.Equivalent {
				t.Fatalf("program differs from its cache-defeated copy: %v", got.Counterexample)
			}
		})
	}
	t.Run("hardened", func(t *testing.T) {
		got, err := Stacks(hardened, hardened)
		if err != nil || !got.Equivalent {
			t.Fatalf("hardened stack vs itself: %+v %v", got, err)
		}
		// SystemCallFilter (the newest filter) decides many syscalls on
		// its own: without it the stack must differ.
		got, err = Stacks(hardened, hardened[:len(hardened)-1])
		if err != nil || got.Equivalent {
			t.Fatalf("hardened without its newest filter: %+v %v; want a difference", got, err)
		}
	})
}

// boundaryInputs returns inputs built from every constant of the programs
// (k-1, k, k+1 for nr and each argument word), the three x86 ABIs and a
// foreign arch, plus random words.
func boundaryInputs(r *rand.Rand, progs ...*filters.Program) []filters.SeccompData {
	ks := map[uint32]bool{0: true, 0xffffffff: true}
	for _, p := range progs {
		for _, in := range p.Insns {
			ks[in.K] = true
			ks[in.K-1] = true
			ks[in.K+1] = true
		}
	}
	var vals []uint32
	for k := range ks {
		vals = append(vals, k)
	}
	arches := []uint32{ax86, ai386, 0xc00000b7}
	var out []filters.SeccompData
	for _, v := range vals {
		for _, a := range arches {
			d := filters.SeccompData{Nr: int32(v), Arch: a}
			out = append(out, d)
			for i := range 3 {
				d2 := d
				d2.Nr = int32(vals[r.IntN(len(vals))])
				d2.Args[i] = uint64(vals[r.IntN(len(vals))]) | uint64(vals[r.IntN(len(vals))])<<32*uint64(r.IntN(2))
				out = append(out, d2)
			}
		}
	}
	for range 200 {
		d := filters.SeccompData{Nr: int32(r.Uint32() % 600), Arch: arches[r.IntN(3)]}
		for i := range d.Args {
			d.Args[i] = r.Uint64() >> (r.IntN(4) * 16)
		}
		out = append(out, d)
	}
	return out
}

// differs reports an input on which the emulator separates the stacks.
func differs(t testing.TB, a, b filters.Stack, ins []filters.SeccompData) (filters.SeccompData, bool) {
	for _, d := range ins {
		ra, err := filters.EmulateStack(a, d)
		if err != nil {
			t.Fatal(err)
		}
		rb, err := filters.EmulateStack(b, d)
		if err != nil {
			t.Fatal(err)
		}
		if !OutcomeOf(ra.Ret).Same(OutcomeOf(rb.Ret)) {
			return d, true
		}
	}
	return filters.SeccompData{}, false
}

// TestMutations changes one instruction of each corpus program at a time
// (a ret's action or errno, a jump's constant or targets) and checks the
// checker against the emulator: whenever the emulator finds a difference on
// boundary or random inputs, the checker must report a counterexample; and
// an "equivalent" verdict must survive every such input.
func TestMutations(t *testing.T) {
	progs, _ := corpus(t)
	r := rand.New(rand.NewPCG(1, 2))
	for _, p := range progs {
		if p.Len() > 160 {
			continue // the large ones are covered by the self tests
		}
		t.Run(p.Name, func(t *testing.T) {
			ins := boundaryInputs(r, p)
			r.Shuffle(len(ins), func(i, j int) { ins[i], ins[j] = ins[j], ins[i] })
			ins = ins[:min(len(ins), 400)]
			found := 0
			for pc := range p.Insns {
				for _, m := range mutants(p.Insns[pc]) {
					q := *p
					q.Insns = append([]bpf.RawInstruction(nil), p.Insns...)
					q.Insns[pc] = m
					if filters.Validate(q.Insns) != nil {
						continue
					}
					got, err := Programs(p, &q)
					if err != nil {
						t.Fatalf("pc %d mutant %+v: %v", pc, m, err)
					}
					d, emuDiff := differs(t, filters.Stack{p}, filters.Stack{&q}, ins)
					if emuDiff && got.Equivalent {
						t.Fatalf("pc %d mutant %+v: checker says equivalent, emulator differs on %+v", pc, m, d)
					}
					if !got.Equivalent {
						found++
					}
				}
			}
			if found == 0 {
				t.Errorf("no mutant of %s was told apart", p.Name)
			}
		})
	}
}

func mutants(in bpf.RawInstruction) []bpf.RawInstruction {
	var out []bpf.RawInstruction
	switch in.Op & 0x07 {
	case 0x06: // ret
		for _, k := range []uint32{allow, kill, errnoA | 1, errnoA | (in.K+1)&0xffff, logA} {
			if k != in.K {
				out = append(out, bpf.RawInstruction{Op: in.Op, K: k})
			}
		}
	case 0x05: // jumps
		if in.Op&0xf0 == 0 {
			return nil
		}
		m := in
		m.K++
		out = append(out, m)
		m = in
		m.Jt, m.Jf = in.Jf, in.Jt
		out = append(out, m)
	}
	return out
}

// TestRandomCrossCheck compares the checker's verdict on random small
// programs with the emulator on boundary inputs.
func TestRandomCrossCheck(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 300 {
		a, b := randomProg(r), randomProg(r)
		got, err := Programs(a, b)
		if err != nil {
			t.Fatalf("case %d: %v\nA=%v\nB=%v", i, err, a.Insns, b.Insns)
		}
		d, emuDiff := differs(t, filters.Stack{a}, filters.Stack{b}, boundaryInputs(r, a, b))
		if emuDiff && got.Equivalent {
			t.Fatalf("case %d: equivalent, but the emulator differs on %+v", i, d)
		}
	}
}

// randomProg builds a small valid program over nr, arch and args[0] with
// few distinct constants, so random pairs are sometimes equivalent.
func randomProg(r *rand.Rand) *filters.Program {
	n := 2 + r.IntN(6)
	var ins []bpf.RawInstruction
	rets := []uint32{allow, errnoA | 1, errnoA | 2, kill}
	for i := range n {
		left := n - i // instructions after this one, before the rets
		switch r.IntN(4) {
		case 0:
			ins = append(ins, bpf.RawInstruction{Op: 0x20, K: []uint32{0, 4, 16, 20}[r.IntN(4)]})
		case 1:
			ins = append(ins, bpf.RawInstruction{Op: 0x54, K: []uint32{0xff, 0x800, 0xffff0000}[r.IntN(3)]})
		default:
			op := []uint16{0x15, 0x25, 0x35, 0x45}[r.IntN(4)]
			k := []uint32{0, 1, 2, 3, 0x800, ax86, ai386}[r.IntN(7)]
			ins = append(ins, bpf.RawInstruction{Op: op, K: k, Jt: uint8(r.IntN(left + 2)), Jf: uint8(r.IntN(left + 2))})
		}
	}
	for range 2 {
		ins = append(ins, bpf.RawInstruction{Op: 0x06, K: rets[r.IntN(len(rets))]})
	}
	// Keep jumps inside the program.
	for i := range ins {
		if ins[i].Op&0x07 == 0x05 {
			maxOff := uint8(len(ins) - i - 2)
			ins[i].Jt %= maxOff + 1
			ins[i].Jf %= maxOff + 1
		}
	}
	return &filters.Program{Name: "random", Insns: ins}
}
