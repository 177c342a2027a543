#include "textflag.h"

// Timed loops for the measuring thread. They are NOSPLIT leaf functions
// that make raw SYSCALLs: no stack check (so no preemption point), no Go
// runtime wrapper, no libc. SYSCALL clobbers CX and R11, so the loop
// counter lives in R12 and the pipe fd in R13.
// Syscall numbers: arch/x86/entry/syscalls/syscall_64.tbl.

// func Mix(iters uint64, fd uintptr)
// Per iteration (UnixBench syscall.c "mix"): close(dup(fd)); getpid();
// getuid(); umask(022): 5 syscalls.
TEXT ·Mix(SB), NOSPLIT, $0-16
	MOVQ iters+0(FP), R12
	MOVQ fd+8(FP), R13
	TESTQ R12, R12
	JZ mixdone
mixloop:
	MOVQ $32, AX   // dup
	MOVQ R13, DI
	SYSCALL
	MOVQ AX, DI
	MOVQ $3, AX    // close
	SYSCALL
	MOVQ $39, AX   // getpid
	SYSCALL
	MOVQ $102, AX  // getuid
	SYSCALL
	MOVQ $95, AX   // umask
	MOVQ $18, DI   // 022
	SYSCALL
	DECQ R12
	JNZ mixloop
mixdone:
	RET

// func Getpid(iters uint64)
// Per iteration: getpid(): 1 syscall.
TEXT ·Getpid(SB), NOSPLIT, $0-8
	MOVQ iters+0(FP), R12
	TESTQ R12, R12
	JZ gpdone
gploop:
	MOVQ $39, AX
	SYSCALL
	DECQ R12
	JNZ gploop
gpdone:
	RET

// func Close(iters uint64, fd uintptr)
// Per iteration (UnixBench syscall.c "close"): close(dup(fd)): 2 syscalls.
TEXT ·Close(SB), NOSPLIT, $0-16
	MOVQ iters+0(FP), R12
	MOVQ fd+8(FP), R13
	TESTQ R12, R12
	JZ cldone
clloop:
	MOVQ $32, AX
	MOVQ R13, DI
	SYSCALL
	MOVQ AX, DI
	MOVQ $3, AX
	SYSCALL
	DECQ R12
	JNZ clloop
cldone:
	RET

// func Syscall(iters uint64, nr, a0, a1, a2 uintptr)
// Per iteration: syscall nr(a0, a1, a2): 1 syscall.
TEXT ·Syscall(SB), NOSPLIT, $0-40
	MOVQ iters+0(FP), R12
	TESTQ R12, R12
	JZ scdone
scloop:
	MOVQ nr+8(FP), AX
	MOVQ a0+16(FP), DI
	MOVQ a1+24(FP), SI
	MOVQ a2+32(FP), DX
	SYSCALL
	DECQ R12
	JNZ scloop
scdone:
	RET

// func Control(iters uint64, buf *uint64)
// CPU-bound control loop without syscalls: a chain of store then dependent
// load through memory, the pattern the speculative-store-bypass mitigation
// (SSBD) slows down. Per iteration: one store, one load, one add.
TEXT ·Control(SB), NOSPLIT, $0-16
	MOVQ iters+0(FP), R12
	MOVQ buf+8(FP), R13
	MOVQ $0, AX
	TESTQ R12, R12
	JZ ctdone
ctloop:
	MOVQ AX, 0(R13)
	MOVQ 0(R13), BX
	LEAQ 1(BX), AX
	MOVQ AX, 8(R13)
	MOVQ 8(R13), AX
	DECQ R12
	JNZ ctloop
ctdone:
	RET

// func Exec(iters uint64, paths *uintptr, npaths uint64, argv, envp *uintptr, status *int32) (ok uint64)
// Per iteration: vfork-style clone(CLONE_VM|CLONE_VFORK|SIGCHLD); the new
// process tries execve on each of the npaths paths in order (all but the
// last missing: ENOENT) and exits 127 if none succeeds; the parent waits
// with wait4. ok counts children that exited with status 0, i.e. execs that
// really ran the program. The child runs on the parent's stack (as Go's
// own forkExec does) and touches only registers and the read-only
// arguments; the parent is suspended until the child execs or exits.
TEXT ·Exec(SB), NOSPLIT, $0-56
	MOVQ iters+0(FP), R12
	XORQ BX, BX
	TESTQ R12, R12
	JZ exdone
exloop:
	MOVQ $56, AX          // clone
	MOVQ $0x4111, DI      // CLONE_VM|CLONE_VFORK|SIGCHLD
	XORQ SI, SI
	XORQ DX, DX
	XORQ R10, R10
	XORQ R8, R8
	SYSCALL
	TESTQ AX, AX
	JZ exchild
	JS exnext             // clone failed: counted as not ok
	MOVQ AX, DI           // wait4(pid, status, 0, NULL)
	MOVQ $61, AX
	MOVQ status+40(FP), SI
	XORQ DX, DX
	XORQ R10, R10
	SYSCALL
	MOVQ status+40(FP), SI
	MOVL 0(SI), CX
	TESTL CX, CX
	JNZ exnext
	INCQ BX
exnext:
	DECQ R12
	JNZ exloop
exdone:
	MOVQ BX, ok+48(FP)
	RET
exchild:
	MOVQ paths+8(FP), R13
	MOVQ npaths+16(FP), R9
extry:
	MOVQ $59, AX          // execve(paths[i], argv, envp)
	MOVQ 0(R13), DI
	MOVQ argv+24(FP), SI
	MOVQ envp+32(FP), DX
	SYSCALL
	ADDQ $8, R13
	DECQ R9
	JNZ extry
	MOVQ $231, AX         // exit_group(127)
	MOVQ $127, DI
	SYSCALL
	JMP extry             // not reached

// func SyscallCount(iters uint64, nr, a0, a1, a2 uintptr, res *[2]uint64)
// Per iteration: syscall nr(a0, a1, a2): 1 syscall. res[0] counts the
// calls that returned an error (RAX in -4095..-1, compared unsigned),
// res[1] holds the last return value. The notify workload uses it to
// check, in the child, what the supervisor answered.
TEXT ·SyscallCount(SB), NOSPLIT, $0-48
	MOVQ iters+0(FP), R12
	MOVQ res+40(FP), R13
	TESTQ R12, R12
	JZ sccdone
sccloop:
	MOVQ nr+8(FP), AX
	MOVQ a0+16(FP), DI
	MOVQ a1+24(FP), SI
	MOVQ a2+32(FP), DX
	SYSCALL
	MOVQ AX, 8(R13)
	CMPQ AX, $-4095
	JCS sccok
	INCQ 0(R13)
sccok:
	DECQ R12
	JNZ sccloop
sccdone:
	RET

// func Probe(iters uint64, nr uintptr, chase *uint64, steps uint64, code uintptr, sink *uint64)
// The indirect-cost probe. Per iteration: steps dependent loads through
// chase (each word read is the index, in words, of the next: a cycle of
// cache lines in random order, so every load waits for the previous one
// and the prefetcher cannot hide a miss), then a call into code when it is
// not 0 (a straight-line sled that clobbers AX only and returns), then
// syscall nr() with arguments 0: 1 syscall. The last index goes to *sink
// so the loads have a use.
TEXT ·Probe(SB), NOSPLIT, $0-48
	MOVQ iters+0(FP), R12
	MOVQ chase+16(FP), R13
	XORQ BX, BX
	TESTQ R12, R12
	JZ prdone
prloop:
	MOVQ steps+24(FP), R9
	TESTQ R9, R9
	JZ prcode
prchase:
	MOVQ (R13)(BX*8), BX
	DECQ R9
	JNZ prchase
prcode:
	MOVQ code+32(FP), R10
	TESTQ R10, R10
	JZ prsys
	CALL R10
prsys:
	MOVQ nr+8(FP), AX
	XORQ DI, DI
	XORQ SI, SI
	XORQ DX, DX
	SYSCALL
	DECQ R12
	JNZ prloop
prdone:
	MOVQ sink+40(FP), R10
	MOVQ BX, (R10)
	RET
