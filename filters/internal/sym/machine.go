package sym

import (
	"errors"
	"fmt"

	"golang.org/x/net/bpf"
)

// Opcode bits of struct sock_filter.code (include/uapi/linux/bpf_common.h,
// include/uapi/linux/filter.h).
const (
	clsLD   = 0x00
	clsLDX  = 0x01
	clsST   = 0x02
	clsSTX  = 0x03
	clsALU  = 0x04
	clsJMP  = 0x05
	clsRET  = 0x06
	clsMISC = 0x07

	modeIMM = 0x00
	modeABS = 0x20
	modeMEM = 0x60
	modeLEN = 0x80

	srcX = 0x08
	retA = 0x10

	aluADD = 0x00
	aluSUB = 0x10
	aluMUL = 0x20
	aluDIV = 0x30
	aluOR  = 0x40
	aluAND = 0x50
	aluLSH = 0x60
	aluRSH = 0x70
	aluNEG = 0x80
	aluMOD = 0x90
	aluXOR = 0xa0

	jmpJA   = 0x00
	jmpJEQ  = 0x10
	jmpJGT  = 0x20
	jmpJGE  = 0x30
	jmpJSET = 0x40

	miscTAX = 0x00
	miscTXA = 0x80

	memWords = 16 // BPF_MEMWORDS
	dataSize = 64 // sizeof(struct seccomp_data)
)

// ErrCannotReason is returned (wrapped in an *UnsupportedError) when a
// program does something the engine cannot follow exactly, e.g. arithmetic
// other than and/or with a constant on a loaded word, or `ret a` of a loaded
// word.
var ErrCannotReason = errors.New("cannot reason about instruction exactly")

// UnsupportedError names the instruction the engine cannot follow.
type UnsupportedError struct {
	// PC is the instruction index.
	PC int
	// Insn is the instruction.
	Insn bpf.RawInstruction
	// Reason says what is not modelled.
	Reason string
}

// Error names the line, the instruction and what is not modelled.
func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("line %d (op %#04x k %#x): %s", e.PC, e.Insn.Op, e.Insn.K, e.Reason)
}

// Unwrap returns ErrCannotReason.
func (e *UnsupportedError) Unwrap() error { return ErrCannotReason }

// Value is what a register or scratch cell holds: a constant C, or
// ((word Word) & Mask) | Or with Mask & Or == 0.
type Value struct {
	Const    bool
	C        uint32
	Word     uint8
	Mask, Or uint32
}

func constV(c uint32) Value { return Value{Const: true, C: c} }

// Thread is one program's symbolic execution state: where it is and what
// its registers and scratch memory hold. Threads are values; copying one
// forks it.
type Thread struct {
	Insns []bpf.RawInstruction
	PC    int
	A, X  Value
	Mem   [memWords]Value
	// Steps counts the instructions run so far, the final ret included.
	Steps int
}

// NewThread starts insns at PC 0 with A, X and scratch memory 0 (the
// kernel clears A and X: net/core/filter.c: bpf_convert_filter; scratch
// reads before a store are rejected by check_load_and_stores, so 0 is
// never observed). The caller must have validated insns (filters.Validate).
func NewThread(insns []bpf.RawInstruction) Thread {
	t := Thread{Insns: insns}
	t.A, t.X = constV(0), constV(0)
	for i := range t.Mem {
		t.Mem[i] = constV(0)
	}
	return t
}

// EventKind says why Run stopped.
type EventKind uint8

// Events of Run.
const (
	// EvRet: the program returned Event.Ret.
	EvRet EventKind = iota
	// EvBranch: a jump whose condition Event.Pred both holds and fails for
	// some inputs of the domain; Event.True/False continue each way.
	EvBranch
	// EvBlock: a jump on a word the caller asked to stop at (Event.Pred
	// and the thread stopped at that jump, not yet taken).
	EvBlock
)

// Event is Run's result.
type Event struct {
	Kind        EventKind
	Ret         uint32
	Pred        Pred
	True, False Thread
	// TrueDom, FalseDom are the domain restricted each way (EvBranch).
	TrueDom, FalseDom Domain
}

// Run executes t in domain d until it returns, reaches a jump whose
// condition the domain does not decide (EvBranch, with both continuations),
// or reaches a jump on a word for which block returns true (EvBlock; block
// may be nil). Jumps the domain decides are followed without stopping.
// Errors are *UnsupportedError values (ErrCannotReason) or ErrBudget.
func (t Thread) Run(d Domain, block func(Pred) bool) (Event, Domain, error) {
	for {
		if t.PC >= len(t.Insns) {
			return Event{}, d, &UnsupportedError{PC: t.PC, Reason: "runs off the end (invalid program)"}
		}
		in := t.Insns[t.PC]
		t.Steps++
		next := t.PC + 1
		fail := func(reason string) (Event, Domain, error) {
			return Event{}, d, &UnsupportedError{PC: t.PC, Insn: in, Reason: reason}
		}
		switch in.Op & 0x07 {
		case clsLD, clsLDX:
			var v Value
			switch in.Op & 0xe0 {
			case modeIMM:
				v = constV(in.K)
			case modeLEN:
				v = constV(dataSize)
			case modeABS:
				if in.Op&0x18 != 0 || in.K%4 != 0 || in.K >= dataSize || in.Op&0x07 != clsLD {
					return fail("load other than an aligned 32-bit ld [k] of seccomp_data")
				}
				v = Value{Word: uint8(in.K / 4), Mask: 0xffffffff}
			case modeMEM:
				if in.K >= memWords {
					return fail("scratch cell out of range")
				}
				v = t.Mem[in.K]
			default:
				return fail("unsupported load mode")
			}
			if in.Op&0x07 == clsLD {
				t.A = v
			} else {
				t.X = v
			}
		case clsST:
			t.Mem[in.K%memWords] = t.A
		case clsSTX:
			t.Mem[in.K%memWords] = t.X
		case clsMISC:
			if in.Op&0xf8 == miscTXA {
				t.A = t.X
			} else {
				t.X = t.A
			}
		case clsALU:
			op := in.Op & 0xf0
			operand := constV(in.K)
			if in.Op&srcX != 0 {
				operand = t.X
			}
			if op == aluNEG {
				operand = constV(0)
			}
			if t.A.Const && operand.Const {
				a, k := t.A.C, operand.C
				switch op {
				case aluADD:
					a += k
				case aluSUB:
					a -= k
				case aluMUL:
					a *= k
				case aluDIV:
					if k == 0 {
						// bpf_convert_filter: division by X = 0 returns 0.
						return Event{Kind: EvRet, Ret: 0}, d, nil
					}
					a /= k
				case aluMOD:
					if k == 0 {
						return Event{Kind: EvRet, Ret: 0}, d, nil
					}
					a %= k
				case aluOR:
					a |= k
				case aluAND:
					a &= k
				case aluLSH:
					a <<= k & 31
				case aluRSH:
					a >>= k & 31
				case aluNEG:
					a = -a
				case aluXOR:
					a ^= k
				default:
					return fail("unknown ALU operation")
				}
				t.A = constV(a)
				break
			}
			if !operand.Const {
				return fail("ALU operation with a loaded word in X")
			}
			switch op {
			case aluAND:
				t.A.Mask &= operand.C
				t.A.Or &= operand.C
			case aluOR:
				t.A.Or |= operand.C
				t.A.Mask &^= operand.C
			default:
				return fail("arithmetic other than and/or with a constant on a loaded word")
			}
			if t.A.Mask == 0 {
				t.A = constV(t.A.Or)
			}
		case clsRET:
			switch in.Op & 0x18 {
			case 0: // ret #k
				return Event{Kind: EvRet, Ret: in.K}, d, nil
			case retA:
				if !t.A.Const {
					return fail("ret a of a value derived from seccomp_data")
				}
				return Event{Kind: EvRet, Ret: t.A.C}, d, nil
			}
			return fail("unsupported ret")
		case clsJMP:
			op := in.Op & 0xf0
			if op == jmpJA {
				next = t.PC + 1 + int(in.K)
				break
			}
			var sop Op
			switch op {
			case jmpJEQ:
				sop = OpEq
			case jmpJGT:
				sop = OpGt
			case jmpJGE:
				sop = OpGe
			case jmpJSET:
				sop = OpSet
			default:
				return fail("unknown jump")
			}
			tgtT, tgtF := t.PC+1+int(in.Jt), t.PC+1+int(in.Jf)
			a, b := t.A, constV(in.K)
			if in.Op&srcX != 0 {
				b = t.X
			}
			var res, decided bool
			var p Pred
			switch {
			case a.Const && b.Const:
				res, decided = evalOp(sop, a.C, b.C), true
			case !a.Const && b.Const:
				p = Pred{Word: a.Word, Mask: a.Mask, Or: a.Or, Op: sop, K: b.C}
			case a.Const && !b.Const:
				// Swap sides: k == X, k & X are symmetric; k > X is
				// !(X >= k); k >= X is !(X > k).
				p = Pred{Word: b.Word, Mask: b.Mask, Or: b.Or, Op: sop, K: a.C}
				switch sop {
				case OpGt:
					p.Op = OpGe
					tgtT, tgtF = tgtF, tgtT
				case OpGe:
					p.Op = OpGt
					tgtT, tgtF = tgtF, tgtT
				}
			default:
				return fail("comparison of two values derived from seccomp_data")
			}
			if !decided {
				if block != nil && block(p) {
					t.Steps--
					return Event{Kind: EvBlock, Pred: p, True: t}, d, nil
				}
				dt, okT, err := d.Assume(p, true)
				if err != nil {
					return fail(err.Error())
				}
				df, okF, err := d.Assume(p, false)
				if err != nil {
					return fail(err.Error())
				}
				switch {
				case okT && okF:
					tt, tf := t, t
					tt.PC, tf.PC = tgtT, tgtF
					return Event{Kind: EvBranch, Pred: p, True: tt, False: tf, TrueDom: dt, FalseDom: df}, d, nil
				case !okT && !okF:
					return Event{}, d, errors.New("sym: empty domain")
				}
				// The domain decides the jump: d already lies on one side.
				res = okT
			}
			if res {
				next = tgtT
			} else {
				next = tgtF
			}
		}
		t.PC = next
	}
}

// evalOp evaluates a jump condition on constants.
func evalOp(op Op, a, k uint32) bool {
	switch op {
	case OpEq:
		return a == k
	case OpGt:
		return a > k
	case OpGe:
		return a >= k
	}
	return a&k != 0
}

// Eval evaluates p on concrete seccomp_data words.
func (p Pred) Eval(words *[Words]uint32) bool {
	return evalOp(p.Op, words[p.Word]&p.Mask|p.Or, p.K)
}
