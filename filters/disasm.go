package filters

import (
	"fmt"
	"io"
	"strings"

	"golang.org/x/net/bpf"
)

// Line is one disassembled instruction with its seccomp meaning.
type Line struct {
	// PC is the instruction's index, which is also its line number.
	PC int
	// Raw is the instruction as stored.
	Raw bpf.RawInstruction
	// Insn is golang.org/x/net/bpf's decoding of Raw.
	Insn bpf.Instruction
	// Text is the instruction in bpf_asm-like syntax, with seccomp_data
	// fields by name ("ld [nr]"), actions by name ("ret ERRNO(1)") and
	// jump targets as absolute line numbers ("jeq #39 jt 5 jf 6", "ja 11").
	Text string
	// Comment explains constants: the syscall compared after `ld [nr]`,
	// the audit arch compared after `ld [arch]`, the x32 bit; "" if none.
	Comment string
	// Targets are the absolute lines a jump may go to (jt then jf; one for
	// ja); nil for other instructions.
	Targets []int
}

// WordZero etc. describe what the accumulator holds at an instruction, for
// annotating constants: a seccomp_data word index 0..15, or one of these.
const (
	WordZero  int8 = -1 // A is 0, as at program start
	WordOther int8 = -2 // A holds a computed value
	WordMixed int8 = -3 // paths disagree
)

// FlowState is what is known on entry to an instruction (see Flow).
type FlowState struct {
	// Reached is false for an instruction no path reaches.
	Reached bool
	// Word is the seccomp_data word (offset/4, 0..15) the accumulator
	// holds, or WordZero, WordOther or WordMixed.
	Word int8
	// Arch is the ABI an earlier `jeq #AUDIT_ARCH_...` established, or nil.
	Arch *Arch
}

func mergeFlow(dst *FlowState, src FlowState) {
	if !dst.Reached {
		*dst = src
		return
	}
	if dst.Word != src.Word {
		dst.Word = WordMixed
	}
	if dst.Arch != src.Arch {
		dst.Arch = nil
	}
}

// Flow computes, for each instruction of insns, which seccomp_data word the
// accumulator holds and which ABI earlier arch checks established. Jumps
// only go forward, so one pass in order suffices. Out-of-range jump targets
// are ignored (Validate reports them).
func Flow(insns []bpf.RawInstruction) []FlowState {
	st := make([]FlowState, len(insns))
	if len(insns) == 0 {
		return st
	}
	st[0] = FlowState{Reached: true, Word: WordZero}
	push := func(t int, s FlowState) {
		if t >= 0 && t < len(st) {
			mergeFlow(&st[t], s)
		}
	}
	for pc, ri := range insns {
		in := st[pc]
		if !in.Reached {
			continue
		}
		out := in
		cls := ri.Op & ClassMask
		switch {
		case ri.Op == Ld|W|Abs:
			out.Word = int8(ri.K / 4)
			if ri.K >= SeccompDataSize || ri.K&3 != 0 {
				out.Word = WordOther
			}
		case cls == Ld || cls == Alu || ri.Op == Misc|Txa:
			out.Word = WordOther
		case cls == Ret:
			continue
		case ri.Op == Jmp|Ja:
			push(pc+1+int(ri.K), out)
			continue
		case isCondJump(ri.Op):
			tOut := out
			if ri.Op == Jmp|Jeq|K && in.Word == OffsetArch/4 {
				tOut.Arch = archByAudit(ri.K)
			}
			push(pc+1+int(ri.Jt), tOut)
			push(pc+1+int(ri.Jf), out)
			continue
		}
		push(pc+1, out)
	}
	return st
}

// Disassemble returns p's instructions with seccomp meaning added. Syscall
// numbers compared after `ld [nr]` are named from the ABI an earlier arch
// check established, else from arch (ArchX86_64 when nil). It works on
// invalid programs too, naming what it can.
func Disassemble(p *Program, arch *Arch) []Line {
	if arch == nil {
		arch = ArchX86_64
	}
	st := Flow(p.Insns)
	lines := make([]Line, len(p.Insns))
	for pc, ri := range p.Insns {
		l := Line{PC: pc, Raw: ri, Insn: ri.Disassemble()}
		l.Text = InstructionText(ri, pc)
		condJump := isCondJump(ri.Op)
		switch {
		case ri.Op == Jmp|Ja:
			l.Targets = []int{pc + 1 + int(ri.K)}
		case condJump:
			l.Targets = []int{pc + 1 + int(ri.Jt), pc + 1 + int(ri.Jf)}
		}
		if st[pc].Reached && condJump && ri.Op&X == 0 {
			a := arch
			if st[pc].Arch != nil {
				a = st[pc].Arch
			}
			l.Comment = constComment(st[pc].Word, ri.K, a)
			if a != arch && l.Comment != "" && st[pc].Word == OffsetNr/4 {
				l.Comment += " (" + a.Name + ")"
			}
		}
		if !st[pc].Reached {
			l.Comment = "unreachable"
		}
		lines[pc] = l
	}
	return lines
}

// isCondJump reports whether op is one of the conditional jumps seccomp
// accepts (jeq, jgt, jge, jset with K or X).
func isCondJump(op uint16) bool {
	switch op &^ X {
	case Jmp | Jeq, Jmp | Jgt, Jmp | Jge, Jmp | Jset:
		return true
	}
	return false
}

// constComment names constant k compared against the seccomp_data word
// held in A.
func constComment(word int8, k uint32, a *Arch) string {
	switch word {
	case OffsetNr / 4:
		if k == X32SyscallBit {
			return "x32 syscall bit (__X32_SYSCALL_BIT)"
		}
		if a == ArchX86_64 && k&X32SyscallBit != 0 {
			if name := ArchX32.SyscallName(int(k &^ X32SyscallBit)); name != "" {
				return name + " (x32)"
			}
			return ""
		}
		return a.SyscallName(int(k))
	case OffsetArch / 4:
		return auditArchName(k)
	}
	return ""
}

// RetText names a filter return value: "ALLOW", "ERRNO(1)", "TRACE(5)",
// "KILL_PROCESS", or "0x00010005 (unknown action: the kernel kills the
// process)". Data is shown only where the action uses it or is non-zero.
func RetText(ret uint32) string {
	a, data := SplitRet(ret)
	if !a.Known() {
		return fmt.Sprintf("%#08x (unknown action: the kernel kills the process)", ret)
	}
	name := strings.TrimPrefix(a.KernelName(), "SECCOMP_RET_")
	if data != 0 || a == ActionErrno || a == ActionTrace {
		return fmt.Sprintf("%s(%d)", name, data)
	}
	return name
}

// VerdictText formats a stack's winning return value as the kernel acts on
// it: like RetText, except that SECCOMP_RET_ERRNO data above MaxErrno is
// shown as the errno the syscall gets, "ERRNO(4095)" (kernel/seccomp.c:
// __seccomp_filter caps it: "if (data > MAX_ERRNO) data = MAX_ERRNO").
// The disassembly and per-filter listings (RetText) keep the filter's raw
// value; ErrnoCapped says when the two differ.
func VerdictText(ret uint32) string {
	if ErrnoCapped(ret) {
		return fmt.Sprintf("ERRNO(%d)", MaxErrno)
	}
	return RetText(ret)
}

// ErrnoCapped reports whether ret is SECCOMP_RET_ERRNO with data above
// MaxErrno, which the kernel returns as MaxErrno (kernel/seccomp.c:
// __seccomp_filter).
func ErrnoCapped(ret uint32) bool {
	a, data := SplitRet(ret)
	return a == ActionErrno && int(data) > MaxErrno
}

// InstructionText formats one instruction: golang.org/x/net/bpf's String for most,
// with seccomp_data field names for loads, action names for RET K, and
// absolute targets for jumps.
func InstructionText(ri bpf.RawInstruction, pc int) string {
	switch {
	case ri.Op == Ld|W|Abs:
		return "ld [" + FieldName(ri.K) + "]"
	case ri.Op == Ret|K:
		return "ret " + RetText(ri.K)
	case ri.Op == Ret|A:
		return "ret a"
	case ri.Op == Ld|W|Len:
		return "ld #len"
	case ri.Op == Ldx|W|Len:
		return "ldx #len"
	case ri.Op == Jmp|Ja:
		return fmt.Sprintf("ja %d", pc+1+int(ri.K))
	case ri.Op&ClassMask == Jmp:
		var name string
		switch ri.Op & OpMask {
		case Jeq:
			name = "jeq"
		case Jgt:
			name = "jgt"
		case Jge:
			name = "jge"
		case Jset:
			name = "jset"
		default:
			return fmt.Sprintf("unknown opcode %#04x jt %d jf %d k %#x", ri.Op, ri.Jt, ri.Jf, ri.K)
		}
		operand := "x"
		if ri.Op&X == 0 {
			operand = constText(ri.K)
		}
		return fmt.Sprintf("%s %s jt %d jf %d", name, operand, pc+1+int(ri.Jt), pc+1+int(ri.Jf))
	}
	ins := ri.Disassemble()
	if r, ok := ins.(bpf.RawInstruction); ok {
		return fmt.Sprintf("unknown opcode %#04x jt %d jf %d k %#x", r.Op, r.Jt, r.Jf, r.K)
	}
	if s, ok := ins.(fmt.Stringer); ok {
		return s.String()
	}
	return fmt.Sprintf("%#v", ins)
}

// constText shows small constants in decimal and large ones (audit arch
// values, bit masks) in hex.
func constText(k uint32) string {
	if k < 0x10000 {
		return fmt.Sprintf("#%d", k)
	}
	return fmt.Sprintf("#%#x", k)
}

// FormatText writes p as text for people: a header, then one line per
// instruction with its line number, the instruction (see Line.Text) and a
// comment naming constants. Syscall names come from ArchX86_64 unless an
// arch check in the program establishes another ABI. It returns the first
// write error.
func FormatText(w io.Writer, p *Program) error {
	var b strings.Builder
	name := p.Name
	if name == "" {
		name = "filter"
	}
	fmt.Fprintf(&b, "; %s: %d instructions, sha256 %.16s\n", name, p.Len(), p.SHA256())
	if p.CacheDefeated {
		b.WriteString("; line 0 defeats the kernel's action cache (ld [ip lo])\n")
	}
	b.WriteString("; line  instruction (jump targets are line numbers)\n")
	for _, l := range Disassemble(p, ArchX86_64) {
		if l.Comment == "" {
			fmt.Fprintf(&b, "%6d  %s\n", l.PC, l.Text)
			continue
		}
		fmt.Fprintf(&b, "%6d  %-36s ; %s\n", l.PC, l.Text, l.Comment)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write disassembly of %q: %w", name, err)
	}
	return nil
}
