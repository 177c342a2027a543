package kerneltest

// Raw single syscalls implemented in probe_arm64.s, for probing what a
// filter stack returns without the Go runtime's syscall wrappers.

// Probe64 makes syscall nr through the AArch64 SVC entry with six arguments
// and returns X0: the result, or -errno.
//
//go:noescape
func Probe64(nr, a0, a1, a2, a3, a4, a5 uintptr) (r uintptr)

// StoreFlag atomically stores v at p (a store-release) without any
// race-detector hook, for a thread whose filters may deny the syscalls such
// a hook makes. Readers use sync/atomic.LoadUint32.
//
//go:noescape
func StoreFlag(p *uint32, v uint32)

// Probe32 stands in for amd64's INT $0x80 probe: a 64-bit arm64 task
// cannot make an AArch32 (compat, AUDIT_ARCH_ARM) syscall, which needs a
// process in AArch32 state. It makes no syscall and returns -ENOSYS, so
// the kernel-agreement test finds the compat ABI unusable and probes the
// native ABI only.
//
//go:nosplit
func Probe32(nr, a0, a1, a2, a3, a4, a5 uint32) int32 { return -38 }
