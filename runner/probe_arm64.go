package runner

// Raw single syscalls implemented in probe_arm64.s, for probing what a
// filter stack returns without the Go runtime's syscall wrappers.

// probe64 makes syscall nr through the AArch64 SVC entry with six arguments
// and returns X0: the result, or -errno.
//
//go:noescape
func probe64(nr, a0, a1, a2, a3, a4, a5 uintptr) (r uintptr)

// storeFlag atomically stores v at p (a store-release) without any
// race-detector hook, for a thread whose filters may deny the syscalls such
// a hook makes. Readers use sync/atomic.LoadUint32.
//
//go:noescape
func storeFlag(p *uint32, v uint32)

// A 64-bit arm64 task cannot make an AArch32 (compat, AUDIT_ARCH_ARM)
// syscall: that needs a process in AArch32 state. So there is no probe32
// here; the kernel-agreement test probes the native ABI only on arm64.
