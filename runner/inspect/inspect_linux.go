// Package inspect reads the seccomp filters of live processes: their
// /proc/PID/status and, with PTRACE_SECCOMP_GET_FILTER, the filters
// themselves (Linux 4.4, CAP_SYS_ADMIN).
package inspect

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/seccompbench/seccompbench/runner/result"
	"golang.org/x/sys/unix"
)

// ListPids returns the PIDs of every process in /proc, ascending.
func ListPids() ([]int, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	var pids []int
	for _, e := range ents {
		if n, err := strconv.Atoi(e.Name()); err == nil && n > 0 {
			pids = append(pids, n)
		}
	}
	sort.Ints(pids)
	return pids, nil
}

// Sentinels of DumpFilters, each wrapped in a *DumpError.
var (
	// ErrDumpDenied is returned when the kernel refuses to let this
	// process attach to the target or read its filters: no
	// CAP_SYS_ADMIN, this process itself under seccomp, Yama's
	// ptrace_scope, no CAP_SYS_PTRACE over the target, or the target
	// already traced.
	ErrDumpDenied = errors.New("not permitted to dump seccomp filters")
	// ErrDumpUnsupported is returned when the kernel cannot dump filters:
	// built without CONFIG_CHECKPOINT_RESTORE (EINVAL on a process in
	// filter mode), or a filter with no saved classic BPF program
	// (EMEDIUMTYPE).
	ErrDumpUnsupported = errors.New("kernel cannot dump seccomp filters")
	// ErrNoFilterMode is returned when the target is not in seccomp filter
	// mode (Seccomp is 0 or 1 in /proc/PID/status), so it has no filters
	// to dump.
	ErrNoFilterMode = errors.New("process is not in seccomp filter mode")
	// ErrProcessGone is returned when the target exited during the dump.
	ErrProcessGone = errors.New("process exited")
)

// DumpError reports a failed step of DumpFilters: which process, which
// step, the errno and a hint for the user.
type DumpError struct {
	// Pid is the target process.
	Pid int
	// Op is the step: "attach", "interrupt", "wait", "get filter N",
	// "detach" or "check".
	Op string
	// Errno is the failing call's errno, 0 if none.
	Errno unix.Errno
	// Kind is one of the Err* sentinels of DumpFilters, nil if none fits.
	Kind error
	// Hint says what to do about it.
	Hint string
}

// Error names the process and the step, then the errno, the sentinel and
// the hint where set.
func (e *DumpError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "dump seccomp filters of pid %d: %s", e.Pid, e.Op)
	if e.Errno != 0 {
		fmt.Fprintf(&b, ": %v (%s)", e.Errno, unix.ErrnoName(e.Errno))
	}
	if e.Kind != nil {
		fmt.Fprintf(&b, ": %v", e.Kind)
	}
	if e.Hint != "" {
		fmt.Fprintf(&b, "; %s", e.Hint)
	}
	return b.String()
}

// Unwrap returns Kind and Errno, where set.
func (e *DumpError) Unwrap() []error {
	var out []error
	if e.Kind != nil {
		out = append(out, e.Kind)
	}
	if e.Errno != 0 {
		out = append(out, e.Errno)
	}
	return out
}

// maxDumpFilters bounds the dump loop: MAX_INSNS_PER_PATH / (1 + 4) filters
// of one instruction each is the most a task can have
// (kernel/seccomp.c: seccomp_attach_filter).
const maxDumpFilters = 32768 / 5

// stopTimeout is how long DumpFilters waits for the target to stop after
// PTRACE_INTERRUPT. A task in uninterruptible sleep stops only when it
// wakes.
var stopTimeout = 5 * time.Second

// DumpFilters returns every seccomp filter attached to the thread-group
// leader of process pid, as arrays of struct sock_filter in native byte
// order, index 0 = the oldest filter (the first installed), the order of
// filters.Stack.
//
// It attaches with PTRACE_SEIZE, which sends no signal, stops the target
// with PTRACE_INTERRUPT, reads each filter with PTRACE_SECCOMP_GET_FILTER
// and detaches, also on every error path; a signal that arrived during the
// stop is delivered on detach. The target is stopped for the time of one
// ptrace call per filter. If this process dies while attached, the kernel
// detaches and resumes the target (kernel/ptrace.c: exit_ptrace); a seized
// target is never left in a stop it did not ask for. All ptrace calls run
// on one locked OS thread, because the tracer is a thread, not a process.
//
// Index order: kernel/seccomp.c: get_nth_filter counts the filters (newest
// first, following ->prev), subtracts the requested index from the count
// and walks that many filters minus one from the newest, so index 0 is the
// oldest filter. (ptrace(2) documents the opposite; this function's test
// checks the order on the running kernel.)
//
// Needs CAP_SYS_ADMIN in the initial user namespace, this process not in
// seccomp mode itself (kernel/seccomp.c: seccomp_get_filter returns EACCES
// otherwise), and permission to ptrace the target (CAP_SYS_PTRACE or the
// same uid, within Yama's kernel.yama.ptrace_scope). Errors are *DumpError
// values wrapping ErrDumpDenied, ErrDumpUnsupported, ErrNoFilterMode or
// ErrProcessGone, and the errno. Requires at least Linux 4.4 with
// CONFIG_CHECKPOINT_RESTORE.
func DumpFilters(pid int) (dump [][]byte, err error) {
	if pid == os.Getpid() {
		return nil, &DumpError{Pid: pid, Op: "check", Kind: ErrDumpDenied, Hint: "a process cannot ptrace itself"}
	}
	st, err := ReadProcStatus(pid)
	if err != nil {
		return nil, &DumpError{Pid: pid, Op: "check", Kind: ErrProcessGone, Hint: err.Error()}
	}
	if st.SeccompMode != result.SeccompModeFilter {
		return nil, &DumpError{Pid: pid, Op: "check", Kind: ErrNoFilterMode, Hint: fmt.Sprintf("Seccomp is %d in /proc/%d/status", st.SeccompMode, pid)}
	}
	if st.TracerPid > 0 {
		return nil, &DumpError{Pid: pid, Op: "check", Kind: ErrDumpDenied,
			Hint: fmt.Sprintf("the process is already traced by pid %d (a process has at most one tracer): detach that debugger or strace first", st.TracerPid)}
	}

	// ptrace state belongs to the calling thread: attach, every request
	// and detach must come from the same one.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	if e := unix.PtraceSeize(pid); e != nil {
		errno, _ := e.(unix.Errno)
		de := &DumpError{Pid: pid, Op: "attach (PTRACE_SEIZE)", Errno: errno}
		switch errno {
		case unix.EPERM:
			de.Kind, de.Hint = ErrDumpDenied, attachHint(pid)
		case unix.ESRCH:
			de.Kind = ErrProcessGone
		}
		return nil, de
	}
	sig := 0 // signal to deliver on detach
	stopped := false
	defer func() {
		if !stopped {
			// PTRACE_DETACH needs a stopped tracee; a seized tracee
			// that never stopped is detached by the kernel when this
			// process exits, and is not stopped meanwhile.
			return
		}
		if _, _, e := unix.Syscall6(unix.SYS_PTRACE, unix.PTRACE_DETACH, uintptr(pid), 0, uintptr(sig), 0, 0); e != 0 && e != unix.ESRCH && err == nil {
			dump, err = nil, &DumpError{Pid: pid, Op: "detach", Errno: e}
		}
	}()
	if e := unix.PtraceInterrupt(pid); e != nil {
		errno, _ := e.(unix.Errno)
		return nil, &DumpError{Pid: pid, Op: "interrupt (PTRACE_INTERRUPT)", Errno: errno}
	}
	var werr error
	stopped, sig, werr = waitStop(pid)
	if werr != nil {
		return nil, werr
	}
	for i := 0; i < maxDumpFilters; i++ {
		n, errno := ptraceGetFilter(pid, i, nil)
		if errno == unix.ENOENT {
			return dump, nil
		}
		if errno != 0 {
			return nil, getFilterError(pid, i, errno)
		}
		buf := make([]byte, n*8)
		m, errno := ptraceGetFilter(pid, i, buf)
		if errno != 0 {
			return nil, getFilterError(pid, i, errno)
		}
		if m != n {
			return nil, &DumpError{Pid: pid, Op: fmt.Sprintf("get filter %d", i), Hint: fmt.Sprintf("length changed from %d to %d instructions", n, m)}
		}
		dump = append(dump, buf)
	}
	return nil, &DumpError{Pid: pid, Op: "get filters", Hint: fmt.Sprintf("more than %d filters", maxDumpFilters)}
}

// waitStop waits for the seized target to report a stop, polling so that a
// target that never stops (uninterruptible sleep) does not hang the caller.
// sig is the signal to re-inject on detach when the stop was a
// signal-delivery stop, 0 for the PTRACE_EVENT_STOP of PTRACE_INTERRUPT or
// a group stop (ptrace(2): "Group-stop", "PTRACE_INTERRUPT").
func waitStop(pid int) (stopped bool, sig int, err error) {
	deadline := time.Now().Add(stopTimeout)
	for {
		var ws unix.WaitStatus
		wpid, e := unix.Wait4(pid, &ws, unix.WALL|unix.WNOHANG, nil)
		switch {
		case e == unix.EINTR:
			continue
		case e != nil:
			errno, _ := e.(unix.Errno)
			return false, 0, &DumpError{Pid: pid, Op: "wait", Errno: errno}
		case wpid == pid && (ws.Exited() || ws.Signaled()):
			return false, 0, &DumpError{Pid: pid, Op: "wait", Kind: ErrProcessGone}
		case wpid == pid && ws.Stopped():
			// The event sits in bits 16..23 of the status; a group stop
			// of a seized tracee is PTRACE_EVENT_STOP too, with the
			// stopping signal in StopSignal (ptrace(2)).
			if uint32(ws)>>16&0xff != unix.PTRACE_EVENT_STOP {
				sig = int(ws.StopSignal())
			}
			return true, sig, nil
		}
		if time.Now().After(deadline) {
			return false, 0, &DumpError{Pid: pid, Op: "wait",
				Hint: fmt.Sprintf("no stop within %s after PTRACE_INTERRUPT (uninterruptible sleep?); the kernel detaches when this process exits", stopTimeout)}
		}
		time.Sleep(200 * time.Microsecond)
	}
}

// getFilterError explains an errno of PTRACE_SECCOMP_GET_FILTER
// (kernel/seccomp.c: seccomp_get_filter, get_nth_filter).
func getFilterError(pid, index int, errno unix.Errno) error {
	de := &DumpError{Pid: pid, Op: fmt.Sprintf("get filter %d (PTRACE_SECCOMP_GET_FILTER)", index), Errno: errno}
	switch errno {
	case unix.EACCES:
		de.Kind = ErrDumpDenied
		self, _ := ReadProcStatus(os.Getpid())
		if self.SeccompMode > 0 {
			de.Hint = fmt.Sprintf("this process is itself in seccomp mode %d, and the kernel refuses filter dumps to a caller under seccomp: run seccompbench outside any sandbox or container filter", self.SeccompMode)
		} else {
			de.Hint = "reading filters needs CAP_SYS_ADMIN in the initial user namespace: run as root (sudo), not inside a user namespace"
		}
	case unix.EINVAL:
		de.Kind = ErrDumpUnsupported
		de.Hint = "the process is in filter mode, so the kernel lacks CONFIG_CHECKPOINT_RESTORE (PTRACE_SECCOMP_GET_FILTER exists only with it); Seccomp_filters in /proc/PID/status still gives the count"
	case unix.EMEDIUMTYPE:
		de.Kind = ErrDumpUnsupported
		de.Hint = "the kernel kept no classic BPF copy of this filter (not a cBPF filter, or saved without CONFIG_CHECKPOINT_RESTORE)"
	case unix.EIO:
		de.Kind = ErrDumpUnsupported
		de.Hint = "the kernel does not know PTRACE_SECCOMP_GET_FILTER (before Linux 4.4, or built without CONFIG_SECCOMP_FILTER)"
	case unix.ESRCH:
		de.Kind = ErrProcessGone
	}
	return de
}

// attachHint explains an EPERM of PTRACE_SEIZE: Yama's scope, missing
// CAP_SYS_PTRACE, or a tracer that appeared meanwhile.
func attachHint(pid int) string {
	var hints []string
	if st, err := ReadProcStatus(pid); err == nil && st.TracerPid > 0 {
		hints = append(hints, fmt.Sprintf("the process is already traced by pid %d", st.TracerPid))
	}
	if b, err := os.ReadFile("/proc/sys/kernel/yama/ptrace_scope"); err == nil {
		switch s := strings.TrimSpace(string(b)); s {
		case "0":
		case "1":
			hints = append(hints, "Yama kernel.yama.ptrace_scope is 1: only a parent may attach without CAP_SYS_PTRACE; run as root")
		case "2":
			hints = append(hints, "Yama kernel.yama.ptrace_scope is 2: attaching needs CAP_SYS_PTRACE; run as root")
		case "3":
			hints = append(hints, "Yama kernel.yama.ptrace_scope is 3: no process may attach until reboot")
		default:
			hints = append(hints, "Yama kernel.yama.ptrace_scope is "+s)
		}
	}
	hints = append(hints, "attaching needs CAP_SYS_PTRACE or the same uid as a dumpable target")
	return strings.Join(hints, "; ")
}

// ProcessFilters is one process's seccomp state and dumped filters.
type ProcessFilters struct {
	result.ProcStatus
	// Filters are the dumped filters, index 0 = oldest; nil when the dump
	// was not attempted or failed.
	Filters [][]byte
	// DumpErr is the error of DumpFilters, nil if the dump succeeded or
	// was not attempted (not in filter mode).
	DumpErr error
}

// InspectProcess reads pid's status and, when it is in filter mode, dumps
// its filters. The status error is returned; a dump error goes into
// DumpErr, since the status alone is still worth reporting.
func InspectProcess(pid int) (ProcessFilters, error) {
	st, err := ReadProcStatus(pid)
	if err != nil {
		return ProcessFilters{ProcStatus: st}, err
	}
	pf := ProcessFilters{ProcStatus: st}
	if st.SeccompMode == result.SeccompModeFilter {
		pf.Filters, pf.DumpErr = DumpFilters(pid)
	}
	return pf, nil
}
