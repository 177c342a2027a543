package analysis

import (
	"fmt"

	"github.com/seccompbench/seccompbench/filters"
)

// Preflight runs the rules that decide whether a benchmark child can run
// under s at all, the checks a command makes before it installs anything:
//
//   - a filter that can return SECCOMP_RET_USER_NOTIF (LintUserNotif,
//     error): children install filters without a listener (info with
//     opts.Listener: the notify workload answers the workload syscall);
//   - a proper prefix of the stack that kills, traps or denies seccomp(2)
//     (LintInstallDenied, error): each filter is installed by a thread
//     already running the filters below it, so the rest could not be
//     installed (kernel/seccomp.c: seccomp_set_mode_filter runs under the
//     installed filters like any syscall);
//   - workload syscalls (opts.Workload, with all arguments 0) the stack
//     kills or traps (LintWorkloadKilled, error), fails with an errno
//     (LintWorkloadDenied, warning) or that the table does not know
//     (LintUnknownSyscall, error).
//
// Kernel limits (LintTooLong, LintPathLimit at opts.Count) and invalid
// filters (LintInvalid) are errors too; an invalid or oversized filter
// stops the emulated checks. All but LintInstallDenied are Lint's own
// rules with Lint's words; Lint reports them too, plus its other rules.
// Findings come sorted like Lint's; HasErrors tells whether to stop.
func Preflight(s filters.Stack, opts LintOptions) []Finding {
	l, valid := newLinter(s, opts)
	l.userNotif(valid, opts.Listener)
	if valid {
		l.install(0, "", SeverityError)
	}
	l.workload(opts.Workload, valid)
	return l.sorted()
}

// InstallableDepth returns how many filters of s (oldest first) can be
// installed one after another, and whether that is fewer than len(s):
// each filter is installed by a thread already running the filters below
// it (kernel/seccomp.c: seccomp_set_mode_filter runs under the installed
// filters like any syscall), so the first proper prefix that does not
// allow or log seccomp(SECCOMP_SET_MODE_FILTER, ...) on arch (arguments
// otherwise 0) ends the stack there. An invalid filter, or an arch without
// seccomp(2), gives len(s), false: Preflight reports those.
func InstallableDepth(s filters.Stack, arch *filters.Arch) (int, bool) {
	nr, ok := arch.Lookup("seccomp")
	if !ok || len(s) < 2 {
		return len(s), false
	}
	cs, err := filters.NewExecutableStack(s)
	if err != nil {
		return len(s), false
	}
	for i := 1; i < len(s); i++ {
		d := arch.Data(nr, 1) // SECCOMP_SET_MODE_FILTER
		if r := cs[:i].Exec(&d); !allowed(r.Action) {
			return i, true
		}
	}
	return len(s), false
}

// install reports the first proper prefix of the stack of count filters
// (the stack's programs cycled to reach it, as BuildStack does; 0 means
// len(s)) under which seccomp(SECCOMP_SET_MODE_FILTER, ...) is not allowed
// or logged, and whether it found one. The finding's Filter is the
// deciding filter's index in s, its severity sev. why, if not empty, says
// where the depth comes from (e.g. run's default --filters).
func (l *linter) install(count int, why string, sev Severity) bool {
	nr, ok := l.native.Lookup("seccomp")
	if count <= 0 {
		count = len(l.s)
	}
	if !ok || count < 2 || len(l.s) == 0 {
		return false
	}
	cycled := make(filters.ExecutableStack, count)
	for i := range count {
		cycled[i] = l.cs[i%len(l.s)]
	}
	for i := 1; i < count; i++ {
		d := l.native.Data(nr, 1) // SECCOMP_SET_MODE_FILTER
		r := cycled[:i].Exec(&d)
		if allowed(r.Action) {
			continue
		}
		what := r.Action.KernelName()
		if r.Action == filters.ActionErrno {
			what = fmt.Sprintf("%s(%d)", what, r.Data)
		}
		dec := r.Decider % len(l.s)
		l.add(Finding{Severity: sev, Code: LintInstallDenied, Filter: dec, Syscall: "seccomp",
			Message: fmt.Sprintf("filter %d (%s) returns %s for seccomp(2); installing filter %d of %d%s would fail or kill the process", dec, l.s[dec].Name, what, i+1, count, why),
			Hint:    fmt.Sprintf("allow seccomp in the policy, or stack at most %d filters (run --filters 0-%d)", i, i)})
		return true
	}
	return false
}
