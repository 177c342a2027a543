package runner

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/seccompbench/seccompbench/filters"
)

// CommandSpec is the command workload: a whole program, run R times per
// child under the cell's stack. See docs/methodology.md, "The command
// workload", for why each run execs through a wrapper.
type CommandSpec struct {
	// Argv is the command and its arguments; Argv[0] is looked up in the
	// PATH of Env before the first child starts.
	Argv []string
	// Env is the command's environment; nil means the parent's.
	Env []string
	// Prepare, if not empty, is run with `sh -c` before every run (warm-up
	// runs included), outside the stack and outside the timing. A prepare
	// command that exits non-zero fails the cell.
	Prepare string
	// Warmup is the number of untimed runs per child before the timed
	// ones (exactly this many; 0 is none).
	Warmup int
	// Runs is R, the timed runs per child; 0 calibrates it so that one
	// child's runs take about TargetChild.
	Runs int
	// TargetChild is the calibration target for one child's timed runs
	// (default 300 ms).
	TargetChild time.Duration
	// IgnoreFailure keeps a run that exits non-zero or is killed: it is
	// timed and counted in CommandSample.Failed instead of failing the
	// cell.
	IgnoreFailure bool
	// ShowOutput sends the command's standard output and error to the
	// child's standard error (whose tail a *ChildError shows) instead of
	// /dev/null. Standard input is /dev/null either way.
	ShowOutput bool

	path string // Argv[0] resolved, set by RunAdaptive
}

// Defaults of the command workload.
const (
	// DefaultTargetChild is CommandSpec.TargetChild's default.
	DefaultTargetChild = 300 * time.Millisecond
	// MinCommandRuns and MaxCommandRuns bound a calibrated R.
	MinCommandRuns = 2
	MaxCommandRuns = 1000
	// minCommandBlocks is how many blocks a command run completes before
	// Config.MaxTime may stop it: two children per cell at least, so every
	// cell has a spread.
	minCommandBlocks = 2
)

// CommandWorkload returns the command workload for spec: ns/op is the wall
// time of one run of the command, from its execve to its reaping by
// wait4(2). It returns an error for an empty command or a negative count.
func CommandWorkload(spec CommandSpec) (Workload, error) {
	if len(spec.Argv) == 0 || spec.Argv[0] == "" {
		return Workload{}, errors.New("command workload: no command: give it after --, e.g. --workload command -- find /usr/share -name x")
	}
	if spec.Warmup < 0 || spec.Runs < 0 {
		return Workload{}, fmt.Errorf("command workload: negative warm-up (%d) or runs (%d)", spec.Warmup, spec.Runs)
	}
	w := findWorkload("command").workload()
	spec.Argv = slices.Clone(spec.Argv)
	spec.Env = slices.Clone(spec.Env)
	w.Command = &spec
	w.Op = "one run of `" + strings.Join(spec.Argv, " ") + "`: execve to wait4, under the stack"
	return w, nil
}

// CommandSample is the command workload's detail of one child (one
// Sample). Each slice has one entry per timed run, in run order.
type CommandSample struct {
	// WallNs is the whole per-run cost in ns: fork of the wrapper (this
	// binary re-executed), its start-up, the seccomp(2) calls, execve of
	// the command, the command, and its reaping.
	WallNs []float64
	// InstallNs is the time the wrapper spent in seccomp(2) installing the
	// stack, in ns per run: what the stack costs once per process.
	InstallNs []float64
	// CPUNs is the command's user+sys CPU time per run in ns (wait4(2)'s
	// rusage of the reaped child, its waited-for descendants included,
	// minus what the wrapper used before execve). When the stack denies
	// getrusage(2) the wrapper cannot read its CPU time after installing,
	// and the install's CPU time is included: InstallCPUNs is then empty.
	CPUNs []float64
	// InstallCPUNs is the install's user+sys CPU time per run in ns
	// (empty when not measured, see CPUNs).
	InstallCPUNs []float64
	// Runs and Warmup are the timed and untimed runs the child made.
	Runs, Warmup int
	// Failed counts timed runs that did not exit 0 (kept, with
	// CommandSpec.IgnoreFailure); FirstFailure describes the first.
	Failed       int
	FirstFailure *CommandError
	// Outliers are the indices of timed runs whose ns/op has a modified
	// z-score above 3.5 within this child (stats.Outliers): reported,
	// never dropped.
	Outliers []int
}

// ErrCommandFailed is wrapped by every *CommandError.
var ErrCommandFailed = errors.New("command failed")

// CommandError is a run of the command workload that did not exit 0: it
// exited non-zero, was killed by a signal, or never started (a filter the
// kernel refused, an execve the stack denied). It reaches callers as the
// Cause of a *ChildError that names the cell.
type CommandError struct {
	// Stage is "prepare" (the --prepare command), "install" (seccomp(2) in
	// the wrapper), "exec" (execve of the command) or "run".
	Stage string
	// Run is the 0-based timed run, or -1 - i for warm-up run i.
	Run int
	// ExitCode is the exit status, -1 if killed by a signal.
	ExitCode int
	// Signal is the signal that killed the process, 0 if none.
	Signal syscall.Signal
	// Errno is the errno of a failed seccomp(2) or execve, 0 if none.
	Errno syscall.Errno
	// Filter is the 0-based index of the filter that failed to install, -1
	// if none.
	Filter int
	// Syscall is the syscall number the kernel logged for a seccomp kill
	// or trap of this process (audit record type 1326, SECCOMP, in the
	// kernel log: kernel/seccomp.c: seccomp_log), -1 if unknown;
	// AuditArch is its arch (AUDIT_ARCH_*).
	Syscall   int
	AuditArch uint32
	// Pid is the process the record names (the command, or one of its
	// children).
	Pid int
	// Filters is the depth of the stack the run had (0: the baseline,
	// where a failure cannot come from the stack).
	Filters int
}

// Error says what happened in which run, with the syscall name when the
// kernel logged one.
func (e *CommandError) Error() string {
	var b strings.Builder
	switch {
	case e.Run >= 0:
		fmt.Fprintf(&b, "run %d: ", e.Run+1)
	default:
		fmt.Fprintf(&b, "warm-up run %d: ", -e.Run)
	}
	switch e.Stage {
	case "prepare":
		b.WriteString("--prepare command ")
	case "install":
		if e.Errno != 0 {
			fmt.Fprintf(&b, "install filter %d: seccomp(2): %v", e.Filter+1, e.Errno)
			return b.String()
		}
		// The wrapper ended before execve without a failed seccomp(2):
		// killed, or the Go runtime gave up (its message went to the
		// command's stderr: --show-output keeps it).
		b.WriteString("the wrapper ended before execve of the command, ")
		if e.Filter >= 0 {
			fmt.Fprintf(&b, "with %d filters installed, ", e.Filter)
		}
		if e.Signal != 0 {
			fmt.Fprintf(&b, "killed by signal %s", unix.SignalName(e.Signal))
		} else {
			fmt.Fprintf(&b, "exit status %d", e.ExitCode)
		}
		return b.String()
	case "exec":
		fmt.Fprintf(&b, "execve of the command: %v", e.Errno)
		if e.Errno == syscall.EPERM || e.Errno == syscall.EACCES {
			b.WriteString(" (the stack may deny execve)")
		}
		return b.String()
	default:
		b.WriteString("command ")
	}
	if e.Signal != 0 {
		fmt.Fprintf(&b, "killed by signal %s (%s)", unix.SignalName(e.Signal), e.Signal)
		if e.Syscall >= 0 {
			fmt.Fprintf(&b, " after syscall %s", syscallName(e.AuditArch, e.Syscall))
			if e.Pid > 0 {
				fmt.Fprintf(&b, " in pid %d", e.Pid)
			}
			b.WriteString(" (kernel audit record)")
		} else if e.Signal == syscall.SIGSYS {
			b.WriteString(" (a filter returned SECCOMP_RET_KILL_* or SECCOMP_RET_TRAP; no audit record named the syscall: see /proc/sys/kernel/seccomp/actions_logged)")
		}
		return b.String()
	}
	fmt.Fprintf(&b, "exited with status %d", e.ExitCode)
	if e.Syscall >= 0 {
		fmt.Fprintf(&b, "; the kernel logged syscall %s in pid %d", syscallName(e.AuditArch, e.Syscall), e.Pid)
	}
	if e.Stage == "run" && e.Filters > 0 {
		b.WriteString(" (a syscall the stack denies with an errno makes commands fail this way; --ignore-failure keeps such runs)")
	}
	return b.String()
}

// Unwrap returns ErrCommandFailed.
func (e *CommandError) Unwrap() error { return ErrCommandFailed }

// syscallName returns "name (nr N)" for a syscall of audit arch a, or "nr
// N" when the arch or number is unknown.
func syscallName(a uint32, nr int) string {
	for _, ar := range filters.NativeArches() {
		if ar.AuditArch == a && ar.Mask == uint32(nr)&filters.X32SyscallBit {
			if n := ar.SyscallName(nr &^ int(ar.Mask)); n != "" {
				return fmt.Sprintf("%s (nr %d)", n, nr)
			}
		}
	}
	return fmt.Sprintf("nr %d", nr)
}
