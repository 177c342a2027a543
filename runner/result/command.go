package result

import (
	"errors"
	"fmt"
	"strings"
	"syscall"

	"github.com/seccompbench/seccompbench/filters"
)

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
	// ContainerNs is, on the runtime path (runner/container), the
	// container's wall time outside the runs in ns: fork of the runtime
	// to its reaping minus every run's wall time, i.e. the container's
	// start and end and the runtime's work on linux.seccomp; 0 for the
	// command workload.
	ContainerNs float64
	// Design is the A/B design of the child ("children", "pairs" or
	// "duet"; "" for the runtime path, which is "children").
	Design string
	// BaseWallNs and BaseCPUNs are, in the paired designs, the wall time
	// (fork to reaping) and user+sys CPU time of the unfiltered run of
	// each pair, in ns, BaseWallNs[i] paired with WallNs[i]; the run time
	// (execve to reaping) is Sample.BaselineSamplesNsPerOp. BaseFirst[i]
	// says the unfiltered run of pair i started first (pairs) or ran on
	// the first of the two CPUs (duet). Empty in the children design.
	BaseWallNs, BaseCPUNs []float64
	BaseFirst             []bool
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
			fmt.Fprintf(&b, "killed by signal %s", signalName(e.Signal))
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
		fmt.Fprintf(&b, "killed by signal %s (%s)", signalName(e.Signal), e.Signal)
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

// signalNames are the Linux signal names by number (signal(7); the same
// numbers on amd64 and arm64, include/uapi/asm-generic/signal.h).
var signalNames = [...]string{1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 5: "SIGTRAP",
	6: "SIGABRT", 7: "SIGBUS", 8: "SIGFPE", 9: "SIGKILL", 10: "SIGUSR1", 11: "SIGSEGV",
	12: "SIGUSR2", 13: "SIGPIPE", 14: "SIGALRM", 15: "SIGTERM", 16: "SIGSTKFLT",
	17: "SIGCHLD", 18: "SIGCONT", 19: "SIGSTOP", 20: "SIGTSTP", 21: "SIGTTIN",
	22: "SIGTTOU", 23: "SIGURG", 24: "SIGXCPU", 25: "SIGXFSZ", 26: "SIGVTALRM",
	27: "SIGPROF", 28: "SIGWINCH", 29: "SIGIO", 30: "SIGPWR", 31: "SIGSYS"}

// signalName returns the name of s ("SIGSYS"), "" for a real-time or
// unknown signal, as unix.SignalName does.
func signalName(s syscall.Signal) string {
	if s > 0 && int(s) < len(signalNames) {
		return signalNames[s]
	}
	return ""
}
