package live

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// clockTick is USER_HZ, the unit of utime and stime in /proc/PID/stat: 100
// on every Linux architecture Go supports (include/asm-generic/param.h;
// sysconf(_SC_CLK_TCK) reports it).
const clockTick = 10 * time.Millisecond

// ProcCPU returns the comm of process pid and its CPU time so far, utime +
// stime of /proc/PID/stat (fields 14 and 15, in clock ticks of 10 ms; man 5
// proc), which includes threads that have exited. Errors wrap
// fs.ErrNotExist when the process is gone.
func ProcCPU(pid int) (comm string, cpu time.Duration, err error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", 0, fmt.Errorf("read CPU time of pid %d: %w", pid, err)
	}
	return parseStat(pid, string(b))
}

// TaskCPU returns the CPU time of process pid's live threads so far, in
// ns: the sum of the first field of /proc/PID/task/TID/schedstat
// (sum_exec_runtime, exact to the nanosecond; Documentation/scheduler/
// sched-stats.rst), where /proc/PID/stat counts whole clock ticks. A thread
// that exits takes its time with it, so over an interval in which threads
// end the difference is low. Errors wrap fs.ErrNotExist when the process
// is gone, or name the file that could not be read or parsed (a kernel
// without CONFIG_SCHED_INFO has no schedstat).
func TaskCPU(pid int) (time.Duration, error) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0, fmt.Errorf("read threads of pid %d: %w", pid, err)
	}
	var sum uint64
	for _, e := range ents {
		f := filepath.Join(dir, e.Name(), "schedstat")
		b, err := os.ReadFile(f)
		if errors.Is(err, fs.ErrNotExist) {
			continue // the thread ended since ReadDir
		}
		if err != nil {
			return 0, fmt.Errorf("read CPU time: %w", err)
		}
		ns, err := parseSchedstat(string(b))
		if err != nil {
			return 0, fmt.Errorf("%s: %w", f, err)
		}
		sum += ns
	}
	return time.Duration(sum), nil
}

// parseSchedstat returns the first field of a schedstat line, the time
// spent on a CPU in ns.
func parseSchedstat(s string) (uint64, error) {
	f := strings.Fields(s)
	if len(f) < 1 {
		return 0, fmt.Errorf("empty schedstat")
	}
	ns, err := strconv.ParseUint(f[0], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("schedstat: time on CPU %q is not a number", f[0])
	}
	return ns, nil
}

// ProcPpid returns the parent process ID of process pid, field 4 of
// /proc/PID/stat (man 5 proc; 0 for the init process and kernel threads'
// parent kthreadd). Errors wrap fs.ErrNotExist when the process is gone,
// or name the file that could not be parsed.
func ProcPpid(pid int) (int, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, fmt.Errorf("read parent of pid %d: %w", pid, err)
	}
	return parsePpid(pid, string(b))
}

// parsePpid reads the parent process ID from a /proc/PID/stat line,
// counting fields from the last ')' as parseStat does.
func parsePpid(pid int, s string) (int, error) {
	end := strings.LastIndexByte(s, ')')
	f := strings.Fields(s[end+1:])
	// f[0] is field 3 (state), f[1] field 4 (ppid).
	if end < 0 || len(f) < 2 {
		return 0, fmt.Errorf("/proc/%d/stat: no ppid (field 4) in %q", pid, s)
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil || ppid < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: ppid %q is not a process ID", pid, f[1])
	}
	return ppid, nil
}

// parseStat reads comm, utime and stime from a /proc/PID/stat line. comm
// is in parentheses and may itself hold spaces and parentheses, so the
// fields after it are counted from the last ')'.
func parseStat(pid int, s string) (string, time.Duration, error) {
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return "", 0, fmt.Errorf("/proc/%d/stat: no (comm) in %q", pid, s)
	}
	comm := s[open+1 : end]
	f := strings.Fields(s[end+1:])
	// f[0] is field 3 (state); utime is field 14, stime field 15.
	if len(f) < 13 {
		return comm, 0, fmt.Errorf("/proc/%d/stat: %d fields after comm, want at least 13", pid, len(f))
	}
	ut, err1 := strconv.ParseUint(f[11], 10, 64)
	st, err2 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return comm, 0, fmt.Errorf("/proc/%d/stat: utime %q or stime %q is not a number", pid, f[11], f[12])
	}
	return comm, time.Duration(ut+st) * clockTick, nil
}

// CgroupPids returns the processes (thread-group IDs) in the cgroup
// directory dir and every cgroup below it, from their cgroup.procs files
// (cgroup v2, and v1 hierarchies), ascending. Errors name the file.
func CgroupPids(dir string) ([]int, error) {
	if _, err := os.Stat(filepath.Join(dir, "cgroup.procs")); err != nil {
		return nil, fmt.Errorf("cgroup %s: %w (give a cgroup directory, e.g. /sys/fs/cgroup/system.slice/foo.service)", dir, err)
	}
	seen := map[int]bool{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // a child cgroup removed meanwhile
			}
			return err
		}
		if d.IsDir() || d.Name() != "cgroup.procs" {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		for _, line := range strings.Fields(string(b)) {
			pid, err := strconv.Atoi(line)
			if err != nil {
				return fmt.Errorf("%s: %q is not a PID", path, line)
			}
			seen[pid] = true
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("cgroup %s: %w", dir, err)
	}
	out := make([]int, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Ints(out)
	return out, nil
}

// Monotonic returns CLOCK_MONOTONIC in ns, the clock of the samples'
// times (bpf_ktime_get_ns).
func Monotonic() uint64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return uint64(time.Now().UnixNano())
	}
	return uint64(ts.Nano())
}

// ReadKallsyms returns /proc/kallsyms.
func ReadKallsyms() ([]byte, error) {
	b, err := os.ReadFile("/proc/kallsyms")
	if err != nil {
		return nil, fmt.Errorf("read kernel symbols: %w", err)
	}
	return b, nil
}
