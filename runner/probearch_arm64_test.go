package runner

import "github.com/seccompbench/seccompbench/filters"

// On arm64 the kernel-agreement test probes the native aarch64 ABI only,
// through probe64 (SVC): its "probeX86_64" slot means "the native entry".
// An AArch32 (compat, AUDIT_ARCH_ARM) syscall needs a task in AArch32
// state, which a Go arm64 process is not, and arm64 has no x32.
var (
	probeArches = [...]*filters.Arch{probeX86_64: filters.ArchAArch64, probeI386: filters.ArchARM, probeX32: filters.ArchAArch64}
	probeABIs   = []int{probeX86_64}
)

// nativeArch is the ABI this test binary's syscalls use.
var nativeArch = filters.ArchAArch64
