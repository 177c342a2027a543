// Package filters is the seccomp BPF machine: the Program and Stack of
// classic BPF filters and the kernel's limits on them (BuildStack,
// MaxStackCount, LimitError), actions and architectures with their syscall
// tables, the opcode constants (opcode.go), a label-resolving Builder, the
// kernel's validation (Validate), an emulator (Emulate, EmulateStack,
// Executable), a disassembler (Disassemble, FormatText), the raw
// struct sock_filter reader (ParseRaw), and what every source format
// loader shares: the Source it returns and the SourceError it fails with.
//
// Policy languages live beside it, never inside it (compare gVisor's
// pkg/bpf and pkg/seccomp): filters/scmp (the libseccomp rule model and its
// compilers), filters/beats, filters/oci and filters/systemd (one source
// format each), filters/formats (the table of formats) and
// filters/analysis (cost, cache prediction, lint). The root imports none
// of them.
//
// The package is pure Go and deterministic: it makes no system calls, so the
// same policy yields the same bytes on any host and every test runs anywhere.
package filters

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"

	"golang.org/x/net/bpf"
)

// Offsets into struct seccomp_data, in bytes (include/uapi/linux/seccomp.h):
//
//	struct seccomp_data {
//		int   nr;                   // offset 0
//		__u32 arch;                 // offset 4
//		__u64 instruction_pointer;  // offset 8
//		__u64 args[6];              // offset 16, 8 bytes each
//	};
//
// Fields are in the native byte order of the audited architecture.
const (
	OffsetNr                 = 0
	OffsetArch               = 4
	OffsetInstructionPointer = 8
	OffsetArgs               = 16
	// SeccompDataSize is sizeof(struct seccomp_data) in bytes.
	SeccompDataSize = 64
	// MaxArgIndex is the highest index of seccomp_data.args: a syscall
	// has at most 6 arguments (include/uapi/linux/seccomp.h).
	MaxArgIndex = 5
)

// Kernel limits on seccomp filters.
const (
	// MaxInsns is BPF_MAXINSNS: the most instructions one filter may have
	// (include/uapi/linux/bpf_common.h). A longer filter fails with EINVAL.
	MaxInsns = 4096
	// MaxInsnsPerPath is MAX_INSNS_PER_PATH (kernel/seccomp.c): when a
	// filter is attached, its length plus (len + PathPenalty) of every
	// filter already attached may not exceed it, else seccomp(2) fails with
	// ENOMEM (kernel/seccomp.c: seccomp_attach_filter). The lengths are
	// those of the programs after the kernel converted them from classic
	// BPF to eBPF (Program.EBPFLen), not the classic lengths.
	MaxInsnsPerPath = 32768
	// PathPenalty is the per-filter overhead, in instructions, that
	// kernel/seccomp.c: seccomp_attach_filter adds to the length of each
	// filter already attached (not to the one being attached) when checking
	// MaxInsnsPerPath.
	PathPenalty = 4
)

// SockFilterSize is sizeof(struct sock_filter) in bytes: u16 code, u8 jt,
// u8 jf, u32 k (include/uapi/linux/filter.h).
const SockFilterSize = 8

// Program is one compiled seccomp filter: classic BPF instructions plus
// where they came from. A Program is immutable once built.
type Program struct {
	// Name is a short label for people, e.g. the policy file's base name.
	Name string
	// Source is the path or built-in name the program was loaded from.
	Source string
	// SourceSHA256 is the hex SHA-256 of the source bytes, empty if none.
	SourceSHA256 string
	// Insns are the filter's instructions, in order.
	Insns []bpf.RawInstruction
	// CacheDefeated reports that DefeatCache prepended a load of
	// instruction_pointer to the original program.
	CacheDefeated bool
	// Warnings are problems the loader found in the source that do not
	// stop it, as "file:line:col: message" (e.g. an OCI syscall name no
	// table knows, which runc skips too). Lint reports them; callers that
	// load programs should print them.
	Warnings []string
	// Notes are what the loader accepted and deliberately left out of
	// the model, with nothing to fix in the source (minijail's
	// "@frequency"), in the same form as Warnings. Callers print them as
	// notes; lint reports them as info.
	Notes []string
	// RuleAt maps a syscall name to where the source first names it in a
	// rule, "file:line:col" (as SourceError places a problem), for the
	// formats whose loaders keep positions (Beats policies, OCI profiles
	// read as such); nil otherwise. Lint places its rule findings with it.
	RuleAt map[string]string
}

// Len returns the program length in (classic BPF) instructions, the length
// BPF_MAXINSNS limits.
func (p *Program) Len() int { return len(p.Insns) }

// EBPFLen returns the program's length in eBPF instructions after the
// kernel converts it (net/core/filter.c: bpf_convert_filter), the length
// MAX_INSNS_PER_PATH counts (kernel/seccomp.c: seccomp_attach_filter reads
// prog->len of the converted program). The conversion emits a 3-instruction
// prologue (A = 0, X = 0, save the context), 2 instructions per ret (mov
// to r0, exit), 5 per division by X (a zero check that returns 0
// first; 5 is what kernel 6.18 accepts, one more than the 4 the check
// and the operation alone would take), and for a conditional jump one more when its constant does not
// fit a signed 32-bit immediate (it is moved to a register first) and one
// more (a JA) unless its false branch is the next instruction or, for
// jeq/jgt/jge, its true branch is (then the condition is inverted). All
// other instructions convert one to one. Checked against kernel 6.18 by
// runner's TestPathLimitMatchesKernel.
func (p *Program) EBPFLen() int {
	n := 3
	for _, ins := range p.Insns {
		n += ebpfInsns(ins)
	}
	return n
}

// ebpfInsns is the number of eBPF instructions bpf_convert_filter emits for
// one classic instruction (opcode bits: include/uapi/linux/bpf_common.h).
func ebpfInsns(ins bpf.RawInstruction) int {
	op := ins.Op & OpMask
	switch ins.Op & ClassMask {
	case Ret:
		return 2
	case Alu:
		if ins.Op&SrcMask == X && (op == Div || op == Mod) {
			return 5
		}
		return 1
	case Jmp:
		if op == Ja {
			return 1
		}
		n := 0
		if ins.Op&SrcMask == K && int32(ins.K) < 0 {
			n++
		}
		switch {
		case ins.Jf == 0:
			return n + 1
		case ins.Jt == 0 && (op == Jeq || op == Jgt || op == Jge):
			return n + 1
		}
		return n + 2
	}
	return 1
}

// Bytes returns the program as an array of struct sock_filter in
// little-endian order (the native order of x86_64 and arm64), 8 bytes per
// instruction: the format bubblewrap --seccomp reads and libseccomp's
// seccomp_export_bpf writes.
func (p *Program) Bytes() []byte {
	b := make([]byte, 0, len(p.Insns)*SockFilterSize)
	for _, ins := range p.Insns {
		b = binary.LittleEndian.AppendUint16(b, ins.Op)
		b = append(b, ins.Jt, ins.Jf)
		b = binary.LittleEndian.AppendUint32(b, ins.K)
	}
	return b
}

// SHA256 returns the hex SHA-256 of Bytes, identifying the filter's content
// independently of its name.
func (p *Program) SHA256() string {
	sum := sha256.Sum256(p.Bytes())
	return hex.EncodeToString(sum[:])
}

// DefeatCache returns a copy of p with `ld [instruction_pointer]` prepended.
// The verdict of every syscall is unchanged (the next instruction reloads the
// accumulator), but the kernel's action cache emulator
// (kernel/seccomp.c: seccomp_is_const_allow) gives up on any load other than
// nr and arch, so no syscall is cached and the filter runs on every syscall.
// This models pre-5.11 kernels and filters with argument rules. Jump offsets
// are relative, so nothing else changes. The result is one instruction longer;
// calling DefeatCache on an already defeated program returns p.
func (p *Program) DefeatCache() *Program {
	if p.CacheDefeated {
		return p
	}
	q := *p
	q.Insns = make([]bpf.RawInstruction, 0, len(p.Insns)+1)
	q.Insns = append(q.Insns, bpf.RawInstruction{
		Op: Ld | W | Abs,
		K:  OffsetInstructionPointer,
	})
	q.Insns = append(q.Insns, p.Insns...)
	q.CacheDefeated = true
	return &q
}

// UserNotifAt returns the index of p's first `ret #k` whose action is
// SECCOMP_RET_USER_NOTIF, reachable or not, and whether there is one. A
// filter with one needs a listener (SECCOMP_FILTER_FLAG_NEW_LISTENER);
// without it the kernel fails the notified syscall with ENOSYS
// (kernel/seccomp.c: seccomp_do_user_notification).
func (p *Program) UserNotifAt() (pc int, ok bool) {
	for pc, ri := range p.Insns {
		if a, _ := SplitRet(ri.K); ri.Op == Ret|K && a == ActionUserNotif {
			return pc, true
		}
	}
	return 0, false
}

// Padded returns a copy of p with n unreachable `ret` instructions
// appended (each returning what p's last instruction returns), or p itself
// for n <= 0. Verdicts, paths and the action cache's decision are
// unchanged; only the program's size, and so where the kernel places its
// JIT-compiled image, changes. A padding sweep tells a real difference
// between two programs from a placement effect (docs/libseccomp.md). The
// copy may exceed BPF_MAXINSNS; BuildStack checks that.
func (p *Program) Padded(n int) *Program {
	if n <= 0 || len(p.Insns) == 0 {
		return p
	}
	ret := p.Insns[len(p.Insns)-1]
	if ret.Op != Ret|K {
		ret = bpf.RawInstruction{Op: Ret | K, K: uint32(ActionKillProcess)}
	}
	q := *p
	q.Insns = make([]bpf.RawInstruction, 0, len(p.Insns)+n)
	q.Insns = append(q.Insns, p.Insns...)
	for range n {
		q.Insns = append(q.Insns, ret)
	}
	return &q
}

// Stack is an ordered list of filters as attached to one task: index 0 is the
// oldest (installed first). The kernel runs them newest first on every
// syscall (kernel/seccomp.c: seccomp_run_filters).
type Stack []*Program

// PathLength returns the stack's cost against MaxInsnsPerPath when its
// newest filter is attached, in eBPF instructions: the sum over filters of
// EBPFLen()+PathPenalty, less the penalty of the newest, which the kernel
// does not count (kernel/seccomp.c: seccomp_attach_filter). 0 for an empty
// stack. So 32 equal straight-line filters (EBPFLen = Len+4) may have at
// most 1016 instructions each, not the 1020 that len+4 per filter suggests.
func (s Stack) PathLength() int {
	if len(s) == 0 {
		return 0
	}
	n := -PathPenalty
	for _, p := range s {
		n += p.EBPFLen() + PathPenalty
	}
	return n
}

// ErrLimit is returned (wrapped in a *LimitError) when a filter or a stack
// exceeds a kernel limit.
var ErrLimit = errors.New("seccomp filter limit exceeded")

// LimitError reports which kernel limit a stack would break, by how much,
// and the largest filter count that fits.
type LimitError struct {
	// Limit names the limit: "BPF_MAXINSNS" or "MAX_INSNS_PER_PATH".
	Limit string
	// Program is the offending filter's name (BPF_MAXINSNS only).
	Program string
	// Have is the offending size in instructions; Max is the limit.
	Have, Max int
	// Count is the requested filter count; MaxCount the largest count that
	// fits (0 when not even one filter fits).
	Count, MaxCount int
}

func (e *LimitError) Error() string {
	if e.Limit == "BPF_MAXINSNS" {
		return fmt.Sprintf("filter %q has %d instructions, %d over BPF_MAXINSNS (%d); the kernel rejects it with EINVAL: split the policy or shorten it",
			e.Program, e.Have, e.Have-e.Max, e.Max)
	}
	return fmt.Sprintf("stack of %d filters needs %d instructions on the path, %d over MAX_INSNS_PER_PATH (%d, counting each filter's converted eBPF length, +4 for all but the newest); the kernel rejects it with ENOMEM: the largest count that fits is %d",
		e.Count, e.Have, e.Have-e.Max, e.Max, e.MaxCount)
}

// Unwrap returns ErrLimit.
func (e *LimitError) Unwrap() error { return ErrLimit }

// BuildStack returns a stack of n filters made by cycling progs: with P1 P2
// and n = 5 it is P1 P2 P1 P2 P1, P1 installed first. It checks BPF_MAXINSNS
// for every program and MAX_INSNS_PER_PATH for the whole stack, returning a
// *LimitError (wrapping ErrLimit) that names the limit and the largest count
// that fits. n = 0 returns an empty stack.
func BuildStack(progs []*Program, n int) (Stack, error) {
	if n < 0 {
		return nil, fmt.Errorf("build stack: negative filter count %d", n)
	}
	if n > 0 && len(progs) == 0 {
		return nil, errors.New("build stack: no programs to stack")
	}
	for _, p := range progs {
		if p.Len() > MaxInsns {
			return nil, &LimitError{Limit: "BPF_MAXINSNS", Program: p.Name, Have: p.Len(), Max: MaxInsns, Count: n}
		}
		if p.Len() == 0 {
			return nil, fmt.Errorf("build stack: filter %q is empty", p.Name)
		}
	}
	s := make(Stack, 0, n)
	for i := 0; i < n; i++ {
		s = append(s, progs[i%len(progs)])
	}
	if pl := s.PathLength(); pl > MaxInsnsPerPath {
		return nil, &LimitError{Limit: "MAX_INSNS_PER_PATH", Have: pl, Max: MaxInsnsPerPath, Count: n, MaxCount: MaxStackCount(progs)}
	}
	return s, nil
}

// MaxStackCount returns the largest n for which the cycled stack of progs
// fits MAX_INSNS_PER_PATH (capped at MaxInsnsPerPath, which is only reached
// by an empty program list).
func MaxStackCount(progs []*Program) int {
	if len(progs) == 0 {
		return MaxInsnsPerPath
	}
	// Attaching filter n+1 needs the stack's penalized length plus the
	// new filter's own length to fit.
	penalized, n := 0, 0
	for {
		l := progs[n%len(progs)].EBPFLen()
		if penalized+l > MaxInsnsPerPath {
			return n
		}
		penalized += l + PathPenalty
		n++
	}
}
