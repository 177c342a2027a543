package filters

import (
	"errors"
	"slices"
	"testing"

	"golang.org/x/net/bpf"
)

// tAsm assembles x/net/bpf instructions into a Program, failing the test on
// assembler errors.
func tAsm(t testing.TB, name string, insns ...bpf.Instruction) *Program {
	t.Helper()
	raw, err := bpf.Assemble(insns)
	if err != nil {
		t.Fatalf("assemble %s: %v", name, err)
	}
	return &Program{Name: name, Insns: raw}
}

func tLdNr() bpf.Instruction   { return bpf.LoadAbsolute{Off: OffsetNr, Size: 4} }
func tLdArch() bpf.Instruction { return bpf.LoadAbsolute{Off: OffsetArch, Size: 4} }
func tLdArg(i int, hi bool) bpf.Instruction {
	off := uint32(OffsetArgs + 8*i)
	if hi {
		off += 4
	}
	return bpf.LoadAbsolute{Off: off, Size: 4}
}
func tRet(a Action, data uint16) bpf.Instruction {
	return bpf.RetConstant{Val: uint32(a) | uint32(data)}
}

func tRaw(op uint16, jt, jf uint8, k uint32) bpf.RawInstruction {
	return bpf.RawInstruction{Op: op, Jt: jt, Jf: jf, K: k}
}

func TestValidate(t *testing.T) {
	retAllow := tRaw(Ret|K, 0, 0, uint32(ActionAllow))
	long := make([]bpf.RawInstruction, MaxInsns+1)
	for i := range long {
		long[i] = retAllow
	}
	tests := []struct {
		name   string
		insns  []bpf.RawInstruction
		wantPC int // -2 = valid
	}{
		{"ret only", []bpf.RawInstruction{retAllow}, -2},
		{"max length", long[:MaxInsns], -2},
		{"empty", nil, -1},
		{"over BPF_MAXINSNS", long, -1},
		{"ld nr", []bpf.RawInstruction{tRaw(Ld|W|Abs, 0, 0, 0), retAllow}, -2},
		{"ld args[5] hi", []bpf.RawInstruction{tRaw(Ld|W|Abs, 0, 0, 60), retAllow}, -2},
		{"ld past seccomp_data", []bpf.RawInstruction{tRaw(Ld|W|Abs, 0, 0, 64), retAllow}, 0},
		{"ld misaligned", []bpf.RawInstruction{tRaw(Ld|W|Abs, 0, 0, 2), retAllow}, 0},
		{"ld ancillary offset", []bpf.RawInstruction{tRaw(Ld|W|Abs, 0, 0, 0xfffff000), retAllow}, 0},
		{"ldh", []bpf.RawInstruction{tRaw(Ld|0x08|Abs, 0, 0, 0), retAllow}, 0},
		{"ldb", []bpf.RawInstruction{tRaw(Ld|0x10|Abs, 0, 0, 0), retAllow}, 0},
		{"ld ind", []bpf.RawInstruction{tRaw(Ld|W|0x40, 0, 0, 0), retAllow}, 0},
		{"ldx msh", []bpf.RawInstruction{tRaw(Ldx|0x10|0xa0, 0, 0, 0), retAllow}, 0},
		{"ld len", []bpf.RawInstruction{tRaw(Ld|W|Len, 0, 0, 0), tRaw(Ret|A, 0, 0, 0)}, -2},
		{"mod", []bpf.RawInstruction{tRaw(Alu|Mod|K, 0, 0, 3), retAllow}, 0},
		{"unknown opcode", []bpf.RawInstruction{retAllow, tRaw(0xffff, 0, 0, 0), retAllow}, 1},
		{"ret x", []bpf.RawInstruction{tRaw(Ret|X, 0, 0, 0)}, 0},
		{"div by constant 0", []bpf.RawInstruction{tRaw(Alu|Div|K, 0, 0, 0), retAllow}, 0},
		{"div by x", []bpf.RawInstruction{tRaw(Alu|Div|X, 0, 0, 0), retAllow}, -2},
		{"lsh 31", []bpf.RawInstruction{tRaw(Alu|Lsh|K, 0, 0, 31), retAllow}, -2},
		{"lsh 32", []bpf.RawInstruction{tRaw(Alu|Lsh|K, 0, 0, 32), retAllow}, 0},
		{"rsh 40", []bpf.RawInstruction{tRaw(Alu|Rsh|K, 0, 0, 40), retAllow}, 0},
		{"ja to last", []bpf.RawInstruction{tRaw(Jmp|Ja, 0, 0, 1), retAllow, retAllow}, -2},
		{"ja past end", []bpf.RawInstruction{tRaw(Jmp|Ja, 0, 0, 2), retAllow, retAllow}, 0},
		{"ja huge", []bpf.RawInstruction{tRaw(Jmp|Ja, 0, 0, 0xffffffff), retAllow}, 0},
		{"jeq in range", []bpf.RawInstruction{tRaw(Jmp|Jeq|K, 1, 0, 0), retAllow, retAllow}, -2},
		{"jeq jt past end", []bpf.RawInstruction{tRaw(Jmp|Jeq|K, 2, 0, 0), retAllow, retAllow}, 0},
		{"jset jf past end", []bpf.RawInstruction{tRaw(Jmp|Jset|X, 0, 2, 0), retAllow, retAllow}, 0},
		{"last not ret", []bpf.RawInstruction{retAllow, tRaw(Ld|Imm, 0, 0, 0)}, 1},
		{"M[16]", []bpf.RawInstruction{tRaw(St, 0, 0, 16), retAllow}, 0},
		{"load before store", []bpf.RawInstruction{tRaw(Ld|Mem, 0, 0, 3), retAllow}, 0},
		{"store then load", []bpf.RawInstruction{tRaw(St, 0, 0, 3), tRaw(Ldx|Mem, 0, 0, 3), retAllow}, -2},
		{"store on one path only", []bpf.RawInstruction{
			tRaw(Jmp|Jeq|K, 0, 1, 7),
			tRaw(St, 0, 0, 2),
			tRaw(Ld|Mem, 0, 0, 2),
			retAllow,
		}, 2},
		{"store on both paths", []bpf.RawInstruction{
			tRaw(St, 0, 0, 2),
			tRaw(Jmp|Jeq|K, 0, 1, 7),
			tRaw(Stx, 0, 0, 2),
			tRaw(Ld|Mem, 0, 0, 2),
			retAllow,
		}, -2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Validate(tt.insns)
			if tt.wantPC == -2 {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			var ve *ValidationError
			if !errors.As(err, &ve) || !errors.Is(err, ErrInvalidProgram) {
				t.Fatalf("Validate() = %v, want *ValidationError wrapping ErrInvalidProgram", err)
			}
			if ve.PC != tt.wantPC {
				t.Errorf("Validate() PC = %d, want %d (%v)", ve.PC, tt.wantPC, err)
			}
		})
	}
}

func TestEmulate(t *testing.T) {
	getpid := ArchX86_64.Data(39)
	withArgs := ArchX86_64.Data(1, 0x1111_2222_3333_4444, 7, 0, 0, 0, 0xdead_beef_0000_0001)
	withArgs.InstructionPointer = 0x0000_7fff_1234_5678
	alu := func(op bpf.ALUOp, a, k uint32) *Program {
		return tAsm(t, "alu", bpf.LoadConstant{Dst: bpf.RegA, Val: a}, bpf.ALUOpConstant{Op: op, Val: k}, bpf.RetA{})
	}
	aluX := func(op bpf.ALUOp, a, x uint32) *Program {
		return tAsm(t, "alux", bpf.LoadConstant{Dst: bpf.RegA, Val: a}, bpf.LoadConstant{Dst: bpf.RegX, Val: x}, bpf.ALUOpX{Op: op}, bpf.RetA{})
	}
	allowGetpid := tAsm(t, "allow-getpid",
		tLdNr(),
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 39, SkipTrue: 1},
		tRet(ActionErrno, 1),
		tRet(ActionAllow, 0),
	)
	tests := []struct {
		name     string
		p        *Program
		d        SeccompData
		wantRet  uint32
		wantExec int
		wantPath []int
		wantRead FieldSet
	}{
		{"ret constant", tAsm(t, "r", tRet(ActionTrap, 3)), getpid, uint32(ActionTrap) | 3, 1, []int{0}, 0},
		{"jeq taken", allowGetpid, getpid, uint32(ActionAllow), 3, []int{0, 1, 3}, FieldNr},
		{"jeq not taken", allowGetpid, ArchX86_64.Data(40), uint32(ActionErrno) | 1, 3, []int{0, 1, 2}, FieldNr},
		{"ld arch", tAsm(t, "a", tLdArch(), bpf.RetA{}), ArchI386.Data(1), AuditArchI386, 2, []int{0, 1}, FieldArch},
		{"ld x32 nr", tAsm(t, "n", tLdNr(), bpf.RetA{}), ArchX32.Data(1), X32SyscallBit | 1, 2, []int{0, 1}, FieldNr},
		{"args[0] lo", tAsm(t, "a0", tLdArg(0, false), bpf.RetA{}), withArgs, 0x3333_4444, 2, []int{0, 1}, 1 << 4},
		{"args[0] hi", tAsm(t, "a0", tLdArg(0, true), bpf.RetA{}), withArgs, 0x1111_2222, 2, []int{0, 1}, 1 << 5},
		{"args[5] hi", tAsm(t, "a5", tLdArg(5, true), bpf.RetA{}), withArgs, 0xdead_beef, 2, []int{0, 1}, 1 << 15},
		{"ip lo and hi", tAsm(t, "ip",
			bpf.LoadAbsolute{Off: 12, Size: 4}, bpf.TAX{},
			bpf.LoadAbsolute{Off: 8, Size: 4}, bpf.ALUOpX{Op: bpf.ALUOpXor}, bpf.RetA{}),
			withArgs, 0x1234_5678 ^ 0x7fff, 5, []int{0, 1, 2, 3, 4}, FieldIP},
		{"ld len", tAsm(t, "len", bpf.LoadExtension{Num: bpf.ExtLen}, bpf.RetA{}), getpid, 64, 2, []int{0, 1}, 0},
		{"ldx len", tAsm(t, "ldxlen"), getpid, 64, 3, []int{0, 1, 2}, 0},
		{"add k", alu(bpf.ALUOpAdd, 0xffffffff, 2), getpid, 1, 3, []int{0, 1, 2}, 0},
		{"sub k", alu(bpf.ALUOpSub, 1, 2), getpid, 0xffffffff, 3, []int{0, 1, 2}, 0},
		{"mul k", alu(bpf.ALUOpMul, 0x10000, 0x10001), getpid, 0x10000, 3, []int{0, 1, 2}, 0},
		{"div k", alu(bpf.ALUOpDiv, 100, 7), getpid, 14, 3, []int{0, 1, 2}, 0},
		{"and k", alu(bpf.ALUOpAnd, 0xff0f, 0x0ff0), getpid, 0x0f00, 3, []int{0, 1, 2}, 0},
		{"or k", alu(bpf.ALUOpOr, 0xf0, 0x0f), getpid, 0xff, 3, []int{0, 1, 2}, 0},
		{"xor k", alu(bpf.ALUOpXor, 0xff, 0x0f), getpid, 0xf0, 3, []int{0, 1, 2}, 0},
		{"lsh k", alu(bpf.ALUOpShiftLeft, 0x80000001, 1), getpid, 2, 3, []int{0, 1, 2}, 0},
		{"rsh k", alu(bpf.ALUOpShiftRight, 0x80000000, 31), getpid, 1, 3, []int{0, 1, 2}, 0},
		{"add x", aluX(bpf.ALUOpAdd, 5, 6), getpid, 11, 4, []int{0, 1, 2, 3}, 0},
		{"sub x", aluX(bpf.ALUOpSub, 5, 6), getpid, 0xffffffff, 4, []int{0, 1, 2, 3}, 0},
		{"mul x", aluX(bpf.ALUOpMul, 5, 6), getpid, 30, 4, []int{0, 1, 2, 3}, 0},
		{"div x", aluX(bpf.ALUOpDiv, 30, 4), getpid, 7, 4, []int{0, 1, 2, 3}, 0},
		{"div x by 0 returns 0", aluX(bpf.ALUOpDiv, 30, 0), getpid, 0, 3, []int{0, 1, 2}, 0},
		{"and x", aluX(bpf.ALUOpAnd, 6, 3), getpid, 2, 4, []int{0, 1, 2, 3}, 0},
		{"or x", aluX(bpf.ALUOpOr, 6, 3), getpid, 7, 4, []int{0, 1, 2, 3}, 0},
		{"xor x", aluX(bpf.ALUOpXor, 6, 3), getpid, 5, 4, []int{0, 1, 2, 3}, 0},
		{"lsh x", aluX(bpf.ALUOpShiftLeft, 1, 4), getpid, 16, 4, []int{0, 1, 2, 3}, 0},
		{"lsh x masks 31", aluX(bpf.ALUOpShiftLeft, 1, 33), getpid, 2, 4, []int{0, 1, 2, 3}, 0},
		{"rsh x masks 31", aluX(bpf.ALUOpShiftRight, 8, 35), getpid, 1, 4, []int{0, 1, 2, 3}, 0},
		{"neg", tAsm(t, "neg", bpf.LoadConstant{Dst: bpf.RegA, Val: 1}, bpf.NegateA{}, bpf.RetA{}), getpid, 0xffffffff, 3, []int{0, 1, 2}, 0},
		{"tax txa", tAsm(t, "tx", bpf.LoadConstant{Dst: bpf.RegA, Val: 9}, bpf.TAX{}, bpf.LoadConstant{Dst: bpf.RegA, Val: 1}, bpf.TXA{}, bpf.RetA{}), getpid, 9, 5, []int{0, 1, 2, 3, 4}, 0},
		{"scratch", tAsm(t, "m",
			bpf.LoadConstant{Dst: bpf.RegA, Val: 5}, bpf.StoreScratch{Src: bpf.RegA, N: 15},
			bpf.LoadConstant{Dst: bpf.RegX, Val: 6}, bpf.StoreScratch{Src: bpf.RegX, N: 0},
			bpf.LoadScratch{Dst: bpf.RegX, N: 15}, bpf.LoadScratch{Dst: bpf.RegA, N: 0},
			bpf.ALUOpX{Op: bpf.ALUOpSub}, bpf.RetA{}),
			getpid, 1, 8, []int{0, 1, 2, 3, 4, 5, 6, 7}, 0},
		{"ja", tAsm(t, "ja", bpf.Jump{Skip: 1}, tRet(ActionKillThread, 0), tRet(ActionLog, 0)), getpid, uint32(ActionLog), 2, []int{0, 2}, 0},
		{"jgt k false at equal", tAsm(t, "jgt", tLdNr(), bpf.JumpIf{Cond: bpf.JumpGreaterThan, Val: 39, SkipTrue: 1}, tRet(ActionErrno, 1), tRet(ActionErrno, 2)), getpid, uint32(ActionErrno) | 1, 3, []int{0, 1, 2}, FieldNr},
		{"jge k true at equal", tAsm(t, "jge", tLdNr(), bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: 39, SkipTrue: 1}, tRet(ActionErrno, 1), tRet(ActionErrno, 2)), getpid, uint32(ActionErrno) | 2, 3, []int{0, 1, 3}, FieldNr},
		{"jset k", tAsm(t, "jset", tLdNr(), bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: 0x40000000, SkipTrue: 1}, tRet(ActionErrno, 1), tRet(ActionErrno, 2)), ArchX32.Data(0), uint32(ActionErrno) | 2, 3, []int{0, 1, 3}, FieldNr},
		{"jeq x", tAsm(t, "jeqx", bpf.LoadConstant{Dst: bpf.RegX, Val: 39}, tLdNr(), bpf.JumpIfX{Cond: bpf.JumpEqual, SkipTrue: 1}, tRet(ActionErrno, 1), tRet(ActionErrno, 2)), getpid, uint32(ActionErrno) | 2, 4, []int{0, 1, 2, 4}, FieldNr},
		{"jgt x", tAsm(t, "jgtx", bpf.LoadConstant{Dst: bpf.RegX, Val: 38}, tLdNr(), bpf.JumpIfX{Cond: bpf.JumpGreaterThan, SkipTrue: 1}, tRet(ActionErrno, 1), tRet(ActionErrno, 2)), getpid, uint32(ActionErrno) | 2, 4, []int{0, 1, 2, 4}, FieldNr},
		{"jge x", tAsm(t, "jgex", bpf.LoadConstant{Dst: bpf.RegX, Val: 40}, tLdNr(), bpf.JumpIfX{Cond: bpf.JumpGreaterOrEqual, SkipTrue: 1}, tRet(ActionErrno, 1), tRet(ActionErrno, 2)), getpid, uint32(ActionErrno) | 1, 4, []int{0, 1, 2, 3}, FieldNr},
		{"jset x", tAsm(t, "jsetx", bpf.LoadConstant{Dst: bpf.RegX, Val: 6}, tLdNr(), bpf.JumpIfX{Cond: bpf.JumpBitsSet, SkipTrue: 1}, tRet(ActionErrno, 1), tRet(ActionErrno, 2)), ArchX86_64.Data(1), uint32(ActionErrno) | 1, 4, []int{0, 1, 2, 3}, FieldNr},
	}
	// x/net/bpf has no LoadExtension for X; build ldx len by hand.
	for i := range tests {
		if tests[i].name == "ldx len" {
			tests[i].p = &Program{Name: "ldxlen", Insns: []bpf.RawInstruction{
				tRaw(Ldx|W|Len, 0, 0, 0), tRaw(Misc|Txa, 0, 0, 0), tRaw(Ret|A, 0, 0, 0),
			}}
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Emulate(tt.p, tt.d)
			if err != nil {
				t.Fatalf("Emulate() error = %v", err)
			}
			if got.Ret != tt.wantRet {
				t.Errorf("Ret = %#x, want %#x", got.Ret, tt.wantRet)
			}
			wantAct, wantData := SplitRet(tt.wantRet)
			if got.Action != wantAct || got.Data != wantData {
				t.Errorf("Action, Data = %v, %d, want %v, %d", got.Action, got.Data, wantAct, wantData)
			}
			if got.Executed != tt.wantExec {
				t.Errorf("Executed = %d, want %d", got.Executed, tt.wantExec)
			}
			if !slices.Equal(got.Path, tt.wantPath) {
				t.Errorf("Path = %v, want %v", got.Path, tt.wantPath)
			}
			if got.Read != tt.wantRead {
				t.Errorf("Read = %v, want %v", got.Read, tt.wantRead)
			}
		})
	}
}

func TestEmulateRejectsInvalid(t *testing.T) {
	tests := []struct {
		name string
		p    *Program
	}{
		{"division by zero", &Program{Name: "div0", Insns: []bpf.RawInstruction{tRaw(Alu|Div|K, 0, 0, 0), tRaw(Ret|A, 0, 0, 0)}}},
		{"load out of range", &Program{Name: "ld64", Insns: []bpf.RawInstruction{tRaw(Ld|W|Abs, 0, 0, 64), tRaw(Ret|A, 0, 0, 0)}}},
		{"load misaligned", &Program{Name: "ld6", Insns: []bpf.RawInstruction{tRaw(Ld|W|Abs, 0, 0, 6), tRaw(Ret|A, 0, 0, 0)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Emulate(tt.p, ArchX86_64.Data(0))
			if !errors.Is(err, ErrInvalidProgram) {
				t.Fatalf("Emulate() error = %v, want ErrInvalidProgram", err)
			}
			if _, err := EmulateStack(Stack{tt.p}, ArchX86_64.Data(0)); !errors.Is(err, ErrInvalidProgram) {
				t.Fatalf("EmulateStack() error = %v, want ErrInvalidProgram", err)
			}
		})
	}
}

func TestSeccompDataBytes(t *testing.T) {
	d := SeccompData{Nr: 0x01020304, Arch: AuditArchX86_64, InstructionPointer: 0x1122334455667788}
	d.Args[0] = 0xa1a2a3a4b1b2b3b4
	d.Args[5] = 0x0102030405060708
	b := d.Bytes()
	if len(b) != SeccompDataSize {
		t.Fatalf("len(Bytes()) = %d, want %d", len(b), SeccompDataSize)
	}
	want := map[int][]byte{
		0:  {0x04, 0x03, 0x02, 0x01},
		4:  {0x3e, 0x00, 0x00, 0xc0},
		8:  {0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11},
		16: {0xb4, 0xb3, 0xb2, 0xb1, 0xa4, 0xa3, 0xa2, 0xa1},
		56: {0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01},
	}
	for off, w := range want {
		if got := b[off : off+len(w)]; !slices.Equal(got, w) {
			t.Errorf("Bytes()[%d:%d] = % x, want % x", off, off+len(w), got, w)
		}
	}
	for off := uint32(0); off < SeccompDataSize; off += 4 {
		le := uint32(b[off]) | uint32(b[off+1])<<8 | uint32(b[off+2])<<16 | uint32(b[off+3])<<24
		if got := d.Word(off); got != le {
			t.Errorf("Word(%d) = %#x, want %#x (little-endian bytes)", off, got, le)
		}
	}
}

func TestEmulateStack(t *testing.T) {
	allowAll := tAsm(t, "allow", tRet(ActionAllow, 0))
	allowData := tAsm(t, "allow-data", tRet(ActionAllow, 7))
	errno1 := tAsm(t, "errno1", tRet(ActionErrno, 1))
	errno2 := tAsm(t, "errno2", tRet(ActionErrno, 2))
	errnoBig := tAsm(t, "errno-big", tRet(ActionErrno, 0xffff))
	killProc := tAsm(t, "kill-process", tRet(ActionKillProcess, 0))
	killThread := tAsm(t, "kill-thread", tRet(ActionKillThread, 0))
	trap := tAsm(t, "trap", tRet(ActionTrap, 0))
	trace := tAsm(t, "trace", tRet(ActionTrace, 9))
	unknown := tAsm(t, "unknown", bpf.RetConstant{Val: 0x00010005})
	logp := tAsm(t, "log", tRet(ActionLog, 0))
	tests := []struct {
		name        string
		s           Stack
		wantRet     uint32
		wantAction  Action
		wantDecider int
		wantErrno   int // -1: no errno
	}{
		{"empty stack allows", nil, uint32(ActionAllow), ActionAllow, -1, -1},
		{"all allow keeps data 0", Stack{allowData, allowData}, uint32(ActionAllow), ActionAllow, -1, -1},
		{"errno beats allow", Stack{allowAll, errno1, allowAll}, uint32(ActionErrno) | 1, ActionErrno, 1, 1},
		{"kill_process beats errno", Stack{errno1, killProc, allowAll}, uint32(ActionKillProcess), ActionKillProcess, 1, -1},
		{"kill_process beats kill_thread", Stack{killThread, killProc}, uint32(ActionKillProcess), ActionKillProcess, 1, -1},
		{"kill_thread beats trap", Stack{trap, killThread}, uint32(ActionKillThread), ActionKillThread, 1, -1},
		{"trap beats errno", Stack{errno1, trap}, uint32(ActionTrap), ActionTrap, 1, -1},
		{"log loses to errno", Stack{logp, errno2}, uint32(ActionErrno) | 2, ActionErrno, 1, 2},
		{"tie goes to newest", Stack{errno1, errno2}, uint32(ActionErrno) | 2, ActionErrno, 1, 2},
		{"tie goes to newest, reversed", Stack{errno2, errno1}, uint32(ActionErrno) | 1, ActionErrno, 1, 1},
		{"tie among three", Stack{errno1, errno2, errno1, allowAll}, uint32(ActionErrno) | 1, ActionErrno, 2, 1},
		{"errno capped at MAX_ERRNO", Stack{errnoBig}, uint32(ActionErrno) | 0xffff, ActionErrno, 0, MaxErrno},
		{"trace without tracer is ENOSYS", Stack{trace}, uint32(ActionTrace) | 9, ActionTrace, 0, ENOSYS},
		{"unknown action kills the process", Stack{errno1, unknown}, 0x00010005, ActionKillProcess, 1, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := EmulateStack(tt.s, ArchX86_64.Data(39))
			if err != nil {
				t.Fatal(err)
			}
			if got.Ret != tt.wantRet || got.Action != tt.wantAction || got.Decider != tt.wantDecider {
				t.Errorf("EmulateStack() = ret %#x action %v decider %d, want ret %#x action %v decider %d",
					got.Ret, got.Action, got.Decider, tt.wantRet, tt.wantAction, tt.wantDecider)
			}
			if got.Instructions != len(tt.s) {
				t.Errorf("Instructions = %d, want %d", got.Instructions, len(tt.s))
			}
			if len(got.PerFilter) != len(tt.s) {
				t.Fatalf("len(PerFilter) = %d, want %d", len(got.PerFilter), len(tt.s))
			}
			for i, p := range tt.s {
				if want := p.Insns[0].K; got.PerFilter[i].Ret != want {
					t.Errorf("PerFilter[%d].Ret = %#x, want %#x", i, got.PerFilter[i].Ret, want)
				}
			}
			e, ok := got.Errno()
			if tt.wantErrno < 0 {
				if ok {
					t.Errorf("Errno() = %d, true; want false", e)
				}
			} else if !ok || e != tt.wantErrno {
				t.Errorf("Errno() = %d, %v; want %d, true", e, ok, tt.wantErrno)
			}
		})
	}
}

func TestFieldSet(t *testing.T) {
	tests := []struct {
		f    FieldSet
		want string
	}{
		{0, "-"},
		{FieldNr | FieldArch, "nr,arch"},
		{FieldIP, "ip lo,ip hi"},
		{1<<4 | 1<<15, "args[0] lo,args[5] hi"},
	}
	for _, tt := range tests {
		if got := tt.f.String(); got != tt.want {
			t.Errorf("FieldSet(%#x).String() = %q, want %q", uint16(tt.f), got, tt.want)
		}
	}
	if !(FieldNr | FieldArch).Only(FieldNr|FieldArch) || (FieldNr | 1<<4).Only(FieldNr|FieldArch) {
		t.Error("Only() wrong")
	}
	if !FieldArgs.Has(16) || FieldArgs.Has(8) || FieldArgs.Has(64) {
		t.Error("Has() wrong")
	}
}
