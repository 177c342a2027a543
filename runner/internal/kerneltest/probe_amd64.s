#include "textflag.h"

// Single raw syscalls for probing a filter stack: NOSPLIT leaf functions
// with no stack check (so no preemption point) and no runtime wrapper, safe
// on a thread whose filters deny futex. They return the raw result, -errno
// on failure.

// func Probe64(nr, a0, a1, a2, a3, a4, a5 uintptr) (r uintptr)
// One SYSCALL through the x86_64 entry (an x32 call when nr has bit 30,
// 0x40000000, set). SYSCALL clobbers CX and R11.
TEXT ·Probe64(SB), NOSPLIT, $0-64
	MOVQ nr+0(FP), AX
	MOVQ a0+8(FP), DI
	MOVQ a1+16(FP), SI
	MOVQ a2+24(FP), DX
	MOVQ a3+32(FP), R10
	MOVQ a4+40(FP), R8
	MOVQ a5+48(FP), R9
	SYSCALL
	MOVQ AX, r+56(FP)
	RET

// func Probe32(nr, a0, a1, a2, a3, a4, a5 uint32) (r int32)
// One i386 syscall through INT $0x80 (the compat entry, arch
// AUDIT_ARCH_I386): number in EAX, arguments in EBX, ECX, EDX, ESI, EDI,
// EBP. BP is the Go frame pointer, so it is kept in R12, which the kernel
// preserves (all registers but AX survive INT $0x80 on kernels since 4.17;
// R12-R15 always did).
TEXT ·Probe32(SB), NOSPLIT, $0-36
	MOVL nr+0(FP), AX
	MOVL a0+4(FP), BX
	MOVL a1+8(FP), CX
	MOVL a2+12(FP), DX
	MOVL a3+16(FP), SI
	MOVL a4+20(FP), DI
	MOVQ BP, R12
	MOVL a5+24(FP), BP
	INT $0x80
	MOVQ R12, BP
	MOVL AX, r+32(FP)
	RET

// func StoreFlag(p *uint32, v uint32)
// An atomic store (XCHG) that, unlike sync/atomic under the race detector,
// calls no race-detector hook: for a thread whose filters deny the
// syscalls such a hook may make (mmap).
TEXT ·StoreFlag(SB), NOSPLIT, $0-12
	MOVQ p+0(FP), AX
	MOVL v+8(FP), BX
	XCHGL BX, 0(AX)
	RET
