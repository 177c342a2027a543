// Package cpulock keeps runs off each other's measuring CPUs and watches
// those CPUs for load from other processes: flock(2) locks named after
// the CPU, the allowed-CPU set, and the foreign-load share from
// /proc/stat.
package cpulock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/seccompbench/seccompbench/runner/result"
)

// CPU ownership. Two runs whose measuring threads share a CPU time each
// other: the issue that added this measured one run's 0-filter cell at
// 1521.6 ns against 911.5 ns alone. So a run owns each CPU it measures on
// through an advisory lock, flock(2) LOCK_EX on a file named after the CPU
// (cpu-N.lock) in the lock directory. The file holds the owner's PID so a
// refused run can name it. flock locks belong to the open file
// description and go away when the owner exits, even by SIGKILL, so a lock
// file left behind never blocks anyone; two runs inside one process
// conflict too, as each opens the file itself.

// DefaultCPUWait is how long RunAdaptive waits for a busy CPU when
// Config.CPUWait is 0.
const DefaultCPUWait = time.Minute

// cpuLockPoll is how often a waiting run retries the locks.
const cpuLockPoll = 100 * time.Millisecond

// ErrCPUBusy is wrapped by *CPUBusyError: the CPUs a run would measure on
// stayed locked by other runs for as long as it could wait.
var ErrCPUBusy = errors.New("measuring CPU busy")

// CPUBusyError names the CPUs that stayed locked and the runs holding
// them.
type CPUBusyError struct {
	// CPUs are the CPUs that were wanted and stayed locked.
	CPUs []int
	// Holders are the PIDs in the lock files, one per CPU (0: unknown).
	Holders []int
	// Waited is how long the run waited before giving up.
	Waited time.Duration
	// Explicit is true when the CPU was chosen by the user (Config.CPU
	// >= 0), false when every allowed CPU was tried.
	Explicit bool
}

// Error names each busy CPU and its owner's PID and command line, and says
// what to do.
func (e *CPUBusyError) Error() string {
	var b strings.Builder
	for i, cpu := range e.CPUs {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "CPU %d is measuring for another run (%s)", cpu, DescribePID(e.Holders[i]))
	}
	fmt.Fprintf(&b, "; waited %s", e.Waited.Round(100*time.Millisecond))
	if e.Explicit {
		b.WriteString(": sharing a measuring CPU makes both runs time each other; wait for that run, choose another CPU with --cpu, or raise --cpu-wait")
	} else {
		b.WriteString(": every allowed CPU is measuring for another run; wait for one to finish or raise --cpu-wait")
	}
	return b.String()
}

// Unwrap returns ErrCPUBusy.
func (e *CPUBusyError) Unwrap() error { return ErrCPUBusy }

// DescribePID returns "PID n: command line", or "PID unknown", for
// messages about the owner of a CPU lock.
func DescribePID(pid int) string {
	if pid <= 0 {
		return "PID unknown"
	}
	return result.OtherRun{Pid: pid, Argv: PIDArgv(pid)}.String()
}

// PIDArgv returns the command line of process pid from
// /proc/PID/cmdline, its first word cut to a base name; nil when it
// cannot be read (the process has gone, or is a kernel thread).
func PIDArgv(pid int) []string {
	cmd, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || len(cmd) == 0 {
		return nil
	}
	args := strings.Split(strings.TrimRight(string(cmd), "\x00"), "\x00")
	args[0] = filepath.Base(args[0])
	return args
}

// DefaultLockDir returns the directory for the CPU lock files: the first
// of /run/seccompbench, $XDG_RUNTIME_DIR/seccompbench and
// $TMPDIR/seccompbench-cpu that exists or can be created. Runs that pick
// different directories (root and an ordinary user without
// XDG_RUNTIME_DIR, say) do not see each other's locks; the foreign-load
// watch still reports what they steal.
func DefaultLockDir() (string, error) {
	cands := []string{"/run/seccompbench"}
	if x := os.Getenv("XDG_RUNTIME_DIR"); x != "" {
		cands = append(cands, filepath.Join(x, "seccompbench"))
	}
	cands = append(cands, filepath.Join(os.TempDir(), "seccompbench-cpu"))
	var errs []error
	for _, d := range cands {
		if err := ensureLockDir(d); err != nil {
			errs = append(errs, err)
			continue
		}
		return d, nil
	}
	return "", fmt.Errorf("find a CPU lock directory: %w", errors.Join(errs...))
}

// ensureLockDir creates dir, world-writable and sticky like /tmp so runs
// of other users can lock its files too, and checks that it is a
// directory this process can create files in.
func ensureLockDir(dir string) error {
	if err := os.Mkdir(dir, 0o755); err == nil {
		os.Chmod(dir, 0o777|os.ModeSticky)
	} else if !errors.Is(err, os.ErrExist) {
		return err
	}
	if st, err := os.Stat(dir); err != nil {
		return err
	} else if !st.IsDir() {
		return fmt.Errorf("%s: not a directory", dir)
	}
	return unix.Access(dir, unix.W_OK|unix.X_OK)
}

// cpuLock is one held CPU lock.
type cpuLock struct {
	cpu int
	f   *os.File
}

// CPULocks are the CPU locks a run holds.
type CPULocks struct {
	held []cpuLock
	dir  string
}

// Dir returns the directory of the lock files, "" for a nil CPULocks.
func (l *CPULocks) Dir() string {
	if l == nil {
		return ""
	}
	return l.dir
}

// CPUs returns the locked CPUs, in the order they were taken.
func (l *CPULocks) CPUs() []int {
	var out []int
	for _, h := range l.held {
		out = append(out, h.cpu)
	}
	return out
}

// Release unlocks and closes every lock; the files stay for the next run.
func (l *CPULocks) Release() {
	if l == nil {
		return
	}
	for _, h := range l.held {
		unix.Flock(int(h.f.Fd()), unix.LOCK_UN)
		h.f.Close()
	}
	l.held = nil
}

// tryLockCPU takes the lock of cpu in dir without blocking. It returns the
// open file when it got the lock, or the PID written by the holder (0 if
// unreadable) when another run has it.
func tryLockCPU(dir string, cpu int) (*os.File, int, error) {
	path := filepath.Join(dir, fmt.Sprintf("cpu-%d.lock", cpu))
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
	writable := err == nil
	if errors.Is(err, os.ErrPermission) {
		// Created by another user: locking needs no write access.
		f, err = os.Open(path)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("open CPU lock %s: %w", path, err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, readLockPID(path), nil
		}
		return nil, 0, fmt.Errorf("lock %s: %w", path, err)
	}
	if writable {
		f.Truncate(0)
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, 0, nil
}

// readLockPID returns the PID in a lock file, 0 if it has none.
func readLockPID(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0
	}
	return pid
}

// LockCPUs takes the CPU locks in dir ("" for DefaultLockDir) for need
// distinct CPUs out of cands, in the order of cands. With explicit, every
// CPU of cands is needed (need is ignored); otherwise any need of them
// will do. While too few are free it retries every 100 ms for up to wait
// (negative: no retry), calling onWait once with the busy CPUs and their
// holders' PIDs. It returns ctx.Err() when ctx is done, and a
// *CPUBusyError (wrapping ErrCPUBusy) when the wait ran out.
func LockCPUs(ctx context.Context, dir string, cands []int, need int, explicit bool, wait time.Duration, onWait func(cpus, pids []int)) (*CPULocks, error) {
	if dir == "" {
		d, err := DefaultLockDir()
		if err != nil {
			return nil, err
		}
		dir = d
	}
	var uniq []int
	for _, c := range cands {
		if !slices.Contains(uniq, c) {
			uniq = append(uniq, c)
		}
	}
	if explicit || need > len(uniq) {
		need = len(uniq)
	}
	locks := &CPULocks{dir: dir}
	start := time.Now()
	waited := false
	for {
		var busy, pids []int
		for _, cpu := range uniq {
			if len(locks.held) == need {
				break
			}
			if slices.Contains(locks.CPUs(), cpu) {
				continue
			}
			f, pid, err := tryLockCPU(dir, cpu)
			if err != nil {
				locks.Release()
				return nil, err
			}
			if f == nil {
				busy, pids = append(busy, cpu), append(pids, pid)
				continue
			}
			locks.held = append(locks.held, cpuLock{cpu: cpu, f: f})
		}
		if len(locks.held) == need {
			// Keep the order of cands, so the first wanted CPU comes
			// first whatever order the locks came free in.
			slices.SortStableFunc(locks.held, func(a, b cpuLock) int {
				return slices.Index(uniq, a.cpu) - slices.Index(uniq, b.cpu)
			})
			return locks, nil
		}
		if wait < 0 || time.Since(start) >= wait {
			locks.Release()
			return nil, &CPUBusyError{CPUs: busy, Holders: pids, Waited: time.Since(start), Explicit: explicit}
		}
		if !waited && onWait != nil {
			onWait(busy, pids)
		}
		waited = true
		select {
		case <-ctx.Done():
			locks.Release()
			return nil, ctx.Err()
		case <-time.After(cpuLockPoll):
		}
	}
}
