package filters

// Opcode bits of struct sock_filter.code, the 16-bit operation of a classic
// BPF instruction (include/uapi/linux/filter.h, include/uapi/linux/bpf_common.h):
//
//	struct sock_filter {
//		__u16 code;  // opcode: class | size/op | mode/src, see below
//		__u8  jt;    // jump offset if true
//		__u8  jf;    // jump offset if false
//		__u32 k;     // generic field: constant, offset, return value
//	};
//
// The low three bits are the instruction class (BPF_CLASS(code), mask
// ClassMask). For loads (Ld, Ldx) bits 3-4 are the size (BPF_SIZE, mask
// SizeMask) and bits 5-7 the addressing mode (BPF_MODE, mask ModeMask).
// For Alu and Jmp bits 4-7 are the operation (BPF_OP, mask OpMask) and
// bit 3 the operand source (BPF_SRC, mask SrcMask): K the constant k, X the
// register X. For Ret bits 3-4 choose the return value (BPF_RVAL): K or A.
// For Misc bits 3-7 are Tax or Txa (BPF_MISCOP).
//
// Seccomp accepts a subset of them (kernel/seccomp.c: seccomp_check_filter;
// Validate lists which); golang.org/x/net/bpf assembles and disassembles all.
// The constants are uint16, the type of bpf.RawInstruction.Op, so
// `Jmp | Jeq | K` is an opcode as it is.
const (
	// Instruction classes (BPF_CLASS).
	Ld   uint16 = 0x00 // BPF_LD: load into A
	Ldx  uint16 = 0x01 // BPF_LDX: load into X
	St   uint16 = 0x02 // BPF_ST: store A in scratch memory M[k]
	Stx  uint16 = 0x03 // BPF_STX: store X in scratch memory M[k]
	Alu  uint16 = 0x04 // BPF_ALU: A = A op (k or X)
	Jmp  uint16 = 0x05 // BPF_JMP: jump on A op (k or X)
	Ret  uint16 = 0x06 // BPF_RET: end the program, returning k or A
	Misc uint16 = 0x07 // BPF_MISC: register transfers

	// Load sizes (BPF_SIZE); seccomp allows only W.
	W uint16 = 0x00 // BPF_W: 32 bits
	H uint16 = 0x08 // BPF_H: 16 bits
	B uint16 = 0x10 // BPF_B: 8 bits

	// Load modes (BPF_MODE).
	Imm uint16 = 0x00 // BPF_IMM: the constant k
	Abs uint16 = 0x20 // BPF_ABS: the data word at offset k (seccomp_data)
	Ind uint16 = 0x40 // BPF_IND: the data at offset X+k (not in seccomp)
	Mem uint16 = 0x60 // BPF_MEM: scratch word M[k]
	Len uint16 = 0x80 // BPF_LEN: the data length (64 for seccomp_data)
	Msh uint16 = 0xa0 // BPF_MSH: IP header length (not in seccomp)

	// ALU operations (BPF_OP).
	Add uint16 = 0x00 // BPF_ADD
	Sub uint16 = 0x10 // BPF_SUB
	Mul uint16 = 0x20 // BPF_MUL
	Div uint16 = 0x30 // BPF_DIV
	Or  uint16 = 0x40 // BPF_OR
	And uint16 = 0x50 // BPF_AND
	Lsh uint16 = 0x60 // BPF_LSH
	Rsh uint16 = 0x70 // BPF_RSH
	Neg uint16 = 0x80 // BPF_NEG
	Mod uint16 = 0x90 // BPF_MOD (not in seccomp)
	Xor uint16 = 0xa0 // BPF_XOR

	// Jump operations (BPF_OP).
	Ja   uint16 = 0x00 // BPF_JA: always, by k (32-bit offset)
	Jeq  uint16 = 0x10 // BPF_JEQ: A == operand
	Jgt  uint16 = 0x20 // BPF_JGT: A > operand, unsigned
	Jge  uint16 = 0x30 // BPF_JGE: A >= operand, unsigned
	Jset uint16 = 0x40 // BPF_JSET: A & operand != 0

	// Operand source (BPF_SRC) for Alu and Jmp; return value (BPF_RVAL)
	// for Ret.
	K uint16 = 0x00 // BPF_K: the constant k
	X uint16 = 0x08 // BPF_X: register X
	A uint16 = 0x10 // BPF_A: register A (Ret only)

	// Misc operations (BPF_MISCOP).
	Tax uint16 = 0x00 // BPF_TAX: X = A
	Txa uint16 = 0x80 // BPF_TXA: A = X

	// Field masks.
	ClassMask uint16 = 0x07 // BPF_CLASS
	SizeMask  uint16 = 0x18 // BPF_SIZE
	ModeMask  uint16 = 0xe0 // BPF_MODE
	OpMask    uint16 = 0xf0 // BPF_OP
	SrcMask   uint16 = 0x08 // BPF_SRC
)

// MemWords is BPF_MEMWORDS: the number of 32-bit scratch cells M[0..15]
// (include/uapi/linux/filter.h).
const MemWords = 16

// MaxCondJump is the largest forward offset, in instructions, a
// conditional jump can encode in its 8-bit jt/jf fields (struct
// sock_filter); longer jumps need a Ja, whose k is 32 bits.
const MaxCondJump = 255
