// Package notify is the supervisor side of the notify workload.
//
// The notify workload (--workload notify) times the round trip of a
// seccomp user notification: the measuring thread installs its stack of
// ordinary filters, then one more filter that returns
// SECCOMP_RET_USER_NOTIF for the workload syscall only (getppid by default)
// and SECCOMP_RET_ALLOW for everything else, installed with
// SECCOMP_FILTER_FLAG_NEW_LISTENER (Linux 5.0). The child's reporter thread
// (unfiltered) passes the listener fd to the parent over a unix socket
// (SCM_RIGHTS) and closes its own copy; a supervisor thread in the parent
// answers every notification with SECCOMP_USER_NOTIF_FLAG_CONTINUE (Linux
// 5.5) or an errno (Options.Errno). One op is one workload syscall:
// filter evaluation, the notification, the supervisor's wake-up, poll(2),
// SECCOMP_IOCTL_NOTIF_RECV and _SEND, and the child's wake-up.
//
// If the supervisor stops answering and closes the listener, the kernel
// fails the pending and every later notified syscall with ENOSYS
// (seccomp(2), "the file descriptor is closed"; kernel/seccomp.c:
// seccomp_notify_release, seccomp_do_user_notification), so the child
// finishes with failed calls, which the parent reports as the cell's error.
package notify

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"syscall"
)

// Options configures the notify workload's supervisor.
type Options struct {
	// Errno, if not 0, is the errno the supervisor answers with, making the
	// child's syscall fail (-Errno); 0 answers
	// SECCOMP_USER_NOTIF_FLAG_CONTINUE, so the kernel runs the syscall.
	Errno syscall.Errno
	// Sync sets SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP on the listener
	// (ioctl SECCOMP_IOCTL_NOTIF_SET_FLAGS): the kernel wakes the
	// supervisor and then the child on the waker's CPU, as a synchronous
	// hand-off. Requires at least Linux 6.6.
	Sync bool

	// DieAfter, when above 0, makes the supervisor close the listener after
	// that many answers: a supervisor that dies, for tests of what the
	// child and the run then report.
	DieAfter uint64
}

// Spec is the notify part of the child protocol.
type Spec struct {
	// Filter is the notifying filter (sock_filter array), installed last
	// with SECCOMP_FILTER_FLAG_NEW_LISTENER.
	Filter []byte `json:"filter"`
	// SockFD is the child's end of the unix socket the listener fd is sent
	// on.
	SockFD int `json:"sock_fd"`
}

// Report is the notify part of a child's report.
type Report struct {
	// Calls is the number of workload syscalls the measuring thread made.
	Calls uint64 `json:"calls"`
	// Failed is how many of them returned an error (-4095..-1).
	Failed uint64 `json:"failed"`
	// LastRet is the raw return value of the last one (-errno on error).
	LastRet int64 `json:"last_ret"`
	// SendErr says why the listener could not be passed to the parent.
	SendErr string `json:"send_err,omitempty"`
}

// ErrSupervisor is wrapped by the error of a notify cell whose supervisor
// did not answer every notification, or answered wrongly.
var ErrSupervisor = errors.New("notification supervisor failed")

// Program returns the notifying filter for syscall nr on the native
// ABI, as a sock_filter array (include/uapi/linux/filter.h, little
// endian):
//
//	0: ld  [4]                      ; seccomp_data.arch
//	1: jeq #AUDIT_ARCH_native, 0, 3 ; other ABIs: allow
//	2: ld  [0]                      ; seccomp_data.nr
//	3: jeq #nr, 0, 1
//	4: ret #SECCOMP_RET_USER_NOTIF
//	5: ret #SECCOMP_RET_ALLOW
//
// It notifies for nr only, never for a syscall of the Go runtime or the
// harness (the measuring thread makes no other syscall of that number).
func Program(nr int64) []byte {
	const (
		ldAbsW = 0x20
		jeqK   = 0x15
		retK   = 0x06
	)
	insns := []struct {
		op     uint16
		jt, jf uint8
		k      uint32
	}{
		{ldAbsW, 0, 0, 4},
		{jeqK, 0, 3, auditArchNative},
		{ldAbsW, 0, 0, 0},
		{jeqK, 0, 1, uint32(nr)},
		{retK, 0, 0, seccompRetUserNotif},
		{retK, 0, 0, seccompRetAllow},
	}
	var b []byte
	for _, in := range insns {
		b = binary.LittleEndian.AppendUint16(b, in.op)
		b = append(b, in.jt, in.jf)
		b = binary.LittleEndian.AppendUint32(b, in.k)
	}
	return b
}

// Actions and flags of include/uapi/linux/seccomp.h.
const (
	seccompRetUserNotif = 0x7fc00000
	seccompRetAllow     = 0x7fff0000
	notifFlagContinue   = 1 // SECCOMP_USER_NOTIF_FLAG_CONTINUE, Linux 5.5
	notifFDSyncWakeUp   = 1 // SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP, Linux 6.6
)

// ChildFD is the child's file descriptor of the listener socket
// (exec.Cmd.ExtraFiles[0]).
const ChildFD = 3

// CheckReport compares what the child saw with what the supervisor
// answered: every notified call answered exactly once (answers == calls),
// and each call failing exactly when the supervisor answers with an errno,
// with that errno. It returns "" when both sides agree, else the reason.
func CheckReport(rep *Report, answers, want uint64, opts Options) string {
	if rep == nil {
		return "the child reported no notify counts"
	}
	var why []string
	if rep.SendErr != "" {
		why = append(why, "the child could not pass the listener: "+rep.SendErr)
	}
	if rep.Calls != want {
		why = append(why, fmt.Sprintf("the child made %d notified calls, want %d", rep.Calls, want))
	}
	if answers != rep.Calls {
		why = append(why, fmt.Sprintf("the supervisor answered %d of the child's %d notified calls", answers, rep.Calls))
	}
	switch {
	case opts.Errno == 0 && rep.Failed > 0:
		why = append(why, fmt.Sprintf("%d of the child's calls failed (last errno %s) although the supervisor answers CONTINUE: the supervisor stopped answering and the kernel returned ENOSYS (seccomp(2))", rep.Failed, retErrno(rep.LastRet)))
	case opts.Errno != 0 && rep.Failed != rep.Calls:
		why = append(why, fmt.Sprintf("only %d of the child's %d calls failed although the supervisor answers errno %d", rep.Failed, rep.Calls, int(opts.Errno)))
	case opts.Errno != 0 && rep.LastRet != -int64(opts.Errno):
		why = append(why, fmt.Sprintf("the child's last call returned %d, want -%d (%s)", rep.LastRet, int(opts.Errno), opts.Errno))
	}
	return strings.Join(why, "; ")
}

// retErrno names the errno of a raw syscall return value, or "none".
func retErrno(r int64) string {
	if r < 0 && r >= -4095 {
		return syscall.Errno(-r).Error()
	}
	return "none"
}
