#include "textflag.h"

// Single raw syscalls for probing a filter stack on arm64: NOSPLIT leaf
// functions with no stack check (so no preemption point) and no runtime
// wrapper, safe on a thread whose filters deny futex. They return the raw
// result, -errno on failure.

// func Probe64(nr, a0, a1, a2, a3, a4, a5 uintptr) (r uintptr)
// One SVC #0: number in R8, arguments in R0-R5, result in R0.
TEXT ·Probe64(SB), NOSPLIT, $0-64
	MOVD nr+0(FP), R8
	MOVD a0+8(FP), R0
	MOVD a1+16(FP), R1
	MOVD a2+24(FP), R2
	MOVD a3+32(FP), R3
	MOVD a4+40(FP), R4
	MOVD a5+48(FP), R5
	SVC
	MOVD R0, r+56(FP)
	RET

// func StoreFlag(p *uint32, v uint32)
// A store-release (STLR), which sync/atomic.StoreUint32 also compiles to,
// minus the race-detector hook.
TEXT ·StoreFlag(SB), NOSPLIT, $0-12
	MOVD p+0(FP), R0
	MOVWU v+8(FP), R1
	STLRW R1, (R0)
	RET
