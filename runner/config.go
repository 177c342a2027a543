package runner

import (
	"time"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/runner/cpulock"
	"github.com/seccompbench/seccompbench/runner/notify"
	"github.com/seccompbench/seccompbench/runner/result"
)

// Config describes a measurement run.
type Config struct {
	// Programs are the policies' filters, cycled to build each stack
	// (filters.BuildStack).
	Programs []*filters.Program
	// Counts are the filter counts to measure, e.g. 0,1,2,4,8,16,32.
	Counts []int
	// Variants are measured at every count.
	Variants []result.Variant
	// Loaders are measured at every variant and count, each as its own
	// cells (default: result.LoaderUnprivileged only). See Loader.
	Loaders []result.Loader
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
	// RunAdaptive locks the CPUs it measures on (cpulock.LockCPUs): with -1 it
	// takes the highest allowed CPU no other run holds; with an explicit
	// CPU it waits for that one. Either way it never shares a measuring
	// CPU with another run.
	CPU int
	// CPUWait bounds the wait for a CPU lock held by another run before
	// RunAdaptive gives up with a *cpulock.CPUBusyError; 0 means DefaultCPUWait
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
	// which the stack fit divides by (docs/methodology-variation.md, "Paired
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
	Progress func(done, total int, c result.Cell)

	// Notify configures the supervisor of the notify workload
	// (workload.Notify); ignored by the other workloads.
	Notify notify.Options

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
	Stop func([]result.Sample) bool
	// AroundChild, if set, is called before each child with its block
	// index and cell; the function it returns (nil: none) is called when
	// the child has returned, before anything else starts. Children run
	// one at a time, so what happens between the two calls is that
	// child's (estimate --command samples the command's CPU time there).
	AroundChild func(block int, c result.Cell) (after func())

	execPaths []string       // set by Run and Calibrate for the exec workloads
	cpus      []int          // CPUs of the parallel copies
	watch     *cpulock.Watch // foreign load on the measuring CPUs, set by RunAdaptive
}
