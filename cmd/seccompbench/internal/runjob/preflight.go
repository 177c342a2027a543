package runjob

import (
	"errors"
	"fmt"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/analysis"
	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/runner"
	"github.com/seccompbench/seccompbench/runner/result"
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

// preflight runs lint's own rule set (analysis.Preflight) on the deepest
// stack of the first variant and turns its findings into run's answer: an
// error for what would stop the children instead of measuring them (a
// filter returning SECCOMP_RET_USER_NOTIF: no listener answers, and the
// kernel fails those syscalls with ENOSYS, kernel/seccomp.c:
// seccomp_do_user_notification; a prefix that denies seccomp(2) itself; a
// workload syscall killed or trapped), and warnings for workload syscalls
// that fail with an errno (TRACE without a tracer is ENOSYS, seccomp(2)),
// whose error path is then what gets measured. lint prints the same
// findings, so both commands judge a stack alike.
//
// The notify workload installs a listener on top of the stack
// (workload.Notify): there, notifying filters are fine
// (analysis.LintOptions.Listener makes them info), and a workload syscall
// that fails with an errno is refused: the lower ERRNO verdict wins over
// the workload's USER_NOTIF, so nothing would be notified.
func preflight(stack filters.Stack, arch *filters.Arch, w runner.Workload) (warnings []string, err error) {
	var refusals [3]error // by precedence: no listener, install denied, workload stopped
	for _, f := range analysis.Preflight(stack, analysis.LintOptions{Workload: w.Syscalls, Arch: arch, Listener: w.IsNotify()}) {
		where := ""
		if f.Filter >= 0 && f.Filter < len(stack) {
			where = fmt.Sprintf(" (filter %d is %s)", f.Filter, stack[f.Filter].Name)
		}
		switch {
		case f.Code == analysis.LintUserNotif && f.Severity == analysis.SeverityError && refusals[0] == nil:
			refusals[0] = fmt.Errorf("%w: %s; seccompbench installs filters without a listener (no supervisor answers, the kernel would fail those syscalls with ENOSYS): replace the notify action (e.g. SCMP_ACT_NOTIFY) with allow or errno to measure the policy, or measure the notification round trip with --workload notify",
				errNoListener, f.Message)
		case f.Code == analysis.LintWorkloadDenied && w.IsNotify() && refusals[2] == nil:
			refusals[2] = fmt.Errorf("%w: the %s workload: %s%s, which wins over the notify workload's SECCOMP_RET_USER_NOTIF: nothing would be notified; allow it in the policy",
				errPreflight, w.Name, f.Message, where)
		case f.Code == analysis.LintInstallDenied && refusals[1] == nil:
			refusals[1] = fmt.Errorf("%w: %s: %s", errInstallDenied, f.Message, f.Hint)
		case f.Code == analysis.LintWorkloadDenied:
			warnings = append(warnings, f.Message+where)
		case f.Severity == analysis.SeverityError && refusals[2] == nil:
			refusals[2] = fmt.Errorf("%w: the %s workload: %s%s: %s", errPreflight, w.Name, f.Message, where, f.Hint)
		}
	}
	for _, err := range refusals {
		if err != nil {
			return nil, err
		}
	}
	return warnings, nil
}

// predictWorkload checks the deepest stack of the first variant with
// preflight, then emulates the deepest stack of each variant on the
// workload's syscalls (native arch, zero arguments) and predicts the action
// cache for each.
func predictWorkload(progs []*filters.Program, variants []result.Variant, n int, w runner.Workload) ([]document.CacheVariant, []string, error) {
	arch := cmdutil.NativeArch()
	var out []document.CacheVariant
	var warnings []string
	for _, v := range variants {
		stack, err := runner.StackFor(progs, result.Cell{Variant: v, Filters: n})
		if err != nil {
			return nil, nil, err
		}
		if v == variants[0] {
			if warnings, err = preflight(stack, arch, w); err != nil {
				return nil, nil, err
			}
		}
		cv := document.CacheVariant{Variant: string(v)}
		pred := analysis.PredictCache(stack, []*filters.Arch{arch})
		for _, name := range w.Syscalls {
			nr, ok := arch.Lookup(name)
			if !ok {
				return nil, nil, fmt.Errorf("workload syscall %q unknown on %s", name, arch.Name)
			}
			cs := document.CacheSyscall{Name: name, Nr: nr, Cached: n == 0 && !w.IsNotify()}
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
				if w.IsNotify() {
					// The workload's notifying filter on top never allows
					// it, so the cache never serves it.
					cs.Cached = false
					cs.Reason = "the notify workload's filter returns SECCOMP_RET_USER_NOTIF for it"
				}
				if !cs.Cached {
					cs.Instructions = res.Instructions
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
