package live

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// ErrPermission is returned (in a *PermissionError) when the kernel refuses
// to let this process sample other processes' kernel stacks or load the
// BPF programs `top` needs.
var ErrPermission = errors.New("permission denied")

// ErrNotSupported is returned (wrapped) when the kernel lacks a feature:
// BPF ring buffers (Linux 5.8), bpf_task_pt_regs (5.15), the sys_exit raw
// tracepoint, or perf's software cpu-clock event.
var ErrNotSupported = errors.New("not supported by this kernel")

// ErrFollow is returned (wrapped, with the cause) when Options.Follow
// cannot be set up: the kernel has no BTF to find tgid in struct
// task_struct (CONFIG_DEBUG_INFO_BTF, /sys/kernel/btf/vmlinux), or
// refuses the fork-following program or its sched_process_fork raw
// tracepoint (include/trace/events/sched.h).
var ErrFollow = errors.New("cannot follow forked processes")

// PermissionError names what the kernel refused and what to grant.
type PermissionError struct {
	// Op is the refused step, e.g. "perf_event_open(cpu-clock, cpu 0)".
	Op string
	// Err is the errno or library error.
	Err error
	// Need says which capability or sysctl grants it.
	Need string
}

// Error returns "OP: ERR: permission denied; NEED".
func (e *PermissionError) Error() string {
	return fmt.Sprintf("%s: %v: %v; %s", e.Op, e.Err, ErrPermission, e.Need)
}

// Unwrap returns ErrPermission and the underlying error.
func (e *PermissionError) Unwrap() []error { return []error{ErrPermission, e.Err} }

// Capability numbers (include/uapi/linux/capability.h).
const (
	capSysAdmin = 21
	capPerfmon  = 38 // Linux 5.8
	capBPF      = 39 // Linux 5.8
)

// effectiveCaps returns the CapEff mask of this process from
// /proc/self/status.
func effectiveCaps() (uint64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "CapEff:"); ok {
			return strconv.ParseUint(strings.TrimSpace(v), 16, 64)
		}
	}
	return 0, fmt.Errorf("/proc/self/status has no CapEff line")
}

// readSysctl returns the trimmed content of a /proc/sys file, or "?".
func readSysctl(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(b))
}

// lockdownMode returns the active lockdown mode ("none", "integrity",
// "confidentiality") from securityfs, or "" when it cannot be read.
func lockdownMode() string {
	b, err := os.ReadFile("/sys/kernel/security/lockdown")
	if err != nil {
		return ""
	}
	s := string(b)
	if i := strings.IndexByte(s, '['); i >= 0 {
		if j := strings.IndexByte(s[i:], ']'); j > 0 {
			return s[i+1 : i+j]
		}
	}
	return ""
}

// CheckPermissions tells up front whether this process may do what a
// Session does, naming what is missing: sampling kernel code on every CPU
// (CAP_PERFMON or CAP_SYS_ADMIN, or kernel.perf_event_paranoid <= 0;
// kernel/events/core.c: perf_allow_kernel, perf_allow_cpu) and loading
// tracing BPF programs (CAP_BPF plus CAP_PERFMON, or CAP_SYS_ADMIN;
// kernel/bpf/syscall.c: bpf_prog_load). It returns nil or a
// *PermissionError; the kernel still has the last word (a container's
// seccomp profile or an LSM may refuse later, and Session.Open maps
// those refusals the same way).
func CheckPermissions() error {
	caps, err := effectiveCaps()
	if err != nil {
		return nil // let the kernel decide
	}
	has := func(c uint) bool { return caps&(1<<c) != 0 }
	admin := has(capSysAdmin)
	if !admin && !has(capPerfmon) {
		paranoid := readSysctl("/proc/sys/kernel/perf_event_paranoid")
		if n, err := strconv.Atoi(paranoid); err != nil || n > 0 {
			return &PermissionError{Op: "sample kernel stacks on every CPU", Err: fmt.Errorf("no CAP_PERFMON and kernel.perf_event_paranoid is %s", paranoid),
				Need: "run as root, grant CAP_PERFMON and CAP_BPF (setcap cap_perfmon,cap_bpf+ep seccompbench, or --cap-add PERFMON --cap-add BPF in a container), or set kernel.perf_event_paranoid to 0 or less (sysctl -w kernel.perf_event_paranoid=0) and still grant CAP_BPF"}
		}
	}
	if !admin && !(has(capBPF) && has(capPerfmon)) {
		return &PermissionError{Op: "load BPF programs", Err: errors.New("no CAP_BPF with CAP_PERFMON, no CAP_SYS_ADMIN"),
			Need: "grant CAP_BPF and CAP_PERFMON (setcap cap_perfmon,cap_bpf+ep seccompbench, or --cap-add BPF --cap-add PERFMON in a container), or run as root"}
	}
	return nil
}

// bpfNeed is the hint of a refused BPF step.
func bpfNeed() string {
	s := "grant CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN); a container also needs a seccomp profile that allows bpf(2) and perf_event_open(2)"
	if m := lockdownMode(); m == "confidentiality" {
		s += "; kernel lockdown is \"confidentiality\", which forbids BPF reads of kernel memory (boot with lockdown=integrity or none)"
	}
	return s
}

// perfNeed is the hint of a refused perf_event_open.
func perfNeed() string {
	return fmt.Sprintf("grant CAP_PERFMON (or CAP_SYS_ADMIN), or lower kernel.perf_event_paranoid (now %s) to 0 or less with sysctl -w kernel.perf_event_paranoid=0; a container also needs a seccomp profile that allows perf_event_open(2)",
		readSysctl("/proc/sys/kernel/perf_event_paranoid"))
}

// FollowPrereqs reports, as one error naming what is missing, why a
// session with Options.Follow cannot sample here: an architecture other
// than amd64 (the programs read x86_64 pt_regs), missing permissions
// (CheckPermissions) or no kernel BTF (/sys/kernel/btf/vmlinux, where
// Follow finds tgid's offset in struct task_struct); nil when nothing is
// missing. The kernel version (5.15: bpf_task_pt_regs) is left to the
// caller, and the kernel still has the last word at Open.
func FollowPrereqs() error {
	if runtime.GOARCH != "amd64" {
		return errors.New("the sampling program reads x86_64 pt_regs")
	}
	if err := CheckPermissions(); err != nil {
		return fmt.Errorf("not permitted to sample: %w", err)
	}
	if _, err := os.Stat("/sys/kernel/btf/vmlinux"); err != nil {
		return errors.New("no kernel BTF (CONFIG_DEBUG_INFO_BTF): following forks needs struct task_struct's layout")
	}
	return nil
}
