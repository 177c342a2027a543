package live

import (
	"github.com/cilium/ebpf/asm"
)

// Layout of one sample record in the ring buffer, written by the sampling
// program and decoded by decodeSample. Offsets in bytes.
const (
	recTime  = 0  // u64 bpf_ktime_get_ns (CLOCK_MONOTONIC)
	recTgid  = 8  // u32 thread-group ID
	recTid   = 12 // u32 thread ID
	recUser  = 16 // u32 1 when the sample interrupted user mode
	recCPU   = 20 // u32 CPU of the sample
	recNr    = 24 // s64 orig_ax of the task's entry pt_regs
	recAX    = 32 // s64 ax of the task's entry pt_regs
	recStack = 40 // s64 bytes bpf_get_stack wrote, or its negative errno
	recComm  = 48 // [16]byte bpf_get_current_comm
	recIPs   = 64 // u64 × StackDepth kernel return addresses, innermost first
)

// StackDepth is the number of kernel frames a sample keeps, innermost
// first. The seccomp frames sit within the first ten of a syscall-entry
// stack (filter image, __seccomp_filter, __secure_computing,
// syscall_trace_enter, do_syscall_64, entry_SYSCALL_64); deeper frames
// only matter for classifying samples outside seccomp, which need not be
// exact.
const StackDepth = 24

// recSize is the size of one record, in bytes.
const recSize = recIPs + 8*StackDepth

// x86_64 struct pt_regs offsets (arch/x86/include/asm/ptrace.h), in bytes.
const (
	ptRegsAX     = 80  // ax: -ENOSYS from syscall entry until the syscall returns
	ptRegsOrigAX = 120 // orig_ax: the syscall number on syscall entry
	ptRegsCS     = 136 // cs: its low two bits are the privilege level
)

// Offsets in struct bpf_perf_event_data (include/uapi/linux/bpf_perf_event.h):
// regs (struct pt_regs on x86_64) comes first.
const perfCtxCS = ptRegsCS

// Config map layout (an array of one cfgSize-byte value), in bytes.
const (
	cfgAll  = 0 // u32: 1 samples every process, 0 only those in the targets map
	cfgSize = 8
)

// samplerProgram returns the BPF_PROG_TYPE_PERF_EVENT program that runs on
// every cpu-clock sample: for a thread group in the targets hash map (or
// every one, when cfgAll is set) it reserves a record in the ring buffer
// and stores the time, IDs, CPU, comm, whether user mode was interrupted, orig_ax
// and ax of the task's entry registers (bpf_task_pt_regs of
// bpf_get_current_task_btf; Linux 5.15) and the kernel callchain
// (bpf_get_stack with the perf event's regs). It returns 0, so perf writes
// no sample of its own (kernel/events/core.c: bpf_overflow_handler).
// Samples of the idle task (tgid 0) are dropped. When the ring buffer is
// full the sample is counted in lost[0].
func samplerProgram(cfgFD, targetsFD, ringFD, lostFD int) asm.Instructions {
	ins := asm.Instructions{
		asm.Mov.Reg(asm.R6, asm.R1), // ctx
		asm.FnGetCurrentPidTgid.Call(),
		asm.Mov.Reg(asm.R7, asm.R0), // pid_tgid
		asm.Mov.Reg(asm.R8, asm.R0),
		asm.RSh.Imm(asm.R8, 32), // tgid
	}
	ins = append(ins, selectTgid(cfgFD, targetsFD)...)
	ins = append(ins, asm.Instructions{
		// Reserve the record.
		asm.LoadMapPtr(asm.R1, ringFD).WithSymbol("take"),
		asm.Mov.Imm(asm.R2, recSize),
		asm.Mov.Imm(asm.R3, 0),
		asm.FnRingbufReserve.Call(),
		asm.JNE.Imm(asm.R0, 0, "fill"),
		// Ring buffer full: count the loss.
		asm.StoreImm(asm.RFP, -4, 0, asm.Word),
		asm.LoadMapPtr(asm.R1, lostFD),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -4),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "out"),
		asm.Mov.Imm(asm.R1, 1),
		asm.StoreXAdd(asm.R0, asm.R1, asm.DWord),
		asm.Ja.Label("out"),
		// Fill it.
		asm.Mov.Reg(asm.R9, asm.R0).WithSymbol("fill"),
		asm.StoreMem(asm.R9, recTgid, asm.R8, asm.Word),
		asm.StoreMem(asm.R9, recTid, asm.R7, asm.Word),
		asm.FnKtimeGetNs.Call(),
		asm.StoreMem(asm.R9, recTime, asm.R0, asm.DWord),
		asm.FnGetSmpProcessorId.Call(),
		asm.StoreMem(asm.R9, recCPU, asm.R0, asm.Word),
		asm.LoadMem(asm.R1, asm.R6, perfCtxCS, asm.DWord),
		asm.And.Imm(asm.R1, 3),
		asm.Mov.Imm(asm.R2, 0),
		asm.JEq.Imm(asm.R1, 0, "kmode"),
		asm.Mov.Imm(asm.R2, 1),
		asm.StoreMem(asm.R9, recUser, asm.R2, asm.Word).WithSymbol("kmode"),
	}...)
	ins = append(ins, entryRegs()...)
	return append(ins, asm.Instructions{
		// The thread's comm: short-lived processes are gone before
		// /proc can name them.
		asm.Mov.Reg(asm.R1, asm.R9),
		asm.Add.Imm(asm.R1, recComm),
		asm.Mov.Imm(asm.R2, 16),
		asm.FnGetCurrentComm.Call(),
		// Kernel callchain, innermost first.
		asm.Mov.Reg(asm.R1, asm.R6),
		asm.Mov.Reg(asm.R2, asm.R9),
		asm.Add.Imm(asm.R2, recIPs),
		asm.Mov.Imm(asm.R3, 8*StackDepth),
		asm.Mov.Imm(asm.R4, 0), // flags 0: the kernel stack
		asm.FnGetStack.Call(),
		asm.StoreMem(asm.R9, recStack, asm.R0, asm.DWord),
		asm.Mov.Reg(asm.R1, asm.R9),
		asm.Mov.Imm(asm.R2, 0),
		asm.FnRingbufSubmit.Call(),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
		asm.Return(),
	}...)
}

// entryRegs returns the sampler's instructions that store orig_ax and ax
// of the current task's entry frame (bpf_task_pt_regs of
// bpf_get_current_task_btf) into the record at R9, each -1 when
// bpf_probe_read_kernel fails. They clobber R0 to R5 and R7.
func entryRegs() asm.Instructions {
	ins := asm.Instructions{
		asm.Mov.Imm(asm.R1, -1),
		asm.StoreMem(asm.R9, recNr, asm.R1, asm.DWord),
		asm.StoreMem(asm.R9, recAX, asm.R1, asm.DWord),
		asm.FnGetCurrentTaskBtf.Call(),
		asm.Mov.Reg(asm.R1, asm.R0),
		asm.FnTaskPtRegs.Call(),
		asm.Mov.Reg(asm.R7, asm.R0),
	}
	ins = append(ins, readReg(ptRegsOrigAX, recNr)...)
	return append(ins, readReg(ptRegsAX, recAX)...)
}

// readReg returns the instructions that copy the 8-byte register at
// offset regsOff (bytes) of the pt_regs at R7 into the record at R9 at
// offset recOff (bytes) with bpf_probe_read_kernel. They clobber R0 to R5.
func readReg(regsOff, recOff int32) asm.Instructions {
	return asm.Instructions{
		asm.Mov.Reg(asm.R3, asm.R7),
		asm.Add.Imm(asm.R3, regsOff),
		asm.Mov.Reg(asm.R1, asm.R9),
		asm.Add.Imm(asm.R1, recOff),
		asm.Mov.Imm(asm.R2, 8),
		asm.FnProbeReadKernel.Call(),
	}
}

// counterProgram returns the BPF_PROG_TYPE_RAW_TRACEPOINT program for
// sys_exit (include/trace/events/syscalls.h: TP_PROTO(struct pt_regs
// *regs, long ret)): for a thread group in the targets map (or every one,
// when cfgAll is set) it adds 1 to counts[tgid<<32 | nr], nr being the
// regs' orig_ax. sys_exit, not sys_enter: a syscall that seccomp fails
// skips sys_enter but still reaches sys_exit (kernel/entry/common.c:
// syscall_trace_enter returns early; syscall_exit_work still runs).
func counterProgram(cfgFD, targetsFD, countsFD int) asm.Instructions {
	ins := asm.Instructions{
		asm.Mov.Reg(asm.R6, asm.R1), // ctx: u64 args[2]
		asm.FnGetCurrentPidTgid.Call(),
		asm.Mov.Reg(asm.R8, asm.R0),
		asm.RSh.Imm(asm.R8, 32), // tgid
	}
	ins = append(ins, selectTgid(cfgFD, targetsFD)...)
	return append(ins, asm.Instructions{
		// nr = regs->orig_ax
		asm.LoadMem(asm.R3, asm.R6, 0, asm.DWord).WithSymbol("take"),
		asm.Add.Imm(asm.R3, ptRegsOrigAX),
		asm.Mov.Reg(asm.R1, asm.RFP),
		asm.Add.Imm(asm.R1, -16),
		asm.Mov.Imm(asm.R2, 8),
		asm.FnProbeReadKernel.Call(),
		asm.LoadMem(asm.R1, asm.RFP, -16, asm.DWord),
		asm.LSh.Imm(asm.R1, 32),
		asm.RSh.Imm(asm.R1, 32),
		asm.Mov.Reg(asm.R2, asm.R8),
		asm.LSh.Imm(asm.R2, 32),
		asm.Or.Reg(asm.R1, asm.R2),
		asm.StoreMem(asm.RFP, -16, asm.R1, asm.DWord), // key
		asm.LoadMapPtr(asm.R1, countsFD),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -16),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "new"),
		asm.Mov.Imm(asm.R1, 1),
		asm.StoreXAdd(asm.R0, asm.R1, asm.DWord),
		asm.Ja.Label("out"),
		asm.Mov.Imm(asm.R1, 1).WithSymbol("new"),
		asm.StoreMem(asm.RFP, -24, asm.R1, asm.DWord),
		asm.LoadMapPtr(asm.R1, countsFD),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -16),
		asm.Mov.Reg(asm.R3, asm.RFP),
		asm.Add.Imm(asm.R3, -24),
		asm.Mov.Imm(asm.R4, 1), // BPF_NOEXIST
		asm.FnMapUpdateElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "out"),
		// Another CPU inserted the key first: add to its entry.
		asm.LoadMapPtr(asm.R1, countsFD),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -16),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "out"),
		asm.Mov.Imm(asm.R1, 1),
		asm.StoreXAdd(asm.R0, asm.R1, asm.DWord),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
		asm.Return(),
	}...)
}

// selectTgid continues a program whose R8 holds the current tgid: it jumps
// to "out" for the idle task (tgid 0) and for a thread group that is not
// in the targets map, unless cfgAll is set, and falls through to "take"
// (the caller's next instruction must carry that symbol).
func selectTgid(cfgFD, targetsFD int) asm.Instructions {
	return asm.Instructions{
		asm.JEq.Imm(asm.R8, 0, "out"),
		asm.StoreImm(asm.RFP, -4, 0, asm.Word),
		asm.LoadMapPtr(asm.R1, cfgFD),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -4),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "out"),
		asm.LoadMem(asm.R1, asm.R0, cfgAll, asm.Word),
		asm.JNE.Imm(asm.R1, 0, "take"),
		asm.StoreMem(asm.RFP, -8, asm.R8, asm.Word),
		asm.LoadMapPtr(asm.R1, targetsFD),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -8),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "out"),
	}
}

// followProgram returns the BPF_PROG_TYPE_RAW_TRACEPOINT program for
// sched_process_fork (include/trace/events/sched.h: TP_PROTO(struct
// task_struct *parent, struct task_struct *child), fired by the parent in
// kernel/fork.c: kernel_clone): when the current thread group is in the
// targets map it reads the child's tgid (at byte offset tgidOff of struct
// task_struct, from the kernel's BTF) and adds it to the map, so a target's
// descendants are sampled from their first instruction. A thread
// (CLONE_THREAD) adds its own thread group again, which changes nothing.
func followProgram(targetsFD int, tgidOff int32) asm.Instructions {
	return asm.Instructions{
		asm.LoadMem(asm.R6, asm.R1, 8, asm.DWord), // args[1]: child
		asm.FnGetCurrentPidTgid.Call(),
		asm.RSh.Imm(asm.R0, 32),
		asm.StoreMem(asm.RFP, -4, asm.R0, asm.Word),
		asm.LoadMapPtr(asm.R1, targetsFD),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -4),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "out"),
		// key = child->tgid
		asm.Mov.Reg(asm.R1, asm.RFP),
		asm.Add.Imm(asm.R1, -8),
		asm.Mov.Imm(asm.R2, 4),
		asm.Mov.Reg(asm.R3, asm.R6),
		asm.Add.Imm(asm.R3, tgidOff),
		asm.FnProbeReadKernel.Call(),
		asm.JNE.Imm(asm.R0, 0, "out"),
		asm.StoreImm(asm.RFP, -12, 1, asm.Byte),
		asm.LoadMapPtr(asm.R1, targetsFD),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -8),
		asm.Mov.Reg(asm.R3, asm.RFP),
		asm.Add.Imm(asm.R3, -12),
		asm.Mov.Imm(asm.R4, 0), // BPF_ANY
		asm.FnMapUpdateElem.Call(),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
		asm.Return(),
	}
}
