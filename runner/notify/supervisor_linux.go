package notify

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/seccompbench/seccompbench/runner/internal/child"
	"github.com/seccompbench/seccompbench/runner/internal/sys"
	"github.com/seccompbench/seccompbench/runner/result"
	"golang.org/x/sys/unix"
)

// Supervisor answers one notify child's notifications from a locked thread
// of the parent process.
type Supervisor struct {
	opts   Options
	nr     int32
	parent int // parent's end of the socket pair
	// Child is the child's end of the socket pair: pass it as the
	// child's ExtraFiles[0] (fd ChildFD).
	Child   *os.File
	stop    atomic.Bool
	wg      sync.WaitGroup
	answers atomic.Uint64
	err     error // set by serve before wg.Done
}

// Start creates the socket pair the child passes its listener on, returns
// the child's part of the protocol and starts the supervisor goroutine, which
// waits for the listener and then answers notifications for syscall nr
// until the listener hangs up (the child exited) or Finish is called.
func Start(opts Options, nr int64) (*Supervisor, *Spec, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("create socket pair for the notify listener: %w", err)
	}
	s := &Supervisor{opts: opts, nr: int32(nr), parent: fds[0], Child: os.NewFile(uintptr(fds[1]), "notify-listener-socket")}
	spec := &Spec{Filter: Program(nr), SockFD: ChildFD}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.err = s.serve()
	}()
	return s, spec, nil
}

// Finish is called once the child has exited: it stops the supervisor
// (shutdown(2) wakes a recvmsg still waiting for the listener; the poll
// loop sees the stop flag within its timeout), waits for it and closes
// the sockets. It returns the number of answers and the supervisor's
// error.
func (s *Supervisor) Finish() (uint64, error) {
	s.stop.Store(true)
	unix.Shutdown(s.parent, unix.SHUT_RDWR)
	s.wg.Wait()
	unix.Close(s.parent)
	s.Child.Close()
	return s.answers.Load(), s.err
}

// pollTimeoutMs bounds how long the supervisor waits in poll(2) before it
// looks at the stop flag, in milliseconds.
const pollTimeoutMs = 100

// serve receives the listener fd and answers notifications on a locked
// thread. The round trip includes one poll(2) per notification: a thread
// blocked in SECCOMP_IOCTL_NOTIF_RECV cannot be woken when the child dies
// (kernel/seccomp.c: seccomp_notify_recv waits for a notification only),
// while poll(2) returns EPOLLHUP once no task uses the filter (Linux 5.8+)
// and times out so that finish can stop it.
func (s *Supervisor) serve() error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	fd, err := s.recvListener()
	if err != nil || fd < 0 {
		return err
	}
	closed := false
	defer func() {
		if !closed {
			unix.Close(fd)
		}
	}()
	if s.opts.Sync {
		if e := notifSetFlags(fd, notifFDSyncWakeUp); e != 0 {
			if e == unix.EINVAL {
				return fmt.Errorf("set SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP: %w (%w): the synchronous wake-up needs Linux 6.6; drop --notify-sync", sys.ErrNotSupported, e)
			}
			return fmt.Errorf("set SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP: %w", e)
		}
	}
	pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	var req seccompNotif
	var resp seccompNotifResp
	for !s.stop.Load() {
		pfd[0].Revents = 0
		n, err := unix.Poll(pfd, pollTimeoutMs)
		if err == unix.EINTR || n == 0 {
			continue
		}
		if err != nil {
			return fmt.Errorf("poll notify listener: %w", err)
		}
		if pfd[0].Revents&unix.POLLIN == 0 {
			return nil // POLLHUP: the child exited, no task uses the filter
		}
		req = seccompNotif{}
		if e := notifRecv(fd, &req); e != 0 {
			if e == unix.EINTR || e == unix.ENOENT {
				continue // the notifying task was interrupted or died
			}
			return fmt.Errorf("SECCOMP_IOCTL_NOTIF_RECV: %w", e)
		}
		resp = seccompNotifResp{ID: req.ID}
		if s.opts.Errno != 0 {
			resp.Error = -int32(s.opts.Errno)
		} else {
			resp.Flags = notifFlagContinue
		}
		if req.Data.Nr != s.nr {
			// Never expected: the filter notifies for one number only.
			// Answer (so the child does not hang) and report it.
			notifSend(fd, &resp)
			return fmt.Errorf("notified for syscall %d, want %d only", req.Data.Nr, s.nr)
		}
		if e := notifSend(fd, &resp); e != 0 {
			if e == unix.ENOENT {
				continue // the task died or was interrupted meanwhile
			}
			return fmt.Errorf("SECCOMP_IOCTL_NOTIF_SEND: %w", e)
		}
		if a := s.answers.Add(1); s.opts.DieAfter > 0 && a >= s.opts.DieAfter {
			unix.Close(fd)
			closed = true
			return nil
		}
	}
	return nil
}

// recvListener waits for the child's listener fd on the socket; -1 and no
// error when the socket was shut down (the child exited first).
func (s *Supervisor) recvListener() (int, error) {
	buf := make([]byte, 1)
	oob := make([]byte, unix.CmsgSpace(4))
	for {
		n, oobn, _, _, err := unix.Recvmsg(s.parent, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			if s.stop.Load() {
				return -1, nil
			}
			return -1, fmt.Errorf("receive notify listener: %w", err)
		}
		if n == 0 {
			return -1, nil // EOF: shut down or the child closed its end
		}
		msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
		if err != nil || len(msgs) != 1 {
			return -1, fmt.Errorf("receive notify listener: no SCM_RIGHTS message (%v)", err)
		}
		fds, err := unix.ParseUnixRights(&msgs[0])
		if err != nil || len(fds) != 1 {
			return -1, fmt.Errorf("receive notify listener: bad SCM_RIGHTS message (%v)", err)
		}
		return fds[0], nil
	}
}

// CellError builds the error of a notify cell from the supervisor's
// answers and error (Finish) and the child's report, nil when both sides
// agree; want is the number of notified calls the child should make.
func (s *Supervisor) CellError(c result.Cell, answers uint64, serr error, rep *Report, want uint64) error {
	if serr != nil {
		ce := &child.Error{Cell: c, ExitCode: 0, Reason: "notify supervisor: " + serr.Error(), Cause: ErrSupervisor}
		if errors.Is(serr, sys.ErrNotSupported) {
			ce.Cause = errors.Join(ErrSupervisor, sys.ErrNotSupported)
		}
		return ce
	}
	if why := CheckReport(rep, answers, want, s.opts); why != "" {
		return &child.Error{Cell: c, Reason: why, Cause: ErrSupervisor}
	}
	return nil
}

// kernelAtLeast reports whether release (uname -r) is at least major.minor;
// false when it cannot be parsed.
func kernelAtLeast(release string, major, minor int) bool {
	var ma, mi int
	if _, err := fmt.Sscanf(release, "%d.%d", &ma, &mi); err != nil {
		return false
	}
	return ma > major || ma == major && mi >= minor
}

// CheckSupport refuses the notify workload on kernels that lack what
// it needs: SECCOMP_USER_NOTIF_FLAG_CONTINUE (Linux 5.5) and, with Sync,
// SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (Linux 6.6). An unparsable release
// passes; the children then report what fails.
func CheckSupport(opts Options) error {
	var uts unix.Utsname
	if unix.Uname(&uts) != nil {
		return nil
	}
	rel := unix.ByteSliceToString(uts.Release[:])
	var ma, mi int
	if _, err := fmt.Sscanf(rel, "%d.%d", &ma, &mi); err != nil {
		return nil
	}
	if !kernelAtLeast(rel, 5, 5) {
		return fmt.Errorf("notify workload on Linux %s: %w: SECCOMP_USER_NOTIF_FLAG_CONTINUE needs Linux 5.5", rel, sys.ErrNotSupported)
	}
	if opts.Sync && !kernelAtLeast(rel, 6, 6) {
		return fmt.Errorf("--notify-sync on Linux %s: %w: SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP needs Linux 6.6; drop --notify-sync", rel, sys.ErrNotSupported)
	}
	return nil
}
