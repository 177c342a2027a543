package filters

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/bpf"

	"github.com/seccompbench/seccompbench/internal/golden"
)

// tGoldenAllowlist is shaped like elastic/go-seccomp-bpf's output: arch
// check, x32 guard, then rules, one with an argument condition.
func tGoldenAllowlist(t testing.TB) *Program {
	return tAsm(t, "allowlist",
		tLdArch(),
		bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: AuditArchX86_64, SkipTrue: 11},
		tLdNr(),
		bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: X32SyscallBit, SkipFalse: 1},
		tRet(ActionErrno, ENOSYS),
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 39, SkipTrue: 6},  // getpid
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 231, SkipTrue: 5}, // exit_group
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 1, SkipFalse: 3},  // write
		tLdArg(0, false),
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 1, SkipTrue: 2},
		tLdNr(),
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 101, SkipTrue: 1, SkipFalse: 2}, // ptrace
		tRet(ActionAllow, 0),
		tRet(ActionKillProcess, 0),
		tRet(ActionErrno, 1),
	)
}

// tGoldenEverything uses every instruction class seccomp accepts, an i386
// branch (names from the i386 table), x32 names, and unusual returns.
func tGoldenEverything(t testing.TB) *Program {
	return tAsm(t, "everything",
		tLdArch(),
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: AuditArchI386, SkipTrue: 1},
		bpf.Jump{Skip: 3},
		tLdNr(),
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 20, SkipTrue: 20}, // i386 getpid
		tRet(ActionKillProcess, 0),
		tLdNr(),
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: X32SyscallBit | 39, SkipTrue: 17}, // x32 getpid
		bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: X32SyscallBit, SkipTrue: 15},
		bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: 0xff},
		bpf.JumpIf{Cond: bpf.JumpGreaterThan, Val: 60, SkipTrue: 13},
		bpf.LoadAbsolute{Off: OffsetInstructionPointer, Size: 4},
		bpf.LoadAbsolute{Off: OffsetInstructionPointer + 4, Size: 4},
		tLdArg(5, true),
		bpf.TAX{},
		bpf.StoreScratch{Src: bpf.RegX, N: 3},
		bpf.LoadScratch{Dst: bpf.RegA, N: 3},
		bpf.ALUOpX{Op: bpf.ALUOpAdd},
		bpf.NegateA{},
		bpf.LoadConstant{Dst: bpf.RegX, Val: 7},
		bpf.JumpIfX{Cond: bpf.JumpGreaterOrEqual, SkipTrue: 1},
		bpf.RetA{},
		bpf.LoadExtension{Num: bpf.ExtLen},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 64, SkipTrue: 1},
		tRet(ActionTrace, 5),
		bpf.RetConstant{Val: 0x00010005},
		tRet(ActionLog, 0),
	)
}

func TestFormatTextGolden(t *testing.T) {
	tests := []struct {
		file string
		p    *Program
	}{
		{"allowlist.txt", tGoldenAllowlist(t)},
		{"allowlist-defeated.txt", tGoldenAllowlist(t).DefeatCache()},
		{"everything.txt", tGoldenEverything(t)},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			if err := Validate(tt.p.Insns); err != nil {
				t.Fatalf("golden program invalid: %v", err)
			}
			var b bytes.Buffer
			if err := FormatText(&b, tt.p); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, tt.file, b.Bytes())
		})
	}
}

func TestDisassemble(t *testing.T) {
	lines := Disassemble(tGoldenEverything(t), nil)
	tests := []struct {
		pc          int
		wantText    string
		wantComment string
		wantTargets []int
	}{
		{0, "ld [arch]", "", nil},
		{1, "jeq #0x40000003 jt 3 jf 2", "AUDIT_ARCH_I386", []int{3, 2}},
		{2, "ja 6", "", []int{6}},
		{4, "jeq #20 jt 25 jf 5", "getpid (i386)", []int{25, 5}}, // i386 table after the arch check
		{5, "ret KILL_PROCESS", "", nil},
		{7, "jeq #0x40000027 jt 25 jf 8", "getpid (x32)", []int{25, 8}},
		{8, "jset #0x40000000 jt 24 jf 9", "x32 syscall bit (__X32_SYSCALL_BIT)", []int{24, 9}},
		{10, "jgt #60 jt 24 jf 11", "", []int{24, 11}}, // A is nr&0xff: no name
		{11, "ld [ip lo]", "", nil},
		{13, "ld [args[5] hi]", "", nil},
		{17, "add x", "", nil},
		{18, "neg", "", nil},
		{20, "jge x jt 22 jf 21", "", []int{22, 21}},
		{21, "ret a", "", nil},
		{22, "ld #len", "", nil},
		{24, "ret TRACE(5)", "", nil},
		{25, "ret 0x00010005 (unknown action: the kernel kills the process)", "", nil},
		{26, "ret LOG", "unreachable", nil},
	}
	for _, tt := range tests {
		l := lines[tt.pc]
		if l.PC != tt.pc || l.Text != tt.wantText || l.Comment != tt.wantComment || !slices.Equal(l.Targets, tt.wantTargets) {
			t.Errorf("line %d = %q ; %q targets %v, want %q ; %q targets %v", tt.pc, l.Text, l.Comment, l.Targets, tt.wantText, tt.wantComment, tt.wantTargets)
		}
	}
	if _, ok := lines[0].Insn.(bpf.LoadAbsolute); !ok {
		t.Errorf("line 0 Insn = %T, want bpf.LoadAbsolute", lines[0].Insn)
	}
}

func TestDisassembleUnreachableAndInvalid(t *testing.T) {
	p := &Program{Name: "odd", Insns: []bpf.RawInstruction{
		tRaw(Ret|K, 0, 0, uint32(ActionAllow)),
		tRaw(0xffff, 0, 0, 3),
		tRaw(Ret|K, 0, 0, uint32(ActionErrno)|1),
	}}
	lines := Disassemble(p, ArchX86_64)
	if lines[1].Comment != "unreachable" || !strings.HasPrefix(lines[1].Text, "unknown opcode 0xffff") {
		t.Errorf("line 1 = %q ; %q, want unknown opcode, unreachable", lines[1].Text, lines[1].Comment)
	}
	if got := lines[2].Text; got != "ret ERRNO(1)" {
		t.Errorf("line 2 = %q, want ret ERRNO(1)", got)
	}
}

type failWriter struct{}

var errWrite = errors.New("disk full")

func (failWriter) Write([]byte) (int, error) { return 0, errWrite }

func TestFormatTextWriteError(t *testing.T) {
	if err := FormatText(failWriter{}, tGoldenAllowlist(t)); !errors.Is(err, errWrite) {
		t.Errorf("FormatText() error = %v, want wrapped write error", err)
	}
}

func TestRetText(t *testing.T) {
	tests := []struct {
		ret  uint32
		want string
	}{
		{uint32(ActionAllow), "ALLOW"},
		{uint32(ActionAllow) | 3, "ALLOW(3)"},
		{uint32(ActionErrno), "ERRNO(0)"},
		{uint32(ActionErrno) | 38, "ERRNO(38)"},
		{uint32(ActionKillThread), "KILL_THREAD"},
		{uint32(ActionUserNotif), "USER_NOTIF"},
		{0x7ff10000, "0x7ff10000 (unknown action: the kernel kills the process)"},
	}
	for _, tt := range tests {
		if got := RetText(tt.ret); got != tt.want {
			t.Errorf("RetText(%#x) = %q, want %q", tt.ret, got, tt.want)
		}
	}
}

// TestVerdictTextCapsErrno checks that the verdict shows the errno the
// kernel returns (kernel/seccomp.c: __seccomp_filter caps ERRNO data at
// MAX_ERRNO) while RetText, the listing's text, keeps the filter's value.
func TestVerdictTextCapsErrno(t *testing.T) {
	for _, tt := range []struct {
		data         uint16
		verdict, raw string
		capped       bool
	}{
		{1, "ERRNO(1)", "ERRNO(1)", false},
		{4095, "ERRNO(4095)", "ERRNO(4095)", false},
		{4096, "ERRNO(4095)", "ERRNO(4096)", true},
		{12345, "ERRNO(4095)", "ERRNO(12345)", true},
	} {
		ret := uint32(ActionErrno) | uint32(tt.data)
		if got := VerdictText(ret); got != tt.verdict {
			t.Errorf("VerdictText(ERRNO %d) = %q, want %q", tt.data, got, tt.verdict)
		}
		if got := RetText(ret); got != tt.raw {
			t.Errorf("RetText(ERRNO %d) = %q, want %q", tt.data, got, tt.raw)
		}
		if got := ErrnoCapped(ret); got != tt.capped {
			t.Errorf("ErrnoCapped(ERRNO %d) = %v, want %v", tt.data, got, tt.capped)
		}
	}
	// Other actions keep their data: TRACE(12345) is a tracer's message.
	if got := VerdictText(uint32(ActionTrace) | 12345); got != "TRACE(12345)" {
		t.Errorf("VerdictText(TRACE 12345) = %q", got)
	}
}
