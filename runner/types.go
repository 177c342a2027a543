package runner

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/seccompbench/seccompbench/filters"
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

// Config describes a measurement run.
type Config struct {
	// Programs are the policies' filters, cycled to build each stack
	// (filters.BuildStack).
	Programs []*filters.Program
	// Counts are the filter counts to measure, e.g. 0,1,2,4,8,16,32.
	Counts []int
	// Variants are measured at every count.
	Variants []Variant
	// Loaders are measured at every variant and count, each as its own
	// cells (default: LoaderUnprivileged only). See Loader.
	Loaders []Loader
	// Placement chooses each child's pad: the never-executed instructions
	// appended to every filter of its stack. The zero value appends none;
	// DefaultPlacement draws a pad from [0, DefaultMaxPad] per child from
	// Seed, as `run` does by default.
	Placement Placement
	// Workload is the timed loop.
	Workload Workload
	// Trials is the number of randomized blocks: each holds every cell once.
	Trials int
	// Seed seeds the block shuffles and the random pads.
	Seed uint64
	// CPU pins the measuring thread; -1 picks one, -2 disables pinning.
	// RunAdaptive locks the CPUs it measures on (LockCPUs): with -1 it
	// takes the highest allowed CPU no other run holds; with an explicit
	// CPU it waits for that one. Either way it never shares a measuring
	// CPU with another run.
	CPU int
	// CPUWait bounds the wait for a CPU lock held by another run before
	// RunAdaptive gives up with a *CPUBusyError; 0 means DefaultCPUWait
	// (1 min), negative means not to wait.
	CPUWait time.Duration
	// OnCPUWait, if set, is called once with a sentence naming the busy
	// CPUs and their owners when RunAdaptive starts to wait for them.
	OnCPUWait func(msg string)
	// LockDir is the directory of the CPU lock files ("": DefaultLockDir).
	LockDir string
	// Iterations per timed sample; 0 calibrates to SampleDuration.
	Iterations uint64
	// SampleDuration is the calibration target for one sample (default 2ms).
	SampleDuration time.Duration
	// Samples is the number of timed samples per child (default 5); the
	// child's value is their median.
	Samples int
	// Warmup is the number of untimed samples before them (default 1).
	Warmup int
	// ControlIters is the control loop's iterations per timing (0: none).
	ControlIters uint64
	// Unpaired turns off the paired baseline. By default every child of
	// a loop workload (all but notify and command) also times the
	// workload before installing its stack, with the same warm-up and
	// samples on the same thread and CPU, and reports it as
	// Sample.BaselineNsPerOp: its own syscall cost without filters,
	// which the stack fit divides by (docs/methodology.md, "Paired
	// children"). It doubles each child's timed work.
	Unpaired bool
	// SpecAllow passes SECCOMP_FILTER_FLAG_SPEC_ALLOW (Linux 4.17) so that
	// installing filters does not enable the speculative store bypass
	// mitigation.
	SpecAllow bool
	// ChildTimeout kills a child that has not reported by then. 0 derives
	// it per cell from calibration (DeriveChildTimeout): 10 s plus ten
	// times the child's expected work, so only a hung child reaches it.
	ChildTimeout time.Duration
	// Progress, if set, is called after each child with the number done and
	// the total.
	Progress func(done, total int, c Cell)

	// Notify configures the supervisor of the notify workload
	// (NotifyWorkload); ignored by the other workloads.
	Notify NotifyOptions

	// Parallel runs this many copies of the workload at once per cell, each
	// in its own child pinned to its own CPU where there are enough
	// (default 1). A Sample's NsPerOp is then the mean over copies.
	Parallel int
	// MaxTrials, when above Trials, lets Run add blocks beyond Trials while
	// Stop returns false, up to MaxTrials.
	MaxTrials int
	// MaxTime stops adding blocks beyond Trials once this much time has
	// passed since Run started (0: no limit). For the command workload it
	// is a hard bound: no block starts after it once two blocks are done,
	// and a calibrated R is lowered so that two blocks fit in it.
	MaxTime time.Duration
	// Stop is asked after each block from Trials on whether the samples so
	// far are precise enough; true stops the run.
	Stop func([]Sample) bool

	execPaths []string   // set by Run and Calibrate for the exec workloads
	cpus      []int      // CPUs of the parallel copies
	watch     *loadWatch // foreign load on the measuring CPUs, set by RunAdaptive
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

// ErrChild is wrapped by every *ChildError.
var ErrChild = errors.New("measuring child failed")

// ChildError reports a child that died, hung, failed to install its filters
// or reported a wrong filter count. It names the cell.
type ChildError struct {
	Cell   Cell
	Reason string
	// Signal is the signal that killed the child, 0 if none.
	Signal syscall.Signal
	// ExitCode is the child's exit status, -1 if killed.
	ExitCode int
	// Errno is the errno of a failed seccomp(2) call, 0 if none.
	Errno syscall.Errno
	// Stderr is the tail of the child's standard error.
	Stderr string
	// Cause, if not nil, is a sentinel the failure belongs to, e.g.
	// ErrNotSupported for a kernel without a needed feature.
	Cause error
}

// Error names the cell and the reason, the signal with a hint for SIGSYS,
// and the tail of the child's standard error.
func (e *ChildError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "child for %s: %s", e.Cell, e.Reason)
	if e.Signal != 0 {
		fmt.Fprintf(&b, " (killed by signal %s)", e.Signal)
		if e.Signal == syscall.SIGSYS {
			b.WriteString(": a filter returned SECCOMP_RET_KILL_PROCESS or SECCOMP_RET_TRAP for a syscall the harness made")
		}
	}
	if s := strings.TrimSpace(e.Stderr); s != "" {
		fmt.Fprintf(&b, "\nchild stderr:\n%s", s)
	}
	return b.String()
}

// Unwrap returns ErrChild, the errno and the cause, if any.
func (e *ChildError) Unwrap() []error {
	errs := []error{ErrChild}
	if e.Errno != 0 {
		errs = append(errs, e.Errno)
	}
	if e.Cause != nil {
		errs = append(errs, e.Cause)
	}
	return errs
}
