package filters

import "testing"

// TestRISCV64Table checks the riscv64 table against the kernel's generic
// numbering (include/uapi/asm-generic/unistd.h, arch/riscv/include/uapi/
// asm/unistd.h): riscv's own calls at 258 and 259, no renameat, no 32-bit
// time64 calls, and the count of a Linux 6.18 riscv64 unistd_64.h.
func TestRISCV64Table(t *testing.T) {
	for name, want := range map[string]int{
		"io_setup": 0, "openat": 56, "read": 63, "newfstatat": 79, "exit_group": 94, "clone": 220,
		"mmap": 222, "riscv_hwprobe": 258, "riscv_flush_icache": 259, "wait4": 260, "clone3": 435,
		"memfd_secret": 447, "map_shadow_stack": 453, "file_setattr": 469,
	} {
		if got, ok := ArchRISCV64.Lookup(name); !ok || got != want {
			t.Errorf("riscv64 %s = %d, %v; want %d", name, got, ok, want)
		}
	}
	for _, name := range []string{"renameat", "arch_specific_syscall", "clock_gettime64", "futex_time64", "open", "fstatat"} {
		if n, ok := ArchRISCV64.Lookup(name); ok {
			t.Errorf("riscv64 has %s (%d)", name, n)
		}
	}
	if got := len(ArchRISCV64.Numbers); got != 326 {
		t.Errorf("riscv64 has %d numbers, want 326", got)
	}
	if got, err := LookupArch("riscv64"); err != nil || got != ArchRISCV64 {
		t.Errorf("LookupArch(riscv64) = %v, %v", got, err)
	}
	if got := archByAudit(AuditArchRISCV64); got != ArchRISCV64 {
		t.Errorf("archByAudit(RISCV64) = %v", got)
	}
	if got := KernelArches(ArchRISCV64); len(got) != 1 || got[0] != ArchRISCV64 {
		t.Errorf("KernelArches(riscv64) = %v", got)
	}
	// The aarch64 table is left alone.
	if _, ok := ArchAArch64.Lookup("renameat"); !ok {
		t.Error("aarch64 lost renameat")
	}
}
