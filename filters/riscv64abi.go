package filters

// AuditArchRISCV64 is AUDIT_ARCH_RISCV64 (include/uapi/linux/audit.h):
// EM_RISCV (243) | __AUDIT_ARCH_64BIT | __AUDIT_ARCH_LE.
const AuditArchRISCV64 = 0xc00000f3

// ArchRISCV64 is the native ABI of a riscv64 kernel. Its table is the
// generic one of include/uapi/asm-generic/unistd.h, as aarch64's is
// (since Linux 6.11 both are generated from scripts/syscall.tbl), so it
// is derived from ArchAArch64 with the kernel's differences
// (riscv64Differences). Checked against a riscv64 asm/unistd_64.h
// generated from Linux's tables (QEMU's linux-headers/asm-riscv/
// unistd_64.h): 326 numbers with file_getattr and file_setattr. The
// action-cache bitmap covers NR_syscalls = 470 numbers as of Linux 6.18.
// The compat rv32 ABI (CONFIG_COMPAT, AUDIT_ARCH_RISCV32) is not modeled:
// KernelArches lists riscv64 alone.
var ArchRISCV64 = riscv64FromAArch64()

// riscv64Differences are the entries of ArchAArch64's table that riscv64
// lacks, and those only riscv64 has:
//
//   - 38 renameat: only arm64's arch/arm64/kernel/Makefile.syscalls lists
//     the "renameat" ABI of scripts/syscall.tbl (__ARCH_WANT_RENAMEAT
//     before 6.11); riscv64's does not;
//   - 244 arch_specific_syscall is the base macro
//     (__NR_arch_specific_syscall), not a call, that
//     github.com/elastic/go-seccomp-bpf's aarch64 table lists;
//   - 403-423 are the 32-bit ABIs' *_time64 calls, which that table lists
//     for aarch64 too; no 64-bit kernel has them;
//   - 258 riscv_hwprobe and 259 riscv_flush_icache
//     (__NR_arch_specific_syscall + 14 and + 15,
//     arch/riscv/include/uapi/asm/unistd.h) are riscv's own.
var riscv64Differences = struct {
	drop []int
	add  map[int]string
}{
	drop: []int{38, 244, 403, 404, 405, 406, 407, 408, 409, 410, 411, 412, 413, 414, 415, 416, 417, 418, 419, 420, 421, 422, 423},
	add:  map[int]string{258: "riscv_hwprobe", 259: "riscv_flush_icache"},
}

func riscv64FromAArch64() *Arch {
	a := &Arch{Name: "riscv64", AuditArch: AuditArchRISCV64, Names: map[string]int{}, Numbers: map[int]string{}, CacheBits: 470}
	for n, s := range ArchAArch64.Numbers {
		a.Numbers[n] = s
	}
	for _, n := range riscv64Differences.drop {
		delete(a.Numbers, n)
	}
	for n, s := range riscv64Differences.add {
		a.Numbers[n] = s
	}
	for n, s := range a.Numbers {
		a.Names[s] = n
	}
	return a
}
