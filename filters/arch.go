package filters

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	elarch "github.com/elastic/go-seccomp-bpf/arch"
)

// Audit architecture values a seccomp filter sees in seccomp_data.arch
// (include/uapi/linux/audit.h).
const (
	AuditArchX86_64 = 0xc000003e // AUDIT_ARCH_X86_64, also used by x32
	AuditArchI386   = 0x40000003 // AUDIT_ARCH_I386
)

// X32SyscallBit is __X32_SYSCALL_BIT (arch/x86/include/uapi/asm/unistd.h):
// x32 processes enter the kernel through the x86_64 entry with this bit set
// in the syscall number, so seccomp_data.arch is AUDIT_ARCH_X86_64 and
// seccomp_data.nr is 0x40000000|n.
const X32SyscallBit = 0x40000000

// Arch is one syscall ABI a seccomp filter may be asked about: its audit arch
// value, the bit its numbers carry, its syscall table, and the size of the
// kernel's action-cache bitmap for it.
type Arch struct {
	// Name is the ABI name: "x86_64", "i386" or "x32".
	Name string
	// AuditArch is the value of seccomp_data.arch for this ABI.
	AuditArch uint32
	// Mask is ORed into table numbers to get seccomp_data.nr:
	// X32SyscallBit for x32, 0 otherwise.
	Mask uint32
	// Names maps syscall names to table numbers (without Mask).
	Names map[string]int
	// Numbers maps table numbers (without Mask) to syscall names.
	Numbers map[int]string
	// CacheBits is the size, in syscall numbers, of the kernel's
	// action-cache bitmap for this ABI on an x86_64 kernel: NR_syscalls for
	// x86_64 (SECCOMP_ARCH_NATIVE_NR) and IA32_NR_syscalls for i386
	// (SECCOMP_ARCH_COMPAT_NR), as of Linux 6.18 (arch/x86/include/asm/seccomp.h).
	// It is 0 for x32: x32 numbers carry X32SyscallBit, so they fall outside
	// the native bitmap and are never cached.
	CacheBits int
	// Compat reports that the ABI is the kernel's compat ABI
	// (SECCOMP_ARCH_COMPAT) rather than the native one.
	Compat bool
}

// Nr returns the value a filter sees in seccomp_data.nr for table number n:
// n with the arch's Mask set.
func (a *Arch) Nr(n int) int32 { return int32(uint32(n) | a.Mask) }

// Lookup returns the table number of syscall name (without Mask).
func (a *Arch) Lookup(name string) (int, bool) {
	n, ok := a.Names[name]
	return n, ok
}

// SyscallName returns the name of table number n, or "" if the table has no
// such syscall.
func (a *Arch) SyscallName(n int) string { return a.Numbers[n] }

// SortedNumbers returns the arch's table numbers in increasing order.
func (a *Arch) SortedNumbers() []int {
	out := make([]int, 0, len(a.Numbers))
	for n := range a.Numbers {
		out = append(out, n)
	}
	sort.Ints(out)
	return out
}

// Data returns the seccomp_data the kernel builds when a process using this
// ABI calls table number n with args (missing args are 0; extra args are
// ignored). The instruction pointer is 0.
func (a *Arch) Data(n int, args ...uint64) SeccompData {
	d := SeccompData{Nr: a.Nr(n), Arch: a.AuditArch}
	copy(d.Args[:], args)
	return d
}

// String returns the arch name.
func (a *Arch) String() string { return a.Name }

// newer6_18 lists syscalls added after the Linux 6.15 tables that
// github.com/elastic/go-seccomp-bpf/arch v1.6.0 ships, up to Linux 6.18
// (arch/x86/entry/syscalls/syscall_64.tbl, syscall_32.tbl). uprobe exists
// only for the 64-bit ABI.
var newer6_18 = map[string]map[int]string{
	"x86_64": {336: "uprobe", 468: "file_getattr", 469: "file_setattr"},
	"i386":   {468: "file_getattr", 469: "file_setattr"},
	"x32":    {468: "file_getattr", 469: "file_setattr"},
}

func newArch(name string, info *elarch.Info, cacheBits int, compat bool) *Arch {
	a := &Arch{
		Name:      name,
		AuditArch: uint32(info.ID),
		Mask:      uint32(info.SeccompMask),
		Names:     make(map[string]int, len(info.SyscallNumbers)+3),
		Numbers:   make(map[int]string, len(info.SyscallNumbers)+3),
		CacheBits: cacheBits,
		Compat:    compat,
	}
	add := func(n int, s string) {
		a.Numbers[n] = s
		// A name listed twice keeps its higher number, whatever the map
		// order: only x32 has such names (see ArchX32), and its higher
		// number is the one the kernel serves.
		if old, ok := a.Names[s]; !ok || n > old {
			a.Names[s] = n
		}
	}
	for n, s := range info.SyscallNumbers {
		add(n, s)
	}
	for n, s := range newer6_18[name] {
		add(n, s)
	}
	return a
}

// The x86_64 kernel's ABIs. Tables come from
// github.com/elastic/go-seccomp-bpf/arch (Linux 6.15) plus the syscalls
// Linux 6.16-6.18 added (uprobe, file_getattr, file_setattr).
var (
	// ArchX86_64 is the native 64-bit ABI (SECCOMP_ARCH_NATIVE).
	ArchX86_64 = newArch("x86_64", elarch.X86_64, 470, false)
	// ArchI386 is the 32-bit compat ABI, entered via int 0x80 or
	// sysenter (SECCOMP_ARCH_COMPAT).
	ArchI386 = newArch("i386", elarch.I386, 470, true)
	// ArchX32 is the x32 ABI: arch AUDIT_ARCH_X86_64, numbers with
	// X32SyscallBit set. Its table numbers are stored without the bit.
	//
	// The source table (elastic's generator skips ABI "x64" where
	// arch/x86/entry/syscalls/syscall_64.tbl says "64") also holds the
	// 64-bit-only entries, so 36 names appear twice: at their x86_64
	// number (13 rt_sigaction, 16 ioctl, ...), where the kernel's x32
	// table has sys_ni_syscall, and at their x32 number in 512-547. Names
	// maps such a name to the 512+ number, as libseccomp's x32 table and
	// the kernel do; Numbers keeps both entries.
	ArchX32 = withoutNames(newArch("x32", elarch.X32, 0, false), x86_64Only)
)

// x86_64Only are the entries of arch/x86/entry/syscalls/syscall_64.tbl with
// ABI "64" and no x32 counterpart: an x32 task calling their number gets
// ENOSYS, and libseccomp's x32 table does not have them (2.5.4 resolves
// them to __PNR_* pseudo-numbers). elastic's x32 table lists them.
var x86_64Only = []string{
	"uselib", "_sysctl", "create_module", "get_kernel_syms", "query_module", "nfsservctl",
	"set_thread_area", "get_thread_area", "epoll_ctl_old", "epoll_wait_old", "vserver",
	"uretprobe", "uprobe", "map_shadow_stack",
}

// withoutNames removes names (and their numbers) from a's tables.
func withoutNames(a *Arch, names []string) *Arch {
	for _, name := range names {
		for n, s := range a.Numbers {
			if s == name {
				delete(a.Numbers, n)
			}
		}
		delete(a.Names, name)
	}
	return a
}

// ErrUnknownArch is returned by LookupArch for a name it does not know.
var ErrUnknownArch = errors.New("unknown architecture")

// LookupArch returns the ABI called name: "x86_64" (or "amd64"), "i386"
// (or "386", "ia32"), "x32", "aarch64" (or GOARCH's "arm64") or "arm" (or
// "arm32", "aarch32"; see arch_aarch64.go). It returns an error wrapping ErrUnknownArch
// for anything else.
func LookupArch(name string) (*Arch, error) {
	switch strings.ToLower(name) {
	case "x86_64", "amd64", "x86-64":
		return ArchX86_64, nil
	case "i386", "386", "ia32", "x86":
		return ArchI386, nil
	case "x32":
		return ArchX32, nil
	case "aarch64", "arm64":
		return ArchAArch64, nil
	case "arm", "arm32", "aarch32":
		return ArchARM, nil
	case "riscv64":
		return ArchRISCV64, nil
	}
	return nil, fmt.Errorf("look up arch %q: %w (want x86_64, i386, x32, aarch64, arm or riscv64)", name, ErrUnknownArch)
}

// NativeArches returns the ABIs an x86_64 process can use to enter the
// kernel, in the order analyses report them: x86_64, then its compat i386,
// then x32.
func NativeArches() []*Arch { return []*Arch{ArchX86_64, ArchI386, ArchX32} }

// ArchByAudit returns the ABI whose audit arch (seccomp_data.arch,
// include/uapi/linux/audit.h) is v: x86_64 for AUDIT_ARCH_X86_64 (x32
// shares it), i386, aarch64, arm, riscv64; nil for any other value.
func ArchByAudit(v uint32) *Arch { return archByAudit(v) }

// archByAudit returns the ABI whose audit arch is v (x86_64 for
// AUDIT_ARCH_X86_64), or nil.
func archByAudit(v uint32) *Arch {
	switch v {
	case AuditArchX86_64:
		return ArchX86_64
	case AuditArchI386:
		return ArchI386
	case AuditArchAArch64:
		return ArchAArch64
	case AuditArchARM:
		return ArchARM
	case AuditArchRISCV64:
		return ArchRISCV64
	}
	return nil
}

// auditArchName returns a name for an audit arch value, e.g.
// "AUDIT_ARCH_X86_64", or "" if unknown.
func auditArchName(v uint32) string {
	n := elarch.AuditArch(v).String()
	if strings.HasPrefix(n, "unknown") {
		return ""
	}
	return "AUDIT_ARCH_" + strings.ToUpper(n)
}

// init teaches github.com/elastic/go-seccomp-bpf's x86_64 table the names
// newer6_18 adds, so that Beats policies may name them too: its
// Policy.Assemble resolves names through the exported map
// elarch.X86_64.SyscallNames, and without them `uprobe`, `file_getattr`
// and `file_setattr` were unknown to policies while simulate knew them.
// Only missing names are added; existing entries are never changed.
func init() {
	for n, s := range newer6_18["x86_64"] {
		if _, ok := elarch.X86_64.SyscallNames[s]; !ok {
			elarch.X86_64.SyscallNames[s] = n
		}
		if _, ok := elarch.X86_64.SyscallNumbers[n]; !ok {
			elarch.X86_64.SyscallNumbers[n] = s
		}
	}
}

// ErrUnknownSyscall is returned when a syscall name is not in an ABI's
// table.
var ErrUnknownSyscall = errors.New("unknown syscall")

// ARMPrivateBase is __ARM_NR_BASE (arch/arm/include/uapi/asm/unistd.h),
// the number of the first ARM private syscall (EABI): breakpoint,
// cacheflush, usr26, usr32, set_tls and get_tls follow it.
const ARMPrivateBase = 0x0f0000

// LookupSyscall returns the table number of name in arch, or an error
// wrapping ErrUnknownSyscall. A decimal number is accepted as well, and on
// arm an ARM private syscall by minijail's name for it, "ARM_" and the
// kernel's (ARM_set_tls: gen_syscalls.sh names __ARM_NR_set_tls so).
func LookupSyscall(arch *Arch, name string) (int, error) {
	if n, ok := arch.Lookup(name); ok {
		return n, nil
	}
	if k, ok := strings.CutPrefix(name, "ARM_"); ok && arch == ArchARM {
		if n, ok := arch.Lookup(k); ok && n >= ARMPrivateBase {
			return n, nil
		}
	}
	var n int
	if _, err := fmt.Sscanf(name, "%d", &n); err == nil && fmt.Sprint(n) == name && n >= 0 {
		return n, nil
	}
	return 0, fmt.Errorf("look up syscall %q for %s: %w", name, arch.Name, ErrUnknownSyscall)
}
