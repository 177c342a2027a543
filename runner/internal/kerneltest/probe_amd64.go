package kerneltest

// Raw single syscalls implemented in probe_amd64.s, for probing what a
// filter stack returns without the Go runtime's syscall wrappers (used by
// the emulator-vs-kernel test).

// Probe64 makes syscall nr through the x86_64 SYSCALL entry with six
// arguments and returns RAX: the result, or -errno.
//
//go:noescape
func Probe64(nr, a0, a1, a2, a3, a4, a5 uintptr) (r uintptr)

// Probe32 makes i386 syscall nr through INT $0x80 with six 32-bit arguments
// and returns EAX: the result, or -errno. It faults (SIGSEGV) on kernels
// without IA-32 emulation (CONFIG_IA32_EMULATION off, or ia32_emulation=0
// on the command line, Linux 6.7+).
//
//go:noescape
func Probe32(nr, a0, a1, a2, a3, a4, a5 uint32) (r int32)

// StoreFlag atomically stores v at p without any race-detector hook, for a
// thread whose filters may deny the syscalls such a hook makes. Readers use
// sync/atomic.LoadUint32.
//
//go:noescape
func StoreFlag(p *uint32, v uint32)
