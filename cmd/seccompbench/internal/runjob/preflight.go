package runjob

import (
	"errors"
	"fmt"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/analysis"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/runner"
)

// errPreflight is wrapped when the stack would kill or trap a syscall of the
// workload: the children would die instead of measuring.
var errPreflight = errors.New("policy stops the workload")

// errNoListener is wrapped when a filter can return SECCOMP_RET_USER_NOTIF:
// the children install filters without SECCOMP_FILTER_FLAG_NEW_LISTENER, so
// nobody would answer the notifications.
var errNoListener = errors.New("policy notifies a user-space supervisor")

// errInstallDenied is wrapped when a filter of the stack denies seccomp(2)
// itself, so the filters after it could not be installed.
var errInstallDenied = errors.New("policy denies installing further filters")

// CheckNotify refuses programs that can return SECCOMP_RET_USER_NOTIF (a
// `ret #k` with that action anywhere in the program). Without a listener
// the kernel fails such syscalls with ENOSYS (kernel/seccomp.c:
// seccomp_do_user_notification), so the result would describe neither the
// policy as deployed nor a plain deny.
func CheckNotify(progs []*filters.Program) error {
	if i, pc, ok := NotifyAt(progs); ok {
		return fmt.Errorf("%w: policy %d (%s) returns SECCOMP_RET_USER_NOTIF at instruction %d; seccompbench installs filters without a listener (no supervisor answers, the kernel would fail those syscalls with ENOSYS): replace the notify action (e.g. SCMP_ACT_NOTIFY) with allow or errno to measure the policy",
			errNoListener, i, progs[i].Name, pc)
	}
	return nil
}

// NotifyAt returns the first program (index i) with a `ret` of
// SECCOMP_RET_USER_NOTIF, and that instruction's index pc.
func NotifyAt(progs []*filters.Program) (i, pc int, ok bool) {
	for i, p := range progs {
		if pc, ok := p.UserNotifAt(); ok {
			return i, pc, true
		}
	}
	return 0, 0, false
}

// checkInstall emulates seccomp(SECCOMP_SET_MODE_FILTER, 0, ptr) under every
// proper prefix of stack: each filter is installed by a thread that already
// runs the filters below it, so a prefix that kills, traps or denies
// seccomp(2) stops the child at install time (kernel: SIGSYS, or EPERM or
// another errno from seccomp(2)). The error names the filter, its action
// and the largest filter count that can be installed.
func checkInstall(stack filters.Stack, arch *filters.Arch) error {
	nr, ok := arch.Lookup("seccomp")
	if !ok || len(stack) < 2 {
		return nil
	}
	for i := 1; i < len(stack); i++ {
		res, err := filters.EmulateStack(stack[:i], arch.Data(nr, 1)) // SECCOMP_SET_MODE_FILTER
		if err != nil {
			return fmt.Errorf("emulate seccomp(2) under the first %d filters: %w", i, err)
		}
		switch res.Action {
		case filters.ActionAllow, filters.ActionLog:
			continue
		}
		what := res.Action.KernelName()
		if res.Action == filters.ActionErrno {
			what = fmt.Sprintf("%s(%d)", what, res.Data)
		}
		return fmt.Errorf("%w: filter %d (%s) returns %s for seccomp(2), so installing filter %d of %d would fail or kill the child: allow seccomp in the policy, or measure at most %d (--filters 0-%d)",
			errInstallDenied, res.Decider, stack[res.Decider].Name, what, i+1, len(stack), i, i)
	}
	return nil
}

// predictWorkload emulates the deepest stack of each variant on the
// workload's syscalls (native arch, zero arguments) and predicts the action
// cache. It refuses stacks that kill or trap a workload syscall, naming the
// syscall and the filter, and warns when one returns an errno (the deny path
// is then what gets measured).
func predictWorkload(progs []*filters.Program, variants []runner.Variant, n int, w runner.Workload) ([]report.CacheVariant, []string, error) {
	arch := filters.ArchX86_64
	var out []report.CacheVariant
	var warnings []string
	if err := CheckNotify(progs); err != nil {
		return nil, nil, err
	}
	for _, v := range variants {
		stack, err := runner.StackFor(progs, runner.Cell{Variant: v, Filters: n})
		if err != nil {
			return nil, nil, err
		}
		if v == variants[0] {
			if err := checkInstall(stack, arch); err != nil {
				return nil, nil, err
			}
		}
		cv := report.CacheVariant{Variant: string(v)}
		pred := analysis.PredictCache(stack, []*filters.Arch{arch})
		for _, name := range w.Syscalls {
			nr, ok := arch.Lookup(name)
			if !ok {
				return nil, nil, fmt.Errorf("workload syscall %q unknown on %s", name, arch.Name)
			}
			cs := report.CacheSyscall{Name: name, Nr: nr, Cached: n == 0}
			if n > 0 {
				e, ok := pred.Lookup(arch.Name, nr)
				cs.Cached = ok && e.Cached
				if ok && !e.Cached {
					cs.Reason = e.Reason
				}
				res, err := filters.EmulateStack(stack, arch.Data(nr))
				if err != nil {
					return nil, nil, fmt.Errorf("emulate %s under the stack: %w", name, err)
				}
				cs.Action = res.Action.String()
				if !cs.Cached {
					cs.Instructions = res.Instructions
				}
				src := "none"
				if res.Decider >= 0 {
					src = stack[res.Decider].Name
				}
				switch res.Action {
				case filters.ActionKillProcess, filters.ActionKillThread, filters.ActionTrap, filters.ActionUserNotif, filters.ActionTrace:
					if v == variants[0] {
						return nil, nil, fmt.Errorf("%w: filter %d (%s) returns %s for %s, which the %s workload calls; the child would be stopped instead of measured: allow %s in the policy or pick another --workload",
							errPreflight, res.Decider, src, res.Action.KernelName(), name, w.Name, name)
					}
				case filters.ActionErrno:
					if v == variants[0] {
						warnings = append(warnings, fmt.Sprintf("filter %d (%s) returns ERRNO(%d) for %s: the deny path is measured, not the syscall itself", res.Decider, src, res.Data, name))
					}
				}
			}
			cv.Syscalls = append(cv.Syscalls, cs)
		}
		out = append(out, cv)
	}
	return out, warnings, nil
}

// KernelWarnings returns what the results cannot show on kernel release
// (uname -r, e.g. "5.10.0-28-amd64"): before Linux 5.11 there is no action
// cache (kernel/seccomp.c: seccomp_cache_prepare, added in 5.11), so the
// "on" variant runs every filter like "defeat" and the cache prediction
// describes newer kernels. An unparsable release gives no warning.
func KernelWarnings(release string) []string {
	var major, minor int
	if _, err := fmt.Sscanf(release, "%d.%d", &major, &minor); err != nil {
		return nil
	}
	if major < 5 || major == 5 && minor < 11 {
		return []string{fmt.Sprintf("kernel %s predates the seccomp action cache (Linux 5.11): every filter runs on every syscall, so \"on\" measures what \"defeat\" does, and the cache column shows what 5.11+ would skip", release)}
	}
	return nil
}
