package runner

import (
	"fmt"
	"os"
	"sync"
	"syscall"

	"github.com/seccompbench/seccompbench/runner/internal/sys"
	"github.com/seccompbench/seccompbench/runner/notify"
	"github.com/seccompbench/seccompbench/runner/result"
	"golang.org/x/sys/unix"
)

// probes caches ProbeFilterSupport per flags value.
var probes sync.Map // uint -> func() error

// ProbeFilterSupport reports whether this kernel can install seccomp
// filters with the given SECCOMP_FILTER_FLAG_* flags, without installing
// anything: it calls seccomp(SECCOMP_SET_MODE_FILTER, flags, NULL). The
// kernel checks the flags, then copies the program from the NULL pointer
// and fails with EFAULT, which means "supported" (kernel/seccomp.c:
// seccomp_set_mode_filter, seccomp_prepare_user_filter). The answer is
// cached per flags value.
//
// Errors wrap the errno and, when a kernel feature is missing,
// ErrNotSupported; they name the feature and its minimum kernel (see
// probeExplain). A process that already runs under filters is not probed
// (nil): an inherited filter might kill it for calling seccomp(2); its
// children report such a denial with their cell instead.
//
// Requires at least Linux 3.17 (seccomp(2)); SECCOMP_FILTER_FLAG_SPEC_ALLOW
// Linux 4.17.
func ProbeFilterSupport(flags uint) error {
	f, _ := probes.LoadOrStore(flags, sync.OnceValue(func() error {
		if b, err := os.ReadFile("/proc/self/status"); err == nil {
			if st, err := sys.ParseProcStatus(b); err == nil && st.SeccompMode == result.SeccompModeFilter {
				return nil
			}
		}
		return probeResult(seccompProbe(flags), flags)
	}))
	return f.(func() error)()
}

// seccompProbe calls seccomp(SECCOMP_SET_MODE_FILTER, flags, NULL) and
// returns its errno: EFAULT when filters with these flags are supported.
// Nothing is installed. Tests replace it to simulate other kernels.
var seccompProbe = func(flags uint) syscall.Errno {
	_, _, e := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, uintptr(flags), 0)
	return e
}

// probeResult interprets the errno of seccomp(SECCOMP_SET_MODE_FILTER,
// flags, NULL) (seccomp(2)): nil for EFAULT (supported), else an error
// "probe seccomp(2): ..." with probeExplain's text, wrapping the errno and,
// for a missing feature, ErrNotSupported.
func probeResult(e syscall.Errno, flags uint) error {
	msg, notSup := probeExplain(e, flags)
	switch {
	case msg == "":
		return nil
	case notSup:
		return fmt.Errorf("probe seccomp(2) with flags %#x: %w (%w): %s", flags, ErrNotSupported, e, msg)
	}
	return fmt.Errorf("probe seccomp(2) with flags %#x: %w: %s", flags, e, msg)
}

// probeExplain says what errno e of the probe means, "" for supported:
//
//   - EFAULT (or 0): filters and flags are supported;
//   - ENOSYS: no seccomp(2) system call (Linux < 3.17 or CONFIG_SECCOMP
//     off): not supported;
//   - EINVAL with flags: the kernel does not know a flag
//     (SECCOMP_FILTER_FLAG_SPEC_ALLOW needs Linux 4.17): not supported;
//   - EINVAL without flags: no filter mode (CONFIG_SECCOMP_FILTER off, or
//     Linux < 3.5): not supported;
//   - anything else (e.g. EPERM): a filter the process inherited denies
//     seccomp(2).
func probeExplain(e syscall.Errno, flags uint) (msg string, notSup bool) {
	switch {
	case e == syscall.EFAULT || e == 0:
		return "", false
	case e == syscall.ENOSYS:
		return "this kernel has no seccomp(2) system call (needs Linux 3.17 built with CONFIG_SECCOMP and CONFIG_SECCOMP_FILTER); run on a newer or differently configured kernel", true
	case e == syscall.EINVAL && flags&seccompFlagSpecAllow != 0:
		return "this kernel does not know SECCOMP_FILTER_FLAG_SPEC_ALLOW (needs Linux 4.17); drop --spec-allow", true
	case e == syscall.EINVAL && flags != 0:
		return fmt.Sprintf("this kernel does not know the filter flags %#x", flags), true
	case e == syscall.EINVAL:
		return "this kernel cannot install seccomp filters: it lacks CONFIG_SECCOMP_FILTER (seccomp filters need Linux 3.5 or later built with CONFIG_SECCOMP_FILTER=y); run on such a kernel", true
	}
	return "a seccomp filter this process inherited (a container's?) denies seccomp(2); run outside it or allow seccomp(2) in its profile", false
}

// checkSupport probes the kernel once before the first child of cfg when
// any cell installs filters (every cell of the notify workload does, with
// SECCOMP_FILTER_FLAG_NEW_LISTENER).
func checkSupport(cfg Config) error {
	if cfg.Workload.IsNotify() {
		if err := notify.CheckSupport(cfg.Notify); err != nil {
			return err
		}
		flags := uint(sys.FlagNewListener)
		if cfg.SpecAllow {
			flags |= seccompFlagSpecAllow
		}
		return ProbeFilterSupport(flags)
	}
	for _, n := range cfg.Counts {
		if n > 0 {
			var flags uint
			if cfg.SpecAllow {
				flags |= seccompFlagSpecAllow
			}
			return ProbeFilterSupport(flags)
		}
	}
	return nil
}

// installHint explains why a child's seccomp(2) or prctl(2) call failed
// with errno e: failed is the 0-based index of the filter that could not be
// installed (-1: the prctl(PR_SET_NO_NEW_PRIVS) before them), inherited the
// filters the child had before (-1 unknown), probe the errno of the child's
// seccompProbe after an EINVAL (0: not probed). notSup is true when the
// cause is a missing kernel feature (the error then wraps ErrNotSupported).
// Sources: seccomp(2), prctl(2), kernel/seccomp.c.
func installHint(e syscall.Errno, failed int, flags uint, inherited int, probe syscall.Errno) (hint string, notSup bool) {
	if failed < 0 {
		if e == syscall.EINVAL {
			return "the kernel does not know PR_SET_NO_NEW_PRIVS (needs Linux 3.5)", true
		}
		return "", false
	}
	switch e {
	case syscall.ENOSYS:
		if failed == 0 {
			return "no seccomp(2) system call (needs Linux 3.17 with CONFIG_SECCOMP_FILTER), or an inherited filter returns ENOSYS (TRACE or USER_NOTIF with nobody listening)", true
		}
		return "a filter below it returns SECCOMP_RET_TRACE or SECCOMP_RET_USER_NOTIF for seccomp(2) and nobody listens: allow seccomp in the policy", false
	case syscall.EINVAL:
		if msg, notSup := probeExplain(probe, flags); probe != 0 && notSup {
			return msg, true
		}
		return "the kernel rejects this filter (over BPF_MAXINSNS = 4096 instructions, or an instruction seccomp does not accept: check the policy with `seccompbench lint`)", false
	case syscall.EACCES:
		return "no_new_privs is not set and the process lacks CAP_SYS_ADMIN in its user namespace (seccomp(2): EACCES)", false
	case syscall.ENOMEM:
		if inherited > 0 {
			return fmt.Sprintf("the stack plus the %d filters this process inherited exceed MAX_INSNS_PER_PATH (32768 eBPF instructions, counting each filter's converted length +4): measure fewer filters", inherited), false
		}
		return "the stack exceeds MAX_INSNS_PER_PATH (32768 eBPF instructions, counting each filter's converted length +4), or the kernel is out of memory: measure fewer filters", false
	}
	if failed == 0 {
		return "a filter this process inherited (a container's?) denies seccomp(2): run outside it or allow seccomp(2) in its profile", false
	}
	return fmt.Sprintf("a filter already installed (one of the first %d of the stack) or inherited denies seccomp(2) with this errno: allow seccomp in the policy", failed), false
}
