package filters

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/bpf"

	"github.com/seccompbench/seccompbench/internal/golden"
)

// TestAArch64Tables checks numbers of the arm64 kernel's ABIs against
// include/uapi/asm-generic/unistd.h (aarch64) and
// arch/arm/tools/syscall.tbl (arm), and the audit arch values against
// include/uapi/linux/audit.h.
func TestAArch64Tables(t *testing.T) {
	tests := []struct {
		arch *Arch
		name string
		want int
		ok   bool
	}{
		{ArchAArch64, "io_setup", 0, true},
		{ArchAArch64, "openat", 56, true},
		{ArchAArch64, "read", 63, true},
		{ArchAArch64, "exit", 93, true},
		{ArchAArch64, "exit_group", 94, true},
		{ArchAArch64, "getpid", 172, true},
		{ArchAArch64, "newfstatat", 79, true},
		{ArchAArch64, "fstat", 80, true},
		{ArchAArch64, "seccomp", 277, true},
		{ArchAArch64, "clone3", 435, true},
		{ArchAArch64, "mseal", 462, true},
		{ArchAArch64, "file_getattr", 468, true},
		{ArchAArch64, "file_setattr", 469, true},
		{ArchAArch64, "open", 0, false}, // asm-generic has openat only
		{ArchAArch64, "fork", 0, false},
		{ArchAArch64, "epoll_wait", 0, false},
		{ArchARM, "restart_syscall", 0, true},
		{ArchARM, "getpid", 20, true},
		{ArchARM, "open", 5, true},
		{ArchARM, "seccomp", 383, true},
		{ArchARM, "file_setattr", 469, true},
		{ArchARM, "set_tls", 0x0f0005, true}, // __ARM_NR_BASE + 5
	}
	for _, tt := range tests {
		got, ok := tt.arch.Lookup(tt.name)
		if ok != tt.ok || got != tt.want {
			t.Errorf("%s.Lookup(%q) = %d, %v; want %d, %v", tt.arch, tt.name, got, ok, tt.want, tt.ok)
		}
		if ok {
			if name := tt.arch.SyscallName(got); name != tt.name {
				t.Errorf("%s.SyscallName(%d) = %q, want %q", tt.arch, got, name, tt.name)
			}
		}
	}
	if n, ok := ArchAArch64.Lookup("fstatat"); !ok || n != 79 {
		t.Errorf("aarch64 alias fstatat = %d, %v; want 79 (go-seccomp-bpf's name)", n, ok)
	}
	if ArchAArch64.AuditArch != AuditArchAArch64 || AuditArchAArch64 != 0xc00000b7 {
		t.Errorf("aarch64 audit arch = %#x, want 0xc00000b7", ArchAArch64.AuditArch)
	}
	if ArchARM.AuditArch != AuditArchARM || AuditArchARM != 0x40000028 {
		t.Errorf("arm audit arch = %#x, want 0x40000028", ArchARM.AuditArch)
	}
	if ArchAArch64.Compat || !ArchARM.Compat || ArchAArch64.Mask != 0 || ArchARM.Mask != 0 {
		t.Errorf("compat/mask: aarch64 %v %#x, arm %v %#x", ArchAArch64.Compat, ArchAArch64.Mask, ArchARM.Compat, ArchARM.Mask)
	}
	if got := ArchAArch64.Data(172, 1, 2); got.Nr != 172 || got.Arch != AuditArchAArch64 || got.Args[1] != 2 {
		t.Errorf("ArchAArch64.Data(172, 1, 2) = %+v", got)
	}
}

func TestLookupArchAArch64(t *testing.T) {
	tests := []struct {
		name string
		want *Arch
	}{
		{"aarch64", ArchAArch64}, {"AArch64", ArchAArch64},
		{"arm", ArchARM}, {"aarch32", ArchARM},
	}
	for _, tt := range tests {
		if got, err := LookupArch(tt.name); err != nil || got != tt.want {
			t.Errorf("LookupArch(%q) = %v, %v; want %v", tt.name, got, err, tt.want)
		}
	}
	if _, err := LookupArch("riscv64"); !errors.Is(err, ErrUnknownArch) {
		t.Errorf("LookupArch(riscv64) error = %v, want ErrUnknownArch", err)
	}
	if got := archByAudit(AuditArchAArch64); got != ArchAArch64 {
		t.Errorf("archByAudit(AARCH64) = %v", got)
	}
	if got := archByAudit(AuditArchARM); got != ArchARM {
		t.Errorf("archByAudit(ARM) = %v", got)
	}
	if got := auditArchName(AuditArchAArch64); got != "AUDIT_ARCH_AARCH64" {
		t.Errorf("auditArchName(AARCH64) = %q", got)
	}
}

func TestHostAndKernelArches(t *testing.T) {
	names := func(as []*Arch) string {
		var s []string
		for _, a := range as {
			s = append(s, a.Name)
		}
		return strings.Join(s, ",")
	}
	tests := []struct {
		got  []*Arch
		want string
	}{
		{HostArches("amd64"), "x86_64,i386,x32"},
		{HostArches("arm64"), "aarch64,arm"},
		{HostArches("riscv64"), ""},
		{KernelArches(ArchX86_64), "x86_64,i386,x32"},
		{KernelArches(ArchI386), "x86_64,i386,x32"},
		{KernelArches(ArchAArch64), "aarch64,arm"},
		{KernelArches(ArchARM), "aarch64,arm"},
	}
	for i, tt := range tests {
		if got := names(tt.got); got != tt.want {
			t.Errorf("case %d: %q, want %q", i, got, tt.want)
		}
	}
}

// TestCompileForAArch64 compiles the embedded default policy for aarch64
// and checks the program's shape and verdicts with the emulator: the arch
// check names AUDIT_ARCH_AARCH64, there is no x32 guard, aarch64 numbers
// decide, and x86_64 or arm callers get the default action.
func TestCompileForAArch64(t *testing.T) {
	pol := DefaultPolicy()
	p, err := pol.CompileFor(ArchAArch64)
	if err != nil {
		t.Fatal(err)
	}
	if in := p.Insns[0]; in.Op != 0x20 || in.K != OffsetArch { // ld [4]
		t.Errorf("insn 0 = %+v, want ld [arch]", in)
	}
	if in := p.Insns[1]; in.Op&0x07 != 0x05 || in.K != AuditArchAArch64 {
		t.Errorf("insn 1 = %+v, want a jump on AUDIT_ARCH_AARCH64", in)
	}
	for pc, in := range p.Insns {
		if in.K == X32SyscallBit {
			t.Errorf("insn %d compares with the x32 bit; aarch64 programs have no x32 guard", pc)
		}
	}
	x86, err := pol.Compile()
	if err != nil {
		t.Fatal(err)
	}
	def := x86.Insns[len(x86.Insns)-1].K
	mustNr := func(a *Arch, name string) int {
		n, ok := a.Lookup(name)
		if !ok {
			t.Fatalf("%s has no %s", a, name)
		}
		return n
	}
	tests := []struct {
		name string
		d    SeccompData
		want uint32
	}{
		{"aarch64 getpid", ArchAArch64.Data(mustNr(ArchAArch64, "getpid")), uint32(ActionAllow)},
		{"aarch64 openat", ArchAArch64.Data(mustNr(ArchAArch64, "openat")), uint32(ActionAllow)},
		{"aarch64 ptrace", ArchAArch64.Data(mustNr(ArchAArch64, "ptrace")), def},
		{"x86_64 getpid", ArchX86_64.Data(mustNr(ArchX86_64, "getpid")), def},
		{"arm getpid", ArchARM.Data(mustNr(ArchARM, "getpid")), def},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := EmulateStack(Stack{p}, tt.d)
			if err != nil {
				t.Fatal(err)
			}
			if r.Ret != tt.want {
				t.Errorf("ret = %s, want %s", RetText(r.Ret), RetText(tt.want))
			}
		})
	}
	// Every name the policy allows on x86_64 that aarch64 has is allowed
	// on aarch64 too; the others are reported as dropped.
	dropped := strings.Join(p.Warnings, "\n")
	for _, g := range pol.Groups {
		for _, n := range g.Names {
			nr, ok := ArchAArch64.Lookup(n.Name)
			if !ok {
				if !strings.Contains(dropped, `"`+n.Name+`"`) {
					t.Errorf("%s is not on aarch64 but no warning names it", n.Name)
				}
				continue
			}
			want, err := EmulateStack(Stack{x86}, ArchX86_64.Data(mustNr(ArchX86_64, n.Name)))
			if err != nil {
				t.Fatal(err)
			}
			got, err := EmulateStack(Stack{p}, ArchAArch64.Data(nr))
			if err != nil {
				t.Fatal(err)
			}
			if got.Ret != want.Ret {
				t.Errorf("%s: aarch64 %s, x86_64 %s", n.Name, RetText(got.Ret), RetText(want.Ret))
			}
		}
	}
	if _, err := pol.CompileFor(ArchX32); !errors.Is(err, ErrUnknownArch) {
		t.Errorf("CompileFor(x32) error = %v, want ErrUnknownArch", err)
	}
	// CompileFor(x86_64) is Compile on an amd64 host: same bytes.
	again, err := pol.CompileFor(ArchX86_64)
	if err != nil {
		t.Fatal(err)
	}
	if again.SHA256() != x86.SHA256() {
		t.Errorf("CompileFor(x86_64) differs from Compile")
	}
}

// TestFormatTextAArch64Golden pins the aarch64 compile output of the
// default policy and two testdata policies (cross-arch golden files:
// disassembly names come from the ABI the program's arch check
// establishes).
func TestFormatTextAArch64Golden(t *testing.T) {
	for _, spec := range []string{"default", "../testdata/policies/minimal.yaml", "../testdata/policies/args-workload.yaml"} {
		name := strings.TrimSuffix(filepath.Base(spec), filepath.Ext(spec))
		t.Run(name, func(t *testing.T) {
			var pol *Policy
			if spec == "default" {
				pol = DefaultPolicy()
			} else {
				var err error
				if pol, err = Load(spec); err != nil {
					t.Fatal(err)
				}
			}
			p, err := pol.CompileFor(ArchAArch64)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := FormatText(&b, p); err != nil {
				t.Fatal(err)
			}
			for _, w := range p.Warnings {
				b.WriteString("; warning: " + w + "\n")
			}
			golden.Check(t, "aarch64-"+name+".txt", b.Bytes())
		})
	}
}

// TestPredictCacheAArch64 predicts the action cache of an arm64 kernel
// (native aarch64 and compat arm bitmaps) for the default policy compiled
// for aarch64: plain allowed names are cached, a denied one is not, and
// every arm syscall fails the arch check, so none is cached.
func TestPredictCacheAArch64(t *testing.T) {
	p, err := DefaultPolicy().CompileFor(ArchAArch64)
	if err != nil {
		t.Fatal(err)
	}
	rep := PredictCache(Stack{p}, KernelArches(ArchAArch64))
	tests := []struct {
		arch   *Arch
		name   string
		cached bool
	}{
		{ArchAArch64, "getpid", true},
		{ArchAArch64, "read", true},
		{ArchAArch64, "ptrace", false},
		{ArchARM, "getpid", false},
		{ArchARM, "set_tls", false}, // outside the compat bitmap
	}
	for _, tt := range tests {
		nr, _ := tt.arch.Lookup(tt.name)
		e, ok := rep.Lookup(tt.arch.Name, nr)
		if !ok {
			t.Errorf("%s %s: no cache entry", tt.arch, tt.name)
			continue
		}
		if e.Cached != tt.cached {
			t.Errorf("%s %s: cached = %v (%s), want %v", tt.arch, tt.name, e.Cached, e.Reason, tt.cached)
		}
	}
	// A defeated copy caches nothing on either ABI.
	rep = PredictCache(Stack{p.DefeatCache()}, KernelArches(ArchAArch64))
	for _, e := range rep.Entries {
		if e.Cached {
			t.Fatalf("%s %s cached with the cache defeated", e.Arch, e.Name)
		}
	}
	costs, err := Analyze(Stack{p}, []*Arch{ArchAArch64})
	if err != nil {
		t.Fatal(err)
	}
	if len(costs) != len(ArchAArch64.Numbers) {
		t.Errorf("Analyze: %d costs, want one per aarch64 syscall (%d)", len(costs), len(ArchAArch64.Numbers))
	}
}

// TestDockerDefaultAArch64 compiles Docker's default profile for an arm64
// host (OCIOptions.Arch "aarch64"): the native arch is aarch64, arm is its
// archMap sub-architecture, and verdicts follow each ABI's table.
func TestDockerDefaultAArch64(t *testing.T) {
	p, err := DockerDefault(OCIOptions{Arch: "aarch64"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		arch  *Arch
		name  string
		allow bool
	}{
		{ArchAArch64, "getpid", true},
		{ArchAArch64, "openat", true},
		{ArchARM, "getpid", true},
		{ArchAArch64, "kexec_load", false},
		{ArchX86_64, "getpid", false}, // not an arch of this profile on arm64
	}
	for _, tt := range tests {
		nr, _ := tt.arch.Lookup(tt.name)
		r, err := EmulateStack(Stack{p}, tt.arch.Data(nr))
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Action == ActionAllow; got != tt.allow {
			t.Errorf("%s %s: %s, want allow=%v", tt.arch, tt.name, RetText(r.Ret), tt.allow)
		}
	}
}

// TestLintAArch64Bypass lints for an aarch64 host: a denylist matching
// aarch64 numbers without an arch check lets the same syscalls through the
// arm compat ABI, which Lint reports as LintBypassARM (and never the x86
// codes); the default policy compiled for aarch64 checks the arch and is
// not bypassable.
func TestLintAArch64Bypass(t *testing.T) {
	deny := tAsm(t, "denylist-aarch64",
		tLdNr(),
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 117, SkipTrue: 2}, // ptrace (aarch64)
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 221, SkipTrue: 2}, // execve (aarch64)
		tRet(ActionAllow, 0),
		tRet(ActionKillProcess, 0),
		tRet(ActionErrno, 1),
	)
	codes := func(fs []Finding) map[string]string {
		m := map[string]string{}
		for _, f := range fs {
			m[f.Code] = f.Message
		}
		return m
	}
	got := codes(Lint(Stack{deny}, LintOptions{Arch: ArchAArch64}))
	msg, ok := got[LintBypassARM]
	if !ok || !strings.Contains(msg, "ptrace, execve") || !strings.Contains(msg, "arm compat ABI") {
		t.Errorf("findings %v: want %s naming ptrace, execve", got, LintBypassARM)
	}
	for _, c := range []string{LintBypassI386, LintBypassX32, LintX32Unhandled} {
		if _, ok := got[c]; ok {
			t.Errorf("aarch64 lint reported %s", c)
		}
	}
	p, err := DefaultPolicy().CompileFor(ArchAArch64)
	if err != nil {
		t.Fatal(err)
	}
	if got := codes(Lint(Stack{p}, LintOptions{Arch: ArchAArch64})); got[LintBypassARM] != "" {
		t.Errorf("default policy for aarch64: %s", got[LintBypassARM])
	}
}

// TestOpenForAArch64 opens each policy format for an arm64 host: Beats
// and OCI sources check AUDIT_ARCH_AARCH64 and allow getpid by its aarch64
// number; allowlists refuse x86_64 callers, and minimal.yaml (default
// allow) denies ptrace by its aarch64 number.
func TestOpenForAArch64(t *testing.T) {
	getpid, _ := ArchAArch64.Lookup("getpid")
	for _, spec := range []string{"default", DockerDefaultName, "../testdata/policies/minimal.yaml"} {
		t.Run(filepath.Base(spec), func(t *testing.T) {
			p, err := OpenFor(spec, ArchAArch64, OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			r, err := EmulateStack(Stack{p}, ArchAArch64.Data(getpid))
			if err != nil {
				t.Fatal(err)
			}
			if r.Action != ActionAllow {
				t.Errorf("aarch64 getpid: %s, want allow", RetText(r.Ret))
			}
			x86, err := EmulateStack(Stack{p}, ArchX86_64.Data(39))
			if err != nil {
				t.Fatal(err)
			}
			if spec == "../testdata/policies/minimal.yaml" {
				ptrace, _ := ArchAArch64.Lookup("ptrace")
				if r, _ := EmulateStack(Stack{p}, ArchAArch64.Data(ptrace)); r.Action != ActionErrno {
					t.Errorf("aarch64 ptrace: %s, want errno", RetText(r.Ret))
				}
			} else if x86.Action == ActionAllow {
				t.Errorf("x86_64 getpid allowed by a filter for aarch64")
			}
		})
	}
	// OpenFor(x86_64) gives Open's bytes for the embedded default.
	a, err := OpenFor("default", ArchX86_64, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open("default")
	if err != nil {
		t.Fatal(err)
	}
	if a.SHA256() != b.SHA256() {
		t.Error("OpenFor(default, x86_64) differs from Open(default)")
	}
}
