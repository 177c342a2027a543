#include "textflag.h"

// Timed loops for the measuring thread on arm64. They are NOSPLIT leaf
// functions that make raw SVC #0 calls: no stack check (so no preemption
// point), no Go runtime wrapper, no libc. The syscall number goes in R8,
// arguments in R0-R5, the result comes back in R0; the kernel preserves
// every other general register (arch/arm64/kernel/entry-common.c), so the
// loop counter lives in R9 and the fd in R10. R18 (platform), R26-R30 (Go
// closure context, REGTMP, g, frame pointer, link register) are left alone.
// Syscall numbers: include/uapi/asm-generic/unistd.h (arm64 has no table
// of its own): dup 23, close 57, umask 166, getpid 172, getuid 174,
// clone 220, execve 221, wait4 260, exit_group 94.

// func Mix(iters uint64, fd uintptr)
// Per iteration (UnixBench syscall.c "mix"): close(dup(fd)); getpid();
// getuid(); umask(022): 5 syscalls.
TEXT ·Mix(SB), NOSPLIT, $0-16
	MOVD iters+0(FP), R9
	MOVD fd+8(FP), R10
	CBZ R9, mixdone
mixloop:
	MOVD R10, R0
	MOVD $23, R8   // dup
	SVC
	MOVD $57, R8   // close(result of dup)
	SVC
	MOVD $172, R8  // getpid
	SVC
	MOVD $174, R8  // getuid
	SVC
	MOVD $18, R0   // umask(022)
	MOVD $166, R8
	SVC
	SUB $1, R9, R9
	CBNZ R9, mixloop
mixdone:
	RET

// func Getpid(iters uint64)
// Per iteration: getpid(): 1 syscall.
TEXT ·Getpid(SB), NOSPLIT, $0-8
	MOVD iters+0(FP), R9
	CBZ R9, gpdone
	MOVD $172, R8
gploop:
	SVC
	SUB $1, R9, R9
	CBNZ R9, gploop
gpdone:
	RET

// func Close(iters uint64, fd uintptr)
// Per iteration (UnixBench syscall.c "close"): close(dup(fd)): 2 syscalls.
TEXT ·Close(SB), NOSPLIT, $0-16
	MOVD iters+0(FP), R9
	MOVD fd+8(FP), R10
	CBZ R9, cldone
clloop:
	MOVD R10, R0
	MOVD $23, R8
	SVC
	MOVD $57, R8
	SVC
	SUB $1, R9, R9
	CBNZ R9, clloop
cldone:
	RET

// func Syscall(iters uint64, nr, a0, a1, a2 uintptr)
// Per iteration: syscall nr(a0, a1, a2): 1 syscall.
TEXT ·Syscall(SB), NOSPLIT, $0-40
	MOVD iters+0(FP), R9
	CBZ R9, scdone
scloop:
	MOVD nr+8(FP), R8
	MOVD a0+16(FP), R0
	MOVD a1+24(FP), R1
	MOVD a2+32(FP), R2
	SVC
	SUB $1, R9, R9
	CBNZ R9, scloop
scdone:
	RET

// func Control(iters uint64, buf *uint64)
// CPU-bound control loop without syscalls: a chain of store then dependent
// load through memory, the pattern the speculative-store-bypass mitigation
// (SSBD) slows down. Per iteration: one store, one load, one add.
TEXT ·Control(SB), NOSPLIT, $0-16
	MOVD iters+0(FP), R9
	MOVD buf+8(FP), R10
	MOVD $0, R0
	CBZ R9, ctdone
ctloop:
	MOVD R0, 0(R10)
	MOVD 0(R10), R1
	ADD $1, R1, R0
	MOVD R0, 8(R10)
	MOVD 8(R10), R0
	SUB $1, R9, R9
	CBNZ R9, ctloop
ctdone:
	RET

// func Exec(iters uint64, paths *uintptr, npaths uint64, argv, envp *uintptr, status *int32) (ok uint64)
// Per iteration: vfork-style clone(CLONE_VM|CLONE_VFORK|SIGCHLD, 0, ...);
// the new process tries execve on each of the npaths paths in order (all
// but the last missing: ENOENT) and exits 127 if none succeeds; the parent
// waits with wait4. ok counts children that exited with status 0. The
// child runs on the parent's stack (a zero stack argument keeps it) and
// touches only registers and the read-only arguments; the parent is
// suspended until the child execs or exits. arm64 takes clone's arguments
// as (flags, newsp, parent_tid, tls, child_tid): CONFIG_CLONE_BACKWARDS.
TEXT ·Exec(SB), NOSPLIT, $0-56
	MOVD iters+0(FP), R9
	MOVD $0, R11
	CBZ R9, exdone
exloop:
	MOVD $0x4111, R0      // CLONE_VM|CLONE_VFORK|SIGCHLD
	MOVD $0, R1
	MOVD $0, R2
	MOVD $0, R3
	MOVD $0, R4
	MOVD $220, R8         // clone
	SVC
	CBZ R0, exchild
	TBNZ $63, R0, exnext  // clone failed: counted as not ok
	MOVD status+40(FP), R1 // wait4(pid, status, 0, NULL)
	MOVD $0, R2
	MOVD $0, R3
	MOVD $260, R8
	SVC
	MOVD status+40(FP), R1
	MOVWU 0(R1), R2
	CBNZ R2, exnext
	ADD $1, R11, R11
exnext:
	SUB $1, R9, R9
	CBNZ R9, exloop
exdone:
	MOVD R11, ok+48(FP)
	RET
exchild:
	MOVD paths+8(FP), R10
	MOVD npaths+16(FP), R12
extry:
	MOVD 0(R10), R0       // execve(paths[i], argv, envp)
	MOVD argv+24(FP), R1
	MOVD envp+32(FP), R2
	MOVD $221, R8
	SVC
	ADD $8, R10, R10
	SUB $1, R12, R12
	CBNZ R12, extry
	MOVD $127, R0         // exit_group(127)
	MOVD $94, R8
	SVC
	B extry               // not reached

// func SyscallCount(iters uint64, nr, a0, a1, a2 uintptr, res *[2]uint64)
// Per iteration: syscall nr(a0, a1, a2): 1 syscall. res[0] counts the
// calls that returned an error (R0 in -4095..-1: R0+4095 below 4095,
// unsigned), res[1] holds the last return value. The notify workload uses
// it to check, in the child, what the supervisor answered.
TEXT ·SyscallCount(SB), NOSPLIT, $0-48
	MOVD iters+0(FP), R9
	MOVD res+40(FP), R10
	CBZ R9, sccdone
sccloop:
	MOVD nr+8(FP), R8
	MOVD a0+16(FP), R0
	MOVD a1+24(FP), R1
	MOVD a2+32(FP), R2
	SVC
	MOVD R0, 8(R10)
	ADD $4095, R0, R11
	CMP $4095, R11
	BHS sccok
	MOVD 0(R10), R12
	ADD $1, R12, R12
	MOVD R12, 0(R10)
sccok:
	SUB $1, R9, R9
	CBNZ R9, sccloop
sccdone:
	RET

// func Probe(iters uint64, nr uintptr, chase *uint64, steps uint64, code uintptr, sink *uint64)
// The indirect-cost probe (contract in loop_amd64.s) without the code
// sled: code must be 0 on arm64 (the runner refuses a code working set
// here: a written sled needs cache maintenance before it runs). Per
// iteration: steps dependent loads through chase, then syscall nr() with
// arguments 0: 1 syscall.
TEXT ·Probe(SB), NOSPLIT, $0-48
	MOVD iters+0(FP), R9
	MOVD chase+16(FP), R10
	MOVD $0, R11
	CBZ R9, prdone
prloop:
	MOVD steps+24(FP), R12
	CBZ R12, prsys
prchase:
	MOVD (R10)(R11<<3), R11
	SUB $1, R12, R12
	CBNZ R12, prchase
prsys:
	MOVD nr+8(FP), R8
	MOVD $0, R0
	MOVD $0, R1
	MOVD $0, R2
	SVC
	SUB $1, R9, R9
	CBNZ R9, prloop
prdone:
	MOVD sink+40(FP), R12
	MOVD R11, (R12)
	RET
