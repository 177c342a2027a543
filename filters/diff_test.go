package filters

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"testing"

	"golang.org/x/net/bpf"
)

// The emulator is checked against golang.org/x/net/bpf's VM on random valid
// programs. The VM loads big-endian and knows nothing of seccomp, so:
//   - the input packet holds each seccomp_data word big-endian at its offset
//     (xnetPacket), so `ld [k]` yields the same 32-bit value in both;
//   - programs use only instructions both implement alike: no neg (the VM
//     lacks it), no shifts by X (the VM shifts by the full X, the kernel on
//     x86 by X&31), no ldx #len (x/net decodes it as a load into A);
//   - division by an X of 0 returns 0 in both.
// Scratch cells: the VM zeroes them, the kernel rejects programs that may
// read one before storing it; Validate keeps only the latter kind.

// diffOps are the opcodes random programs draw from.
var diffOps = []uint16{
	Ld | W | Abs, Ld | W | Abs, Ld | W | Abs, Ld | W | Len,
	Ld | Imm, Ldx | Imm, Ld | Mem, Ldx | Mem, St, Stx,
	Alu | Add | K, Alu | Sub | K, Alu | Mul | K, Alu | Div | K,
	Alu | And | K, Alu | Or | K, Alu | Xor | K, Alu | Lsh | K, Alu | Rsh | K,
	Alu | Add | X, Alu | Sub | X, Alu | Mul | X, Alu | Div | X,
	Alu | And | X, Alu | Or | X, Alu | Xor | X,
	Misc | Tax, Misc | Txa,
	Jmp | Ja,
	Jmp | Jeq | K, Jmp | Jgt | K, Jmp | Jge | K, Jmp | Jset | K,
	Jmp | Jeq | X, Jmp | Jgt | X, Jmp | Jge | X, Jmp | Jset | X,
	Ret | K, Ret | A,
}

const diffInsnBytes = 7 // op selector, jt, jf, k (4 bytes)

// diffProgram turns arbitrary bytes into a valid seccomp program both VMs
// implement alike, or returns false. Every 7 bytes make one instruction;
// operands are reduced into range and the last instruction becomes a RET.
// Scratch loads the kernel would reject become `ld #k`.
func diffProgram(b []byte) ([]bpf.RawInstruction, bool) {
	n := min(len(b)/diffInsnBytes, 64)
	if n == 0 {
		return nil, false
	}
	insns := make([]bpf.RawInstruction, n)
	for pc := range n {
		c := b[pc*diffInsnBytes:]
		op := diffOps[int(c[0])%len(diffOps)]
		jt, jf, k := c[1], c[2], binary.LittleEndian.Uint32(c[3:7])
		left := n - pc - 1 // instructions after this one
		if pc == n-1 {
			op = Ret | K
			if c[0]&1 == 1 {
				op = Ret | A
			}
		}
		switch k & 0x300 { // small constants collide with data and each other
		case 0:
			k %= 8
		case 0x100:
			k %= 512
		}
		in := bpf.RawInstruction{Op: op, K: k}
		switch op {
		case Ld | W | Abs:
			in.K = (k % 16) * 4
		case Ld | Mem, Ldx | Mem, St, Stx:
			in.K = k % 4 // few cells, so loads often find a store
		case Alu | Div | K:
			if k == 0 {
				in.K = 1
			}
		case Alu | Lsh | K, Alu | Rsh | K:
			in.K = k % 32
		case Jmp | Ja:
			if left == 0 {
				in = bpf.RawInstruction{Op: Ret | A}
				break
			}
			in.K = k % uint32(left)
		case Jmp | Jeq | K, Jmp | Jgt | K, Jmp | Jge | K, Jmp | Jset | K,
			Jmp | Jeq | X, Jmp | Jgt | X, Jmp | Jge | X, Jmp | Jset | X:
			if left == 0 {
				in = bpf.RawInstruction{Op: Ret | A}
				break
			}
			in.Jt, in.Jf = uint8(int(jt)%left), uint8(int(jf)%left)
		}
		insns[pc] = in
	}
	for range n {
		err := Validate(insns)
		if err == nil {
			return insns, true
		}
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.PC < 0 {
			return nil, false
		}
		insns[ve.PC] = bpf.RawInstruction{Op: Ld | Imm, K: insns[ve.PC].K}
	}
	return nil, false
}

// diffData turns up to 64 bytes into seccomp_data (little-endian fields,
// missing bytes 0).
func diffData(b []byte) SeccompData {
	var buf [SeccompDataSize]byte
	copy(buf[:], b)
	d := SeccompData{
		Nr:                 int32(binary.LittleEndian.Uint32(buf[0:])),
		Arch:               binary.LittleEndian.Uint32(buf[4:]),
		InstructionPointer: binary.LittleEndian.Uint64(buf[8:]),
	}
	for i := range d.Args {
		d.Args[i] = binary.LittleEndian.Uint64(buf[16+8*i:])
	}
	return d
}

// xnetPacket lays d out for x/net/bpf's big-endian loads: each 32-bit word
// the kernel would load at offset k is stored big-endian at k.
func xnetPacket(d *SeccompData) []byte {
	b := make([]byte, SeccompDataSize)
	for off := uint32(0); off < SeccompDataSize; off += 4 {
		binary.BigEndian.PutUint32(b[off:], d.Word(off))
	}
	return b
}

// diffCheck runs both VMs and reports a mismatch.
func diffCheck(t *testing.T, insns []bpf.RawInstruction, d SeccompData) {
	t.Helper()
	p := &Program{Name: "random", Insns: insns}
	got, err := Emulate(p, d)
	if err != nil {
		t.Fatalf("Emulate() error = %v on a validated program", err)
	}
	prog, ok := bpf.Disassemble(insns)
	if !ok {
		t.Fatalf("x/net/bpf cannot decode %v", insns)
	}
	vm, err := bpf.NewVM(prog)
	if err != nil {
		t.Fatalf("bpf.NewVM() error = %v for %v", err, prog)
	}
	want, err := vm.Run(xnetPacket(&d))
	if err != nil {
		t.Fatalf("vm.Run() error = %v", err)
	}
	if got.Ret != uint32(want) {
		t.Fatalf("Emulate() = %#x, x/net/bpf VM = %#x\nprogram: %v\ndata: %+v", got.Ret, uint32(want), prog, d)
	}
}

func TestEmulateVsXNetBPF(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	programs, runs := 0, 0
	for programs < 2000 {
		b := make([]byte, diffInsnBytes*(2+rng.IntN(40)))
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		insns, ok := diffProgram(b)
		if !ok {
			continue
		}
		programs++
		for range 10 {
			var db [SeccompDataSize]byte
			for i := 0; i < len(db); i += 4 {
				w := rng.Uint32()
				switch rng.IntN(4) { // small words meet the small constants
				case 0:
					w %= 8
				case 1:
					w %= 512
				}
				binary.LittleEndian.PutUint32(db[i:], w)
			}
			d := diffData(db[:])
			diffCheck(t, insns, d)
			runs++
		}
	}
	t.Logf("%d programs, %d runs agree", programs, runs)
}

// FuzzEmulateVsXNetBPF checks the emulator against x/net/bpf's VM on
// programs made from fuzz input (see diffProgram). The seed corpus lives in
// testdata/fuzz/FuzzEmulateVsXNetBPF.
func FuzzEmulateVsXNetBPF(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 37, 0, 0, 0, 0, 0x7f, 0}, []byte{39, 0, 0, 0, 0x3e, 0, 0, 0xc0})
	f.Fuzz(func(t *testing.T, prog, data []byte) {
		insns, ok := diffProgram(prog)
		if !ok {
			return
		}
		diffCheck(t, insns, diffData(data))
	})
}
