package filters

import (
	"errors"
	"strings"
	"testing"
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
		{"aarch64", ArchAArch64}, {"AArch64", ArchAArch64}, {"arm64", ArchAArch64},
		{"arm", ArchARM}, {"aarch32", ArchARM},
	}
	for _, tt := range tests {
		if got, err := LookupArch(tt.name); err != nil || got != tt.want {
			t.Errorf("LookupArch(%q) = %v, %v; want %v", tt.name, got, err, tt.want)
		}
	}
	if _, err := LookupArch("mips"); !errors.Is(err, ErrUnknownArch) {
		t.Errorf("LookupArch(mips) error = %v, want ErrUnknownArch", err)
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

// TestLookupSyscallARMPrivate: LookupSyscall takes minijail's ARM_ name of
// an ARM private syscall on arm only, and not for a syscall that is not
// private.
func TestLookupSyscallARMPrivate(t *testing.T) {
	tests := []struct {
		arch *Arch
		name string
		want int
		ok   bool
	}{
		{ArchARM, "ARM_set_tls", 0x0f0005, true},
		{ArchARM, "ARM_cacheflush", 0x0f0002, true},
		{ArchARM, "set_tls", 0x0f0005, true},
		{ArchARM, "ARM_read", 0, false},
		{ArchAArch64, "ARM_set_tls", 0, false},
	}
	for _, tt := range tests {
		got, err := LookupSyscall(tt.arch, tt.name)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("LookupSyscall(%s, %q) = %d, %v; want %d, ok %v", tt.arch, tt.name, got, err, tt.want, tt.ok)
		}
	}
}
