package runner

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
)

// ProcStatus is a process's seccomp state as /proc/PID/status and
// /proc/PID/cmdline show it (man 5 proc). Fields the kernel does not report
// are -1.
type ProcStatus struct {
	// Pid is the process (thread-group) ID.
	Pid int
	// Name is the Name field (the comm, at most 15 bytes).
	Name string
	// State is the State field, e.g. "S (sleeping)".
	State string
	// TracerPid is the PID of the process tracing this one, 0 if none.
	TracerPid int
	// NoNewPrivs is the NoNewPrivs field (Linux 4.10+): 1 when
	// PR_SET_NO_NEW_PRIVS is set.
	NoNewPrivs int
	// SeccompMode is the Seccomp field (Linux 3.8+): 0 disabled, 1 strict,
	// 2 filter.
	SeccompMode int
	// SeccompFilters is the Seccomp_filters field (Linux 5.9+): the number
	// of filters attached to the thread-group leader.
	SeccompFilters int
	// Cmdline is /proc/PID/cmdline split at NUL bytes; empty for kernel
	// threads and zombies, nil if it could not be read.
	Cmdline []string
}

// Seccomp modes of the Seccomp field of /proc/PID/status
// (include/uapi/linux/seccomp.h).
const (
	SeccompModeDisabled = 0
	SeccompModeStrict   = 1
	SeccompModeFilter   = 2
)

// ReadProcStatus reads the seccomp state of process pid. Errors wrap the
// *os.PathError of the status file (fs.ErrNotExist when the process is
// gone).
func ReadProcStatus(pid int) (ProcStatus, error) {
	dir := "/proc/" + strconv.Itoa(pid)
	b, err := os.ReadFile(dir + "/status")
	if errors.Is(err, fs.ErrNotExist) {
		return ProcStatus{Pid: pid}, fmt.Errorf("read status of pid %d: no such process (%w)", pid, err)
	}
	if err != nil {
		return ProcStatus{Pid: pid}, fmt.Errorf("read status of pid %d: %w", pid, err)
	}
	st, err := parseProcStatus(b)
	st.Pid = pid
	if err != nil {
		return st, fmt.Errorf("read status of pid %d: %w", pid, err)
	}
	if c, err := os.ReadFile(dir + "/cmdline"); err == nil {
		st.Cmdline = []string{}
		for _, a := range bytes.Split(bytes.TrimRight(c, "\x00"), []byte{0}) {
			if len(a) > 0 || len(st.Cmdline) > 0 {
				st.Cmdline = append(st.Cmdline, string(a))
			}
		}
	}
	return st, nil
}

// parseProcStatus parses the fields of ProcStatus from a /proc/PID/status
// file; missing numeric fields stay -1.
func parseProcStatus(b []byte) (ProcStatus, error) {
	st := ProcStatus{TracerPid: -1, NoNewPrivs: -1, SeccompMode: -1, SeccompFilters: -1}
	ints := map[string]*int{
		"TracerPid": &st.TracerPid, "NoNewPrivs": &st.NoNewPrivs,
		"Seccomp": &st.SeccompMode, "Seccomp_filters": &st.SeccompFilters,
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch k {
		case "Name":
			st.Name = v
		case "State":
			st.State = v
		default:
			if p, ok := ints[k]; ok {
				n, err := strconv.Atoi(v)
				if err != nil {
					return st, fmt.Errorf("parse %s %q: %w", k, v, err)
				}
				*p = n
			}
		}
	}
	return st, nil
}

// threadFilters returns Seccomp_filters of thread tid of this process, or -1
// if the kernel does not report it (before Linux 5.9) or it cannot be read.
func threadFilters(tid int) int {
	b, err := os.ReadFile("/proc/self/task/" + strconv.Itoa(tid) + "/status")
	if err != nil {
		return -1
	}
	st, err := parseProcStatus(b)
	if err != nil {
		return -1
	}
	return st.SeccompFilters
}
