package result

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
