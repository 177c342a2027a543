package command

import (
	"fmt"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/seccompbench/seccompbench/runner/internal/child"
)

// What the timing child does with the processes of its runs.
//
// The timing child is the child subreaper of everything it starts
// (child.BecomeSubreaper): a process that a run's command leaves behind
// (`sh -c 'sleep 30 & exit 0'`, a daemon that forks away and calls
// setsid) is reparented to it, not to PID 1. After every run, once the
// wrapper (that is, the command) has been reaped and the run's times
// taken, sweep kills whatever is left (the --prepare command's leftovers
// included) and reaps it: outside the timed window, and without touching
// the run's rusage, which wait4(2) on the wrapper already returned.
//
// SIGTERM (what child.RunStoppable sends when the run is cancelled, at
// the deadline, or when the parent dies: PR_SET_PDEATHSIG), SIGINT or
// SIGHUP stop the child: the stopper kills every child at once and again
// every stopPoll until the child exits (a wrapper forked just after the
// signal is caught that way), the run in progress returns errStopped
// instead of a failure, and the deferred sweep reaps everything before
// the child writes its report and exits.

// stopPoll is how often the stopper kills the children again once a
// signal has arrived.
const stopPoll = 5 * time.Millisecond

// stopper records the signal that stops the timing child.
type stopper struct {
	sig atomic.Int32 // the signal's number, 0 while none arrived
}

// startStopper catches SIGTERM, SIGINT and SIGHUP for the rest of the
// process's life.
func startStopper() *stopper {
	s := &stopper{}
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	go func() {
		sig, _ := (<-c).(syscall.Signal)
		s.sig.Store(int32(sig))
		for {
			child.KillChildren()
			time.Sleep(stopPoll)
		}
	}()
	return s
}

// err returns nil until a signal arrived, then an error naming it. A nil
// stopper never stops.
func (s *stopper) err() error {
	if s == nil {
		return nil
	}
	if sig := s.sig.Load(); sig != 0 {
		return fmt.Errorf("timing child stopped by %v: the runs in progress were killed", syscall.Signal(sig))
	}
	return nil
}

// sweep kills and reaps what the last run left running (see above).
func sweep() error {
	_, err := child.KillDescendants()
	return err
}
