package filters

import (
	"errors"
	"fmt"

	"golang.org/x/net/bpf"
)

// This file is the kernel's validation of a classic BPF program for
// seccomp (kernel/seccomp.c: seccomp_prepare_filter, seccomp_check_filter;
// net/core/filter.c: bpf_check_classic, check_load_and_stores), which also
// decodes the program once for the emulator (emulate.go).

// opKind is the emulator's decoded opcode: one dense value per opcode the
// kernel accepts in a seccomp filter.
type opKind uint8

const (
	opLdAbs opKind = iota
	opLdLen
	opLdxLen
	opLdImm
	opLdxImm
	opLdMem
	opLdxMem
	opSt
	opStx
	opAddK
	opAddX
	opSubK
	opSubX
	opMulK
	opMulX
	opDivK
	opDivX
	opAndK
	opAndX
	opOrK
	opOrX
	opXorK
	opXorX
	opLshK
	opLshX
	opRshK
	opRshX
	opNeg
	opTax
	opTxa
	opJa
	opJeqK
	opJeqX
	opJgtK
	opJgtX
	opJgeK
	opJgeX
	opJsetK
	opJsetX
	opRetK
	opRetA
)

// seccompOps maps every opcode kernel/seccomp.c: seccomp_check_filter
// accepts to its decoded kind. Anything else is rejected.
var seccompOps = map[uint16]opKind{
	Ld | W | Abs:   opLdAbs,
	Ld | W | Len:   opLdLen,
	Ldx | W | Len:  opLdxLen,
	Ld | Imm:       opLdImm,
	Ldx | Imm:      opLdxImm,
	Ld | Mem:       opLdMem,
	Ldx | Mem:      opLdxMem,
	St:             opSt,
	Stx:            opStx,
	Alu | Add | K:  opAddK,
	Alu | Add | X:  opAddX,
	Alu | Sub | K:  opSubK,
	Alu | Sub | X:  opSubX,
	Alu | Mul | K:  opMulK,
	Alu | Mul | X:  opMulX,
	Alu | Div | K:  opDivK,
	Alu | Div | X:  opDivX,
	Alu | And | K:  opAndK,
	Alu | And | X:  opAndX,
	Alu | Or | K:   opOrK,
	Alu | Or | X:   opOrX,
	Alu | Xor | K:  opXorK,
	Alu | Xor | X:  opXorX,
	Alu | Lsh | K:  opLshK,
	Alu | Lsh | X:  opLshX,
	Alu | Rsh | K:  opRshK,
	Alu | Rsh | X:  opRshX,
	Alu | Neg:      opNeg,
	Misc | Tax:     opTax,
	Misc | Txa:     opTxa,
	Jmp | Ja:       opJa,
	Jmp | Jeq | K:  opJeqK,
	Jmp | Jeq | X:  opJeqX,
	Jmp | Jgt | K:  opJgtK,
	Jmp | Jgt | X:  opJgtX,
	Jmp | Jge | K:  opJgeK,
	Jmp | Jge | X:  opJgeX,
	Jmp | Jset | K: opJsetK,
	Jmp | Jset | X: opJsetX,
	Ret | K:        opRetK,
	Ret | A:        opRetA,
}

// classicOnly lists opcodes classic BPF accepts (net/core/filter.c:
// chk_code_allowed) but seccomp filters may not use, with the reason.
var classicOnly = map[uint16]string{
	Ld | 0x08 | Abs:   "16-bit loads (ldh) are not allowed in seccomp filters, only 32-bit BPF_LD|BPF_W|BPF_ABS",
	Ld | 0x10 | Abs:   "8-bit loads (ldb) are not allowed in seccomp filters, only 32-bit BPF_LD|BPF_W|BPF_ABS",
	Ld | W | 0x40:     "indirect loads (BPF_IND) are not allowed in seccomp filters",
	Ld | 0x08 | 0x40:  "indirect loads (BPF_IND) are not allowed in seccomp filters",
	Ld | 0x10 | 0x40:  "indirect loads (BPF_IND) are not allowed in seccomp filters",
	Ldx | 0x10 | 0xa0: "BPF_LDX|BPF_B|BPF_MSH is not allowed in seccomp filters",
	Alu | Mod | K:     "BPF_MOD is not allowed in seccomp filters",
	Alu | Mod | X:     "BPF_MOD is not allowed in seccomp filters",
}

// ErrInvalidProgram is returned, wrapped in a *ValidationError, when a
// program breaks a rule the kernel enforces when a seccomp filter is
// attached; seccomp(2) would fail with EINVAL.
var ErrInvalidProgram = errors.New("invalid seccomp filter")

// ValidationError says which instruction breaks which kernel rule.
type ValidationError struct {
	// PC is the offending instruction's index, or -1 for the whole program
	// (empty or too long).
	PC int
	// Reason says what is wrong and names the kernel check.
	Reason string
}

// Error returns "invalid seccomp filter: pc N: reason".
func (e *ValidationError) Error() string {
	if e.PC < 0 {
		return fmt.Sprintf("%v: %s", ErrInvalidProgram, e.Reason)
	}
	return fmt.Sprintf("%v: pc %d: %s", ErrInvalidProgram, e.PC, e.Reason)
}

// Unwrap returns ErrInvalidProgram.
func (e *ValidationError) Unwrap() error { return ErrInvalidProgram }

// decoded is a validated instruction in decoded form: jt and jf are absolute
// targets (jt alone for ja).
type decoded struct {
	op     opKind
	jt, jf uint16
	k      uint32
}

// Validate checks insns against every rule the kernel applies when a seccomp
// filter is attached, in the order the kernel checks them:
// kernel/seccomp.c: seccomp_prepare_filter (1..BPF_MAXINSNS instructions),
// net/core/filter.c: bpf_check_classic (known opcode, division by a constant
// 0, shift by a constant >= 32, scratch cell < 16, jumps inside the program,
// last instruction a RET), net/core/filter.c: check_load_and_stores (no
// scratch cell read before a store on every path, with the kernel's
// conservative merge at jump targets) and kernel/seccomp.c:
// seccomp_check_filter (only the opcodes seccomp allows; loads only
// BPF_LD|BPF_W|BPF_ABS at a 4-byte aligned offset below 64). Jumps only go
// forward, so with a RET last every path ends in a RET.
//
// It returns nil or a *ValidationError wrapping ErrInvalidProgram.
func Validate(insns []bpf.RawInstruction) error {
	_, err := decodeInsns(insns)
	return err
}

func invalidAt(pc int, format string, args ...any) error {
	return &ValidationError{PC: pc, Reason: fmt.Sprintf(format, args...)}
}

func decodeInsns(insns []bpf.RawInstruction) ([]decoded, error) {
	n := len(insns)
	if n == 0 {
		return nil, invalidAt(-1, "empty program (kernel/seccomp.c: seccomp_prepare_filter wants 1..%d instructions)", MaxInsns)
	}
	if n > MaxInsns {
		return nil, invalidAt(-1, "%d instructions, over BPF_MAXINSNS (%d) (kernel/seccomp.c: seccomp_prepare_filter)", n, MaxInsns)
	}
	out := make([]decoded, n)
	for pc, ins := range insns {
		kd, ok := seccompOps[ins.Op]
		if !ok {
			if why, known := classicOnly[ins.Op]; known {
				return nil, invalidAt(pc, "opcode %#04x: %s (kernel/seccomp.c: seccomp_check_filter)", ins.Op, why)
			}
			return nil, invalidAt(pc, "opcode %#04x is not allowed in a seccomp filter (net/core/filter.c: chk_code_allowed, kernel/seccomp.c: seccomp_check_filter)", ins.Op)
		}
		c := decoded{op: kd, k: ins.K}
		switch kd {
		case opDivK:
			if ins.K == 0 {
				return nil, invalidAt(pc, "division by constant 0 (net/core/filter.c: bpf_check_classic)")
			}
		case opLshK, opRshK:
			if ins.K >= 32 {
				return nil, invalidAt(pc, "shift by constant %d >= 32 (net/core/filter.c: bpf_check_classic)", ins.K)
			}
		case opLdMem, opLdxMem, opSt, opStx:
			if ins.K >= MemWords {
				return nil, invalidAt(pc, "scratch cell M[%d] out of range 0..%d (net/core/filter.c: bpf_check_classic)", ins.K, MemWords-1)
			}
		case opJa:
			if uint64(ins.K) >= uint64(n-pc-1) {
				return nil, invalidAt(pc, "ja %d jumps to pc %d, past the last instruction %d (net/core/filter.c: bpf_check_classic)", ins.K, uint64(pc)+1+uint64(ins.K), n-1)
			}
			c.jt = uint16(pc + 1 + int(ins.K))
		case opJeqK, opJeqX, opJgtK, opJgtX, opJgeK, opJgeX, opJsetK, opJsetX:
			if pc+int(ins.Jt)+1 >= n || pc+int(ins.Jf)+1 >= n {
				return nil, invalidAt(pc, "conditional jump (jt %d, jf %d) leaves the program of %d instructions (net/core/filter.c: bpf_check_classic)", ins.Jt, ins.Jf, n)
			}
			c.jt = uint16(pc + 1 + int(ins.Jt))
			c.jf = uint16(pc + 1 + int(ins.Jf))
		}
		out[pc] = c
	}
	if k := out[n-1].op; k != opRetK && k != opRetA {
		return nil, invalidAt(n-1, "last instruction is not a RET (net/core/filter.c: bpf_check_classic)")
	}
	if err := checkLoadAndStores(out); err != nil {
		return nil, err
	}
	for pc, c := range out {
		if c.op == opLdAbs && (c.k >= SeccompDataSize || c.k&3 != 0) {
			return nil, invalidAt(pc, "ld [%d]: loads must be 4-byte aligned and inside the %d-byte seccomp_data (kernel/seccomp.c: seccomp_check_filter)", c.k, SeccompDataSize)
		}
	}
	return out, nil
}

// checkLoadAndStores reproduces net/core/filter.c: check_load_and_stores:
// walking the program in order, a scratch cell is valid after a store; at
// each jump the valid set flows into the targets (ANDed with what already
// flows there) and the instruction after the jump starts from all-valid,
// restricted by what flows into it.
func checkLoadAndStores(insns []decoded) error {
	masks := make([]uint16, len(insns))
	for i := range masks {
		masks[i] = 0xffff
	}
	var valid uint16
	for pc, c := range insns {
		valid &= masks[pc]
		switch c.op {
		case opSt, opStx:
			valid |= 1 << c.k
		case opLdMem, opLdxMem:
			if valid&(1<<c.k) == 0 {
				return invalidAt(pc, "M[%d] may be read before any store to it (net/core/filter.c: check_load_and_stores)", c.k)
			}
		case opJa:
			masks[c.jt] &= valid
			valid = 0xffff
		case opJeqK, opJeqX, opJgtK, opJgtX, opJgeK, opJgeX, opJsetK, opJsetX:
			masks[c.jt] &= valid
			masks[c.jf] &= valid
			valid = 0xffff
		}
	}
	return nil
}
