// Package result holds what a measurement produces and what renderers
// read: cells, samples, how a run ended, the machine it ran on. It imports
// nothing that touches the kernel, so report and stats can use it without
// linking the runner (compare cilium/ebpf, which keeps ProgramInfo apart
// from the syscalls that fill it).
package result

import (
	"fmt"
	"time"
)

// Variant names how the filters of a cell are installed.
type Variant string

const (
	// VariantOn installs the filters as compiled: the kernel's action cache
	// (Linux 5.11+) may skip them for constant-allowed syscalls.
	VariantOn Variant = "on"
	// VariantDefeat prepends `ld [instruction_pointer]` to every filter
	// (filters.Program.DefeatCache): same verdicts, nothing cached.
	VariantDefeat Variant = "defeat"
)

// Cell is one configuration: a variant at a filter count, loaded by a
// Loader ("" for a cell built without one, e.g. calibration).
type Cell struct {
	Variant Variant
	Filters int
	Loader  Loader
}

// String names the cell as "variant=V filters=N loader=L" (without the
// loader part when Loader is ""), as errors and progress lines show it.
func (c Cell) String() string {
	if c.Loader == "" {
		return fmt.Sprintf("variant=%s filters=%d", c.Variant, c.Filters)
	}
	return fmt.Sprintf("variant=%s filters=%d loader=%s", c.Variant, c.Filters, c.Loader)
}

// Copy is one parallel copy's result within a Sample.
type Copy struct {
	// CPU is the CPU the copy's measuring thread was pinned to (-1: none).
	CPU int
	// NsPerOp is the copy's median sample, in ns per op;
	// BaselineNsPerOp its paired baseline (0 if none).
	NsPerOp, BaselineNsPerOp float64
}

// StopReason says why RunAdaptive stopped adding blocks. Its text is the
// "stop_reason" of the JSON result.
type StopReason string

// Stop reasons reported in RunInfo.
const (
	StopTrials    StopReason = "trials"      // the fixed number of blocks ran
	StopPrecision StopReason = "precision"   // Stop reported the target reached
	StopMaxTrials StopReason = "max-trials"  // MaxTrials blocks ran without reaching the target
	StopMaxTime   StopReason = "max-time"    // MaxTime passed without reaching the target
	StopCancelled StopReason = "interrupted" // the context was cancelled (SIGINT, SIGTERM)
	StopFailed    StopReason = "failed"      // a child failed
)

// RunInfo says how a run ended.
type RunInfo struct {
	// Blocks is the number of complete randomized blocks.
	Blocks int
	// StopReason is one of StopTrials, StopPrecision, StopMaxTrials,
	// StopMaxTime, StopCancelled or StopFailed.
	StopReason StopReason
	// Elapsed is the wall time of the run, calibration excluded.
	Elapsed time.Duration
	// Iterations is the loop iterations per sample used.
	Iterations uint64
	// CPUs are the CPUs the copies were pinned to (empty: not pinned).
	CPUs []int
	// ChildTimeout is the longest deadline any cell's children got
	// (Config.ChildTimeout, or derived by DeriveChildTimeout).
	ChildTimeout time.Duration
	// Runs is the command workload's timed runs per child (R, given or
	// calibrated); 0 for the loops.
	Runs int
	// RunNs is the command workload's calibrated wall time of one run in
	// ns, wrapper start-up included (0 for the loops).
	RunNs float64
	// ForeignLoad is the share of the measuring CPUs' time other
	// processes took while the children ran; nil when unpinned or
	// /proc/stat is unreadable.
	ForeignLoad *ForeignLoad
	// PadCaps lists the cells whose random pads were drawn from
	// [MinPad, cap] instead of up to MaxPad, because a larger pad would
	// take their stack over MAX_INSNS_PER_PATH; nil when none.
	PadCaps map[Cell]int
	// Container names the runtime that started every run of the command
	// workload's runtime path; nil otherwise.
	Container *ContainerInfo
}

// ContainerInfo is the runtime of the command workload's runtime path:
// the stack, the loader's privilege and no_new_privs were the runtime's
// own, from the bundle's config.json.
type ContainerInfo struct {
	// Runtime is the runtime binary's name ("runc", "crun"), Path its
	// resolved path.
	Runtime, Path string
	// Version is the output of `RUNTIME --version`.
	Version string
	// Profile names the seccomp profile of config.json's linux.seccomp.
	Profile string
	// Bundle is the bundle given (--bundle); "" when the bundle was
	// written from the policy (--rootfs).
	Bundle string
}

// Sample is one child's result: the unit of replication.
type Sample struct {
	Cell
	// Block is the randomized block index, Seq the child's position in the
	// whole run (0-based), both for drift analysis.
	Block, Seq int
	// NsPerOp is the median over the child's samples of elapsed/ops, in
	// nanoseconds per op.
	NsPerOp float64
	// SamplesNsPerOp are the child's individual samples, in ns per op.
	SamplesNsPerOp []float64
	// BaselineNsPerOp is the median of the child's paired samples, taken
	// by the same loop on the same thread and CPU before it installed its
	// stack, in ns per op (with parallel copies: their mean); 0 when the
	// child took none (Config.Unpaired, the notify and command workloads).
	// BaselineSamplesNsPerOp are those samples.
	BaselineNsPerOp        float64
	BaselineSamplesNsPerOp []float64
	// InstallNs is the duration of each seccomp(2) call, in ns.
	InstallNs []int64
	// ControlBeforeNs and ControlAfterNs time the control loop before and
	// after installing, in ns per control iteration (0 if not run).
	ControlBeforeNs, ControlAfterNs float64
	// FiltersSeen is Seccomp_filters of the measuring thread after
	// installing (-1 if the kernel does not report it).
	FiltersSeen int
	// CPU is the CPU the measuring thread was pinned to, -1 if none.
	CPU int
	// Copies holds each parallel copy's result (one entry when Parallel
	// is 1).
	Copies []Copy
	// PinErr says why the measuring thread could not be pinned (e.g. no
	// permission, CPU offline); "" when pinned or pinning was off.
	PinErr string
	// Command holds the command workload's per-run detail; nil for the
	// loops. NsPerOp is then the median over runs of one run's wall time
	// (execve to reaping), SamplesNsPerOp each run's, and InstallNs each
	// filter's seccomp(2) time, median over runs.
	Command *CommandSample
	// Pad is the number of never-executed instructions appended to every
	// filter of the child's stack (Config.Placement), in instructions.
	Pad int
	// Caps are the measuring thread's capability sets, read back in the
	// child after applying its Loader and before its first seccomp(2)
	// (zero when the child did not report them).
	Caps Caps
	// CapSysAdmin reports whether CAP_SYS_ADMIN was in the effective set
	// then: whether the kernel JIT-compiled the filters as privileged.
	CapSysAdmin bool
}
