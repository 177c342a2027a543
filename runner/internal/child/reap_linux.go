package child

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// BecomeSubreaper makes this process the child subreaper of its
// descendants (prctl(2) PR_SET_CHILD_SUBREAPER, Linux 3.4): a process
// whose parent exits is reparented to this one instead of PID 1
// (kernel/exit.c: forget_original_parent, find_new_reaper), so that
// KillDescendants finds, kills and reaps what a command left running.
// The error is prctl(2)'s.
func BecomeSubreaper() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_CHILD_SUBREAPER): %w", err)
	}
	return nil
}

// maxSweepRounds bounds KillDescendants: each round reaps at least one
// process, so only a tree that forks faster than it is killed reaches it.
const maxSweepRounds = 1 << 16

// KillDescendants kills (SIGKILL) every child this process has left and
// reaps it, round after round, until it has no child at all (wait4(2):
// ECHILD). With BecomeSubreaper the children of a killed child are
// reparented to this process when it exits, so the rounds reach every
// descendant, whatever its process group or session. It returns the
// number of processes reaped. When nothing is left (the usual case) it
// costs one wait4(2) call. The processes reaped here add to this
// process's RUSAGE_CHILDREN, not to the rusage of any child reaped
// before. Errors: wait4(2)'s other than ECHILD and EINTR, or children
// that stay alive while none can be found under /proc to kill.
func KillDescendants() (int, error) {
	reaped, missed := 0, 0
	for round := 0; round < maxSweepRounds; round++ {
		n, live, err := reapExited()
		reaped += n
		if err != nil || !live {
			return reaped, err
		}
		if KillChildren() == 0 {
			// Live children that /proc does not show (another PID
			// namespace's /proc): give them a moment, then give up
			// rather than block for ever.
			if missed++; missed > 1000 {
				return reaped, errors.New("kill what the command left running: live children, but none found in /proc")
			}
			time.Sleep(time.Millisecond)
			continue
		}
		// Block until one of the killed exits; the next round reaps the
		// rest and kills the children they leave.
		pid, err := wait4Retry(-1, 0)
		if errors.Is(err, syscall.ECHILD) {
			return reaped, nil
		}
		if err != nil {
			return reaped, fmt.Errorf("reap what the command left running: wait4: %w", err)
		}
		if pid > 0 {
			reaped++
		}
	}
	return reaped, fmt.Errorf("kill what the command left running: still forking after %d rounds", maxSweepRounds)
}

// reapExited reaps every child that has exited, without blocking, and
// reports whether live children remain.
func reapExited() (reaped int, live bool, err error) {
	for {
		pid, err := wait4Retry(-1, syscall.WNOHANG)
		switch {
		case errors.Is(err, syscall.ECHILD):
			return reaped, false, nil
		case err != nil:
			return reaped, false, fmt.Errorf("reap what the command left running: wait4: %w", err)
		case pid == 0:
			return reaped, true, nil
		}
		reaped++
	}
}

// wait4Retry is wait4(2) on pid with options, retried on EINTR, rusage
// and status discarded.
func wait4Retry(pid, options int) (int, error) {
	var ws syscall.WaitStatus
	for {
		p, err := syscall.Wait4(pid, &ws, options, nil)
		if !errors.Is(err, syscall.EINTR) {
			return p, err
		}
	}
}

// KillChildren sends SIGKILL to every child of this process (live or not
// yet reaped) and returns how many it found; it reaps none. A pid is
// allocated cyclically (kernel/pid.c: alloc_pid, idr_alloc_cyclic), so a
// child reaped by another thread between the listing and the kill is not
// replaced by an unrelated process under the same pid in that time.
func KillChildren() int {
	pids := Children()
	for _, p := range pids {
		syscall.Kill(p, syscall.SIGKILL)
	}
	return len(pids)
}

// Children returns the pids of this process's children, live and
// zombie: from /proc/self/task/TID/children (CONFIG_PROC_CHILDREN;
// fs/proc/array.c: children_seq_show) when the kernel has it, else by
// reading the parent pid of every process under /proc (field 4 of
// /proc/PID/stat, fs/proc/array.c: do_task_stat).
func Children() []int {
	if pids, ok := childrenFiles(); ok {
		return pids
	}
	self := os.Getpid()
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if b, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil && statPPid(b) == self {
			out = append(out, pid)
		}
	}
	return out
}

// childrenFiles reads /proc/self/task/*/children; ok is false when the
// kernel has no such files.
func childrenFiles() (pids []int, ok bool) {
	files, _ := filepath.Glob("/proc/self/task/*/children")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, false
		}
		for _, w := range bytes.Fields(b) {
			if pid, err := strconv.Atoi(string(w)); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	return pids, len(files) > 0
}

// statPPid returns the parent pid in a /proc/PID/stat line, -1 if it
// cannot be read. The command name (field 2) may hold spaces and
// parentheses, so the fields are counted from its last ')'.
func statPPid(b []byte) int {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return -1
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 2 {
		return -1
	}
	ppid, err := strconv.Atoi(string(f[1]))
	if err != nil {
		return -1
	}
	return ppid
}
