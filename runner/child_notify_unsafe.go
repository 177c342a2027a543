package runner

import (
	"sync/atomic"
	"unsafe"

	"github.com/seccompbench/seccompbench/runner/internal/loop"
	"github.com/seccompbench/seccompbench/runner/internal/sys"
	"github.com/seccompbench/seccompbench/runner/notify"
	"golang.org/x/sys/unix"
)

// notifyState is the notify workload's part of measureState: set up before
// the measuring thread starts, written by it (NOSPLIT) and read by the
// reporter.
type notifyState struct {
	prog     sys.SockFprog
	filter   []byte       // keeps prog's instructions reachable
	sock     int          // child's end of the socket to the supervisor
	listener atomic.Int32 // listener fd once installed, 0 before
	sent     bool         // reporter: listener passed on (or given up)
	sendErr  string
	res      [2]uint64 // loop.SyscallCount: failed calls, last return value
	calls    uint64
}

// setupNotify prepares the notify state of st from the spec, before the
// measuring thread starts.
func (st *measureState) setupNotify(ns *notify.Spec) bool {
	fp, ok := sys.NewSockFprog(ns.Filter)
	if !ok {
		return false
	}
	st.notify = &notifyState{prog: fp, filter: ns.Filter, sock: ns.SockFD}
	return true
}

// installNotify installs the notifying filter with
// SECCOMP_FILTER_FLAG_NEW_LISTENER on the measuring thread and publishes
// the listener fd (seccomp(2) returns it). On failure it records the errno
// like a failing stack filter (failedAt = the number of stack filters) and
// returns false. NOSPLIT like measure.
//
//go:nosplit
func installNotify(st *measureState) bool {
	n := st.notify
	r, _, e := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, uintptr(st.spec.Flags)|sys.FlagNewListener, uintptr(unsafe.Pointer(&n.prog)))
	if e != 0 {
		st.errno = uintptr(e)
		st.failedAt = len(st.progs)
		return false
	}
	n.listener.Store(int32(r))
	return true
}

// runNotify is the notify workload's timed loop; NOSPLIT.
//
//go:nosplit
func runNotify(st *measureState) {
	spec := st.spec
	n := st.notify
	loop.SyscallCount(spec.Iterations, uintptr(spec.Syscall[0]), uintptr(spec.Syscall[1]), uintptr(spec.Syscall[2]), uintptr(spec.Syscall[3]), &n.res)
	n.calls += spec.Iterations
}

// pollNotify runs on the reporter thread (no filters): once the listener
// exists, it sends it to the parent's supervisor with SCM_RIGHTS and
// closes this process's copies of the listener and the socket, so that
// the supervisor holds the only reference: if it stops answering and
// closes the listener, the kernel fails the notified calls with ENOSYS
// instead of leaving the child blocked (seccomp(2)).
func (st *measureState) pollNotify() {
	n := st.notify
	if n == nil || n.sent {
		return
	}
	fd := int(n.listener.Load())
	if fd <= 0 {
		return
	}
	if err := unix.Sendmsg(n.sock, []byte{'L'}, unix.UnixRights(fd), nil, 0); err != nil {
		n.sendErr = "send listener fd: " + err.Error()
	}
	unix.Close(fd)
	unix.Close(n.sock)
	n.sent = true
}

// report returns the child's notify counts.
func (n *notifyState) report() *notify.Report {
	if n == nil {
		return nil
	}
	return &notify.Report{Calls: n.calls, Failed: n.res[0], LastRet: int64(n.res[1]), SendErr: n.sendErr}
}
