package analysis

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/seccompbench/seccompbench/filters"
)

// Severity ranks a lint finding.
type Severity int

// Severities, lowest first. Lint's caller exits 1 when an error exists.
const (
	SeverityInfo Severity = iota
	SeverityWarning
	SeverityError
)

// String returns "info", "warning" or "error".
func (s Severity) String() string {
	switch s {
	case SeverityInfo:
		return "info"
	case SeverityWarning:
		return "warning"
	case SeverityError:
		return "error"
	}
	return fmt.Sprintf("severity(%d)", int(s))
}

// MarshalText encodes the severity as its name, for JSON output.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Lint finding codes.
const (
	LintInvalid        = "invalid-filter"              // the kernel would reject the filter (EINVAL)
	LintTooLong        = "filter-too-long"             // over BPF_MAXINSNS
	LintPathLimit      = "path-limit"                  // stack over MAX_INSNS_PER_PATH
	LintBypassI386     = "abi-bypass-i386"             // denied natively, allowed via int 0x80
	LintBypassX32      = "abi-bypass-x32"              // denied natively, allowed via the x32 ABI
	LintX32Unhandled   = "x32-unhandled"               // unknown x32 numbers are allowed
	LintDeadRule       = "dead-rule"                   // a rule returns the default action
	LintDuplicateRule  = "duplicate-rule"              // an earlier rule always decides the syscall
	LintRuntimeNeeds   = "runtime-needs"               // Go runtime or glibc needs a denied syscall
	LintWorkloadKilled = "workload-killed"             // the workload's syscall is killed or trapped
	LintWorkloadDenied = "workload-denied"             // the workload's syscall fails with an errno
	LintUnknownSyscall = "unknown-syscall"             // a workload name not in the table
	LintUncached       = "uncached-allowed"            // allowed syscalls the action cache cannot skip
	LintWorkloadCost   = "workload-uncached"           // a workload syscall runs the filters
	LintUserNotif      = "user-notif"                  // a filter returns SECCOMP_RET_USER_NOTIF
	LintSourceWarning  = "source-warning"              // the loader warned about the source (Program.Warnings)
	LintSourceNote     = "source-note"                 // how a valid source was read (Program.Notes)
	LintInstallDenied  = "install-denied"              // a filter stops the filters above it from being installed
	LintIgnoredDeny    = "ignored-deny"                // the loader ignored a deny entry, so the stack allows what the source denies
	LintRefused        = "refused-input"               // the source's consumer refuses it whole (systemd does not start the unit)
	LintForeignABI     = "foreign-abi"                 // a filter is for other ABIs than the one linted
	LintPerABI         = "per-abi-stack"               // the stack has one filter per ABI, each passing the others (systemd)
	LintErrnoCapped    = "errno-capped"                // a filter returns ERRNO data above MAX_ERRNO, which the kernel caps at 4095
	lintSampleNames    = 8                             // names listed in a message before "+N more"
	lintUnknownX32Nr   = filters.X32SyscallBit | 0x3ff // an x32 number no table names
	lintUnknownNr      = 0x3ff                         // a number no ABI's table names
)

// Finding is one lint result.
type Finding struct {
	// Severity is error (the stack is broken or unsafe, or the benchmark
	// cannot run), warning (likely a mistake) or info.
	Severity Severity
	// Code is one of the Lint* codes, stable for scripts.
	Code string
	// Message says what is wrong; Hint how to fix it.
	Message, Hint string
	// Filter is the stack index the finding is about, or -1 for the stack
	// as a whole.
	Filter int
	// Syscall names the syscall the finding is about, if one.
	Syscall string
}

// LintOptions tunes Lint.
type LintOptions struct {
	// Workload lists the syscall names the benchmark loop makes.
	Workload []string
	// Count is the requested number of filters, the stack's programs being
	// cycled to reach it (see BuildStack); 0 means len(s).
	Count int
	// Arch is the native ABI; nil means ArchX86_64. Foreign ABIs checked
	// for bypasses are i386 and x32 on x86_64, arm on aarch64
	// (lint_aarch64.go).
	Arch *filters.Arch
	// Listener says the benchmark answers user notifications (run
	// --workload notify installs a listener and a supervisor): a filter
	// returning SECCOMP_RET_USER_NOTIF is then reported as info, not as
	// an error.
	Listener bool
	// RunDepth is the deepest stack run measures without --filters (its
	// default counts, the stack cycled as BuildStack does; 0: none). With
	// Count 0, seccomp(2) denied below that depth (LintInstallDenied) is a
	// warning, the message naming the depth (an error at Count, or at the
	// stack given).
	RunDepth int
	// Arches names each filter's ABI where the source knows it, index for
	// index with the stack (filters.Source.Arches: "x86", "x32",
	// "x86_64", "all"; "" or a short slice: unknown). The per-ABI summary
	// (LintPerABI) counts these, the filters run installs, instead of
	// judging each filter's ABIs from its verdicts with all arguments 0,
	// which misses filters whose rules all look at arguments.
	Arches []string
	// SourceWarnings are the located warnings of a stacked source (a
	// systemd unit's lines systemd logs and ignores) that belong to no one
	// filter: each becomes a stack finding, LintSourceWarning (warning),
	// or LintIgnoredDeny (error) when FailsOpen says the ignored item
	// would have denied something.
	SourceWarnings []*filters.SourceError
}

// HasErrors reports whether fs holds an error-severity finding.
func HasErrors(fs []Finding) bool {
	for _, f := range fs {
		if f.Severity == SeverityError {
			return true
		}
	}
	return false
}

// runtimeNeed is a syscall the Go runtime or glibc makes on its own.
type runtimeNeed struct {
	name string
	why  string
	// fatal: a failing call (any errno) breaks the process, not only a kill.
	fatal bool
	// okErrno is an errno the caller handles by falling back (0: none).
	okErrno int
}

// runtimeNeeds lists syscalls a Go program (and glibc, for cgo or C
// workloads) makes at start or under load without the program asking.
// Sources: the Go runtime (runtime/os_linux.go, netpoll_epoll.go,
// mem_linux.go, signal_unix.go) and glibc's nptl.
var runtimeNeeds = []runtimeNeed{
	{"futex", "Go and glibc park and wake threads with it (locks, channels, GC); Go aborts with \"futexwakeup ... returned\" when it fails", true, 0},
	{"mmap", "Go and glibc allocate the heap and thread stacks with it; Go aborts with \"out of memory\" when it fails", true, 0},
	{"munmap", "Go and glibc release memory with it", false, 0},
	{"madvise", "Go's scavenger and glibc's free return memory with it; when it fails memory stays resident", false, 0},
	{"rt_sigreturn", "every signal handler returns through it, and Go's async preemption sends SIGURG constantly under load", true, 0},
	{"rt_sigaction", "Go installs its signal handlers with it at start and throws \"sigaction failed\"", true, 0},
	{"rt_sigprocmask", "Go and glibc mask signals with it around thread creation", false, 0},
	{"sigaltstack", "every new Go thread installs a signal stack with it; Go throws \"sigaltstack failed\"", true, 0},
	{"clone", "Go starts OS threads with it (glibc too when clone3 is unavailable); Go throws when newosproc fails", true, 0},
	{"clone3", "glibc >= 2.34 starts threads with it and falls back to clone only on ENOSYS", true, filters.ENOSYS},
	{"rseq", "glibc >= 2.35 registers restartable sequences with it at thread start; failure only disables rseq", false, 0},
	{"prlimit64", "Go >= 1.19 raises RLIMIT_NOFILE with it at start, and glibc's getrlimit/setrlimit use it", false, 0},
	{"sched_yield", "Go's scheduler and locks spin with it", false, 0},
	{"nanosleep", "Go's sysmon and spinning loops sleep with it", false, 0},
	{"epoll_create1", "Go's network poller (pipes, sockets, os/exec) starts with it; netpollinit throws when it fails", true, 0},
	{"epoll_ctl", "Go's network poller registers every pollable file descriptor with it", true, 0},
	{"epoll_pwait", "Go's network poller waits in it and throws \"netpoll failed\" when it fails", true, 0},
	{"eventfd2", "Go >= 1.21 wakes its network poller through an eventfd; netpollinit throws when it fails", true, 0},
	{"tgkill", "Go's async preemption signals threads with it, as do glibc's raise and abort", false, 0},
	{"exit_group", "Go's os.Exit and return from main end the process with it", true, 0},
}

// Lint checks a stack for mistakes and for what would break the benchmark:
// invalid or oversized filters, the path limit at opts.Count, foreign-ABI
// bypasses (syscalls denied on the native ABI but allowed through i386 or
// x32), x32 numbers falling to allow, rules whose action equals the
// default (dead) or that an earlier rule always decides (duplicate),
// syscalls the Go runtime or glibc need that the stack kills or denies,
// the workload's syscalls that it kills, traps or denies, filters that can
// return SECCOMP_RET_USER_NOTIF (which run refuses), errnos above 4095
// (which the kernel caps), a filter denying seccomp(2) below the depth
// checked (opts.Count, else the stack; a warning at opts.RunDepth), so
// run could not install the rest (LintInstallDenied),
// the loaders' warnings about the sources (Program.Warnings,
// opts.SourceWarnings), and allowed
// syscalls the action cache cannot skip. Verdicts are computed with all
// arguments 0; a finding whose verdict depends on arguments says so.
// Findings come sorted: errors first, then by filter, code and syscall.
func Lint(s filters.Stack, opts LintOptions) []Finding {
	l, valid := newLinter(s, opts)
	l.userNotif(valid, opts.Listener)
	l.sourceWarnings(opts.SourceWarnings)
	l.errnoCapped()
	if valid {
		if !l.install(opts.Count, "", SeverityError) && opts.Count == 0 && opts.RunDepth > len(s) {
			l.install(opts.RunDepth, fmt.Sprintf(" (run without --filters goes up to %d)", opts.RunDepth), SeverityWarning)
		}
		l.foreignABI(opts.Arches)
		for _, f := range lintForeign(l.native) {
			l.bypass(f.arch, f.code)
		}
		l.x32Unhandled()
		l.rules()
		l.runtime()
		l.uncached()
	}
	l.workload(opts.Workload, valid)
	return l.sorted()
}

// sorted returns the findings sorted: errors first, then by filter, code
// and syscall.
func (l *linter) sorted() []Finding {
	sort.SliceStable(l.out, func(i, j int) bool {
		a, b := l.out[i], l.out[j]
		if a.Severity != b.Severity {
			return a.Severity > b.Severity
		}
		if a.Filter != b.Filter {
			return a.Filter < b.Filter
		}
		if a.Code != b.Code {
			return a.Code < b.Code
		}
		return a.Syscall < b.Syscall
	})
	return l.out
}

// newLinter checks the kernel limits at opts.Count and each filter's
// validity, and decodes the stack for the emulator when every filter is
// valid (valid).
func newLinter(s filters.Stack, opts LintOptions) (l *linter, valid bool) {
	native := opts.Arch
	if native == nil {
		native = filters.ArchX86_64
	}
	l = &linter{s: s, native: native, listener: opts.Listener}
	l.limits(opts.Count)
	if valid = l.validity(); valid {
		l.cs, _ = filters.NewExecutableStack(s)
	}
	return l, valid
}

type linter struct {
	s        filters.Stack
	native   *filters.Arch
	cs       filters.ExecutableStack
	out      []Finding
	listener bool // LintOptions.Listener
}

func (l *linter) add(f Finding) { l.out = append(l.out, f) }

// stackFilter is the Filter value for a stack-wide finding: the index when
// the stack holds one distinct program, else -1.
func (l *linter) stackFilter() int {
	for _, p := range l.s {
		if p != l.s[0] {
			return -1
		}
	}
	if len(l.s) == 0 {
		return -1
	}
	return 0
}

// distinct returns the index of each program's first occurrence.
func (l *linter) distinct() []int {
	seen := map[*filters.Program]bool{}
	var out []int
	for i, p := range l.s {
		if !seen[p] {
			seen[p] = true
			out = append(out, i)
		}
	}
	return out
}

func (l *linter) limits(count int) {
	if count <= 0 {
		count = len(l.s)
	}
	for _, i := range l.distinct() {
		p := l.s[i]
		if p.Len() > filters.MaxInsns {
			l.add(Finding{Severity: SeverityError, Code: LintTooLong, Filter: i,
				Message: fmt.Sprintf("filter %d (%s) has %d instructions, over BPF_MAXINSNS (%d): seccomp(2) fails with EINVAL", i, p.Name, p.Len(), filters.MaxInsns),
				Hint:    "split the policy into several filters or group syscalls with range checks"})
		}
	}
	if len(l.s) == 0 || count == 0 {
		return
	}
	progs := []*filters.Program(l.s)
	stack := make(filters.Stack, count)
	for i := range count {
		stack[i] = progs[i%len(progs)]
	}
	if total := stack.PathLength(); total > filters.MaxInsnsPerPath {
		l.add(Finding{Severity: SeverityError, Code: LintPathLimit, Filter: -1,
			Message: fmt.Sprintf("%d filters need %d instructions on the path (converted eBPF length, +%d for all but the newest), over MAX_INSNS_PER_PATH (%d): the filter that crosses it fails with ENOMEM", count, total, filters.PathPenalty, filters.MaxInsnsPerPath),
			Hint:    fmt.Sprintf("at most %d of these filters fit; shorten them or stack fewer", filters.MaxStackCount(progs))})
	}
}

func (l *linter) validity() bool {
	ok := true
	for _, i := range l.distinct() {
		p := l.s[i]
		if p.Len() > filters.MaxInsns {
			ok = false
			continue // reported by limits
		}
		if err := filters.Validate(p.Insns); err != nil {
			ok = false
			l.add(Finding{Severity: SeverityError, Code: LintInvalid, Filter: i,
				Message: fmt.Sprintf("filter %d (%s): %v", i, p.Name, err),
				Hint:    "the kernel rejects this filter with EINVAL; fix the instruction named"})
		}
	}
	return ok
}

// verdict runs the stack on d.
func (l *linter) verdict(d filters.SeccompData) filters.StackResult { return l.cs.Exec(&d) }

// allowed reports whether the kernel lets the syscall run: ALLOW or LOG.
func allowed(a filters.Action) bool { return a == filters.ActionAllow || a == filters.ActionLog }

// readsArgs reports whether a filter on r's path loaded an argument word,
// so that a verdict taken with all arguments 0 may differ for others. The
// instruction pointer does not count: run's cache-defeat prefix loads it
// without deciding anything (Program.DefeatCache).
func readsArgs(r filters.StackResult) bool {
	for _, f := range r.PerFilter {
		if !f.Read.Only(filters.FieldNr | filters.FieldArch | filters.FieldIP) {
			return true
		}
	}
	return false
}

// bypass reports syscalls the stack denies on the native ABI but allows
// under the same name through foreign.
func (l *linter) bypass(foreign *filters.Arch, code string) {
	var names []string
	for _, n := range l.native.SortedNumbers() {
		name := l.native.SyscallName(n)
		fn, ok := foreign.Lookup(name)
		if !ok {
			continue
		}
		if allowed(l.verdict(l.native.Data(n)).Action) {
			continue
		}
		if allowed(l.verdict(foreign.Data(fn)).Action) {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return
	}
	how := map[string]string{"i386": "the i386 ABI (int 0x80 or a 32-bit process)", "x32": "the x32 ABI (numbers with bit 0x40000000)", "arm": "the arm compat ABI (a 32-bit AArch32 process)"}[foreign.Name]
	hint := "check seccomp_data.arch first and kill every arch but AUDIT_ARCH_" + strings.ToUpper(l.native.Name)
	if foreign == filters.ArchX32 {
		hint = "after the arch check, deny nr >= 0x40000000 (the x32 bit), as elastic/go-seccomp-bpf does for x86_64 policies"
	}
	l.add(Finding{Severity: SeverityError, Code: code, Filter: l.stackFilter(),
		Message: fmt.Sprintf("%s denied on %s %s allowed through %s: %s", plural(len(names), "syscall"), l.native.Name, isAre(len(names)), how, sampleNames(names)),
		Hint:    hint})
}

// foreignABI says which filters are written for other ABIs than the
// native one linted (an i386 minijail policy, an aarch64 Firecracker
// file): their native calls all get the bad-arch action, so the other
// findings are about that. A stack built per ABI, as systemd installs one
// (src/shared/seccomp-util.c: seccomp_init_for_arch sets
// SCMP_FLTATR_ACT_BADARCH to allow), is no surprise: when some filter is
// written for the native ABI and a foreign one lets native calls through,
// the foreign one is by design; one info finding (LintPerABI) says how the
// stack is built instead of a warning per filter; it counts the filters
// per ABI from arches where the source names them (LintOptions.Arches).
func (l *linter) foreignABI(arches []string) {
	nativeCovered := false
	var foreign []int
	for i, p := range l.s {
		abis := p.ABIs()
		if slices.Contains(abis, l.native.Name) {
			nativeCovered = true
		} else if len(abis) > 0 {
			foreign = append(foreign, i)
		}
	}
	byDesign := 0
	for _, i := range foreign {
		p := l.s[i]
		if nativeCovered && passesNative(p, l.native) {
			byDesign++
			continue
		}
		abis := p.ABIs()
		l.add(Finding{Severity: SeverityWarning, Code: LintForeignABI, Filter: i,
			Message: fmt.Sprintf("the filter is written for %s, not %s: every %s call gets its bad-arch action", strings.Join(abis, ", "), l.native.Name, l.native.Name),
			Hint:    fmt.Sprintf("the other findings are about %s calls; simulate --arch %s --all shows the filter's own verdicts", l.native.Name, abis[0])})
	}
	if byDesign > 0 {
		l.add(Finding{Severity: SeverityInfo, Code: LintPerABI, Filter: -1,
			Message: fmt.Sprintf("the stack is built per ABI, as systemd installs it: %s; each lets the other ABIs' calls through (bad-arch action allow)",
				perABIText(l.s, arches)),
			Hint: fmt.Sprintf("the other findings are about %s calls; simulate --arch i386 (or x32) --all shows what the other ABIs' filters do", l.native.Name)})
	}
}

// allABIs is perABIText's key for a filter the source installs for every
// ABI (systemd's SystemCallArchitectures filter, arch "all").
const allABIs = "all ABIs"

// perABIText counts the filters of s per ABI, "11 filters for x86_64, 8
// filters for i386, 9 filters for x32, 1 filter for all ABIs": by the ABI
// the source names (arches, index for index; systemd's "x86" is i386),
// else by Program.ABIs, which judges with all arguments 0 and so misses
// a filter whose rules all look at arguments (RestrictNamespaces' clone
// flags).
func perABIText(s filters.Stack, arches []string) string {
	perABI := map[string]int{}
	for i, p := range s {
		switch {
		case i < len(arches) && arches[i] != "":
			a := arches[i]
			if named, ok := map[string]string{"x86": filters.ArchI386.Name, "all": allABIs}[a]; ok {
				a = named
			}
			perABI[a]++
		default:
			for _, a := range p.ABIs() {
				perABI[a]++
			}
		}
	}
	var parts []string
	for _, a := range []string{filters.ArchX86_64.Name, filters.ArchI386.Name, filters.ArchX32.Name, filters.ArchAArch64.Name, filters.ArchARM.Name, filters.ArchRISCV64.Name, allABIs} {
		if n := perABI[a]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s for %s", plural(n, "filter"), a))
		}
	}
	return strings.Join(parts, ", ")
}

// passesNative reports whether p alone allows a call of the native ABI
// that its rules do not name: its bad-arch action lets native calls
// through. The probe is an unknown native number (no table names it), so
// a rule for a real syscall cannot decide it.
func passesNative(p *filters.Program, native *filters.Arch) bool {
	c, err := filters.NewExecutable(p)
	if err != nil {
		return false
	}
	d := filters.SeccompData{Nr: native.Nr(lintUnknownNr), Arch: native.AuditArch}
	a, _ := filters.SplitRet(c.Exec(&d).Ret)
	return allowed(a)
}

// x32Unhandled warns when a stack that denies some native syscall lets
// unknown x32 numbers through although it does not mean to: either no x32
// syscall gets a verdict of its own (the filter never looks at the x32
// bit), or unknown native numbers are denied while unknown x32 numbers are
// allowed (an allow list that forgot x32). A deny list that handles x32
// (LXC's on x86_64 filters x32 as its own architecture) allows unknown x32
// numbers as it allows unknown native ones, by design: no finding, so lint
// agrees with simulate --arch x32.
func (l *linter) x32Unhandled() {
	if l.native != filters.ArchX86_64 {
		return
	}
	for _, f := range l.out {
		if f.Code == LintBypassX32 {
			return
		}
	}
	d := filters.SeccompData{Nr: lintUnknownX32Nr, Arch: filters.AuditArchX86_64}
	r := l.verdict(d)
	if !l.deniesSome(l.native) || !allowed(r.Action) {
		return
	}
	deniesX32 := l.deniesSome(filters.ArchX32)
	unknownNative := l.verdict(filters.SeccompData{Nr: lintUnknownX32Nr &^ filters.X32SyscallBit, Arch: filters.AuditArchX86_64})
	switch {
	case !deniesX32:
		l.add(Finding{Severity: SeverityWarning, Code: LintX32Unhandled, Filter: l.stackFilter(),
			Message: fmt.Sprintf("x32 syscall numbers (bit 0x40000000 set) fall through to %s: the filter never checks the x32 bit", filters.RetText(r.Ret)),
			Hint:    "deny nr >= 0x40000000 right after the arch check"})
	case !allowed(unknownNative.Action):
		l.add(Finding{Severity: SeverityWarning, Code: LintX32Unhandled, Filter: l.stackFilter(),
			Message: fmt.Sprintf("x32 syscall numbers no table names fall through to %s, while unknown x86_64 numbers get %s", filters.RetText(r.Ret), filters.RetText(unknownNative.Ret)),
			Hint:    "give the x32 part of the filter the same default action as the x86_64 part"})
	}
}

// deniesSome reports whether the stack denies (all arguments 0) some
// syscall of a's table.
func (l *linter) deniesSome(a *filters.Arch) bool {
	for _, n := range a.SortedNumbers() {
		if !allowed(l.verdict(a.Data(n)).Action) {
			return true
		}
	}
	return false
}

// plural returns "1 syscall" or "2 syscalls".
func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

func sampleNames(names []string) string {
	if len(names) <= lintSampleNames {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s (+%d more)", strings.Join(names[:lintSampleNames], ", "), len(names)-lintSampleNames)
}

// ruleSite is a `jeq #k` on the syscall number, with the ABIs it can be
// reached under.
type ruleSite struct {
	pc     int
	arches []*filters.Arch
	nr     int // table number
	name   string
}

// ruleSites finds the syscall-number comparisons of program p.
func (l *linter) ruleSites(i int) []ruleSite {
	p := l.s[i]
	st := filters.Flow(p.Insns)
	var out []ruleSite
	for pc, ri := range p.Insns {
		if !st[pc].Reached || st[pc].Word != filters.OffsetNr/4 || ri.Op != filters.Jmp|filters.Jeq|filters.K {
			continue
		}
		site := ruleSite{pc: pc}
		switch {
		case ri.K&filters.X32SyscallBit != 0 && (st[pc].Arch == nil || st[pc].Arch == filters.ArchX86_64):
			site.arches = []*filters.Arch{filters.ArchX32}
			site.nr = int(ri.K &^ filters.X32SyscallBit)
		case st[pc].Arch != nil:
			site.arches = []*filters.Arch{st[pc].Arch}
			site.nr = int(ri.K)
		default:
			site.arches = []*filters.Arch{l.native, filters.ArchI386}
			site.nr = int(ri.K)
		}
		site.name = site.arches[0].SyscallName(site.nr)
		if site.name == "" {
			continue
		}
		out = append(out, site)
	}
	return out
}

// rules looks for dead and duplicate rules in each distinct program.
func (l *linter) rules() {
	for _, i := range l.distinct() {
		p := l.s[i]
		c := l.cs[i]
		sites := l.ruleSites(i)
		compared := map[int]bool{}
		for _, s := range sites {
			compared[s.nr] = true
		}
		// The default action: what an unnamed, uncompared number gets.
		def, defOK := uint32(0), false
		for n := range 1024 {
			if l.native.SyscallName(n) != "" || compared[n] {
				continue
			}
			d := l.native.Data(n)
			r := c.Exec(&d)
			def, defOK = r.Ret, r.Read.Only(filters.FieldNr|filters.FieldArch)
			break
		}
		for _, site := range sites {
			l.checkSite(i, p, c, site, def, defOK)
		}
	}
}

func (l *linter) checkSite(i int, p *filters.Program, c *filters.Executable, site ruleSite, def uint32, defOK bool) {
	reached, sameAsDefault := false, true
	var first *filters.Result
	for _, a := range site.arches {
		d := a.Data(site.nr)
		path := make([]int, 0, 32)
		r := c.InstrumentedExec(&d, &path)
		if !r.Read.Only(filters.FieldNr | filters.FieldArch) {
			return // arguments decide: cannot judge statically
		}
		for _, pc := range r.Path {
			if pc == site.pc {
				reached = true
			}
		}
		if r.Ret != def || a != l.native {
			sameAsDefault = false
		}
		if first == nil {
			first = &r
		}
	}
	if !reached {
		// The comparison is true only for this number, and no run with it
		// gets here: an earlier instruction always decides the syscall.
		l.add(Finding{Severity: SeverityWarning, Code: LintDuplicateRule, Filter: i, Syscall: site.name,
			Message: fmt.Sprintf("%s: the rule for %s never applies; an earlier rule%s always decides %s (%s)", insnWhere(i, p, site.pc), site.name, firstAt(p, site.name), site.name, filters.RetText(first.Ret)),
			Hint:    "remove the duplicate, or merge the two rules if both actions were meant"})
		return
	}
	if defOK && sameAsDefault && first != nil && first.Ret == def {
		l.add(Finding{Severity: SeverityWarning, Code: LintDeadRule, Filter: i, Syscall: site.name,
			Message: fmt.Sprintf("%s: the rule for %s returns %s, the same as the default action", ruleWhere(i, p, site.pc, site.name), site.name, filters.RetText(def)),
			Hint:    "remove the rule: it changes no verdict but lengthens the path of every syscall compared after it"})
	}
}

// insnWhere names instruction pc of filter i (p) so that no one reads it
// as a line of the source: "instruction 17 of filter 0 (dead) in
// compile's listing".
func insnWhere(i int, p *filters.Program, pc int) string {
	return fmt.Sprintf("instruction %d of filter %d (%s) in compile's listing", pc, i, p.Name)
}

// ruleWhere places the rule for name at instruction pc of filter i (p):
// where the source names it when the loader kept that (Program.RuleAt),
// "dead.yaml:6:7 (instruction 17 of filter 0 (dead) in compile's
// listing)", else insnWhere.
func ruleWhere(i int, p *filters.Program, pc int, name string) string {
	if at, ok := p.RuleAt[name]; ok {
		return fmt.Sprintf("%s (%s)", at, insnWhere(i, p, pc))
	}
	return insnWhere(i, p, pc)
}

// firstAt is " (at file:line:col)" where the source first names name in
// a rule (Program.RuleAt), else "".
func firstAt(p *filters.Program, name string) string {
	if at, ok := p.RuleAt[name]; ok {
		return " (" + at + ")"
	}
	return ""
}

// Clone flags (include/uapi/linux/sched.h) the runtimes start threads
// with: Go's newosproc passes cloneFlags (runtime/os_linux.go), glibc's
// create_thread (nptl/pthread_create.c) its clone_flags.
const (
	goCloneFlags    = 0x100 | 0x200 | 0x400 | 0x800 | 0x40000 | 0x10000 // CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_SYSVSEM|CLONE_THREAD
	glibcCloneFlags = goCloneFlags | 0x80000 | 0x100000 | 0x200000      // ... |CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID
)

// runtimeCall is one way a runtime makes a call: who makes it and its
// arguments (nil: all 0, for calls whose arguments a policy does not
// usually look at).
type runtimeCall struct {
	who  string
	args []uint64
}

// runtimeCalls returns the calls runtime checks for need: clone with the
// flags Go and glibc really pass (flags are arg0 on x86, arm and
// aarch64), one call with arguments 0 for the others.
func runtimeCalls(need runtimeNeed) []runtimeCall {
	if need.name == "clone" {
		return []runtimeCall{
			{fmt.Sprintf("with the flags Go's newosproc passes (arg0 %#x)", goCloneFlags), []uint64{goCloneFlags}},
			{fmt.Sprintf("with the flags glibc's pthread_create passes (arg0 %#x)", glibcCloneFlags), []uint64{glibcCloneFlags}},
		}
	}
	return []runtimeCall{{}}
}

func (l *linter) runtime() {
	for _, need := range runtimeNeeds {
		n, ok := l.native.Lookup(need.name)
		if !ok {
			continue
		}
		for _, c := range runtimeCalls(need) {
			if f, bad := l.runtimeFinding(need, c, l.verdict(l.native.Data(n, c.args...))); bad {
				l.add(f)
				break
			}
		}
	}
}

// runtimeFinding is the finding for a runtime call whose verdict is r,
// and whether there is one.
func (l *linter) runtimeFinding(need runtimeNeed, c runtimeCall, r filters.StackResult) (Finding, bool) {
	if allowed(r.Action) {
		return Finding{}, false
	}
	argNote := ""
	switch {
	case c.who != "":
		argNote = " " + c.who
	case readsArgs(r):
		argNote = " (with all arguments 0; the verdict depends on arguments)"
	}
	f := Finding{Code: LintRuntimeNeeds, Filter: r.Decider, Syscall: need.name}
	errno, isErrno := r.Errno()
	switch {
	case !isErrno: // kill_process, kill_thread, trap, unknown
		f.Severity = SeverityError
		if !need.fatal {
			f.Severity = SeverityWarning
		}
		f.Message = fmt.Sprintf("%s is %s%s, so the process gets SIGSYS; %s", need.name, verb(r), argNote, need.why)
	case need.okErrno != 0 && errno == need.okErrno:
		return Finding{}, false
	default:
		f.Severity = SeverityInfo
		if need.fatal {
			f.Severity = SeverityWarning
		}
		f.Message = fmt.Sprintf("%s fails with errno %d%s: %s", need.name, errno, argNote, need.why)
	}
	f.Hint = "allow " + need.name + " if a Go program (or glibc) runs under this stack; the benchmark's own child is a Go program"
	if need.okErrno != 0 {
		f.Hint = fmt.Sprintf("allow %s, or deny it with errno %d (ENOSYS) so callers fall back", need.name, need.okErrno)
	}
	return f, true
}

// userNotif reports each filter holding a `ret` of SECCOMP_RET_USER_NOTIF,
// the check `run` refuses a stack on: its children install filters without
// SECCOMP_FILTER_FLAG_NEW_LISTENER, so no supervisor answers and the kernel
// fails the syscall with ENOSYS (kernel/seccomp.c:
// seccomp_do_user_notification). Like run, it looks at every `ret #k`,
// reachable or not; for a valid stack it names the native syscalls the
// filter notifies for with all arguments 0.
func (l *linter) userNotif(valid, listener bool) {
	for _, i := range l.distinct() {
		p := l.s[i]
		first, ok := p.UserNotifAt()
		if !ok {
			continue
		}
		var names []string
		if valid {
			for _, n := range l.native.SortedNumbers() {
				d := l.native.Data(n)
				if a, _ := filters.SplitRet(l.cs[i].Exec(&d).Ret); a == filters.ActionUserNotif {
					names = append(names, l.native.SyscallName(n))
				}
			}
		}
		f := Finding{Severity: SeverityError, Code: LintUserNotif, Filter: i,
			Hint: "run refuses it: no listener; replace the notify action (e.g. SCMP_ACT_NOTIFY) with allow or errno to measure the policy"}
		if listener {
			// The notify workload's own filter sits on top with the
			// listener; ties between USER_NOTIF verdicts go to the newest
			// filter, so its supervisor answers the workload syscall.
			f.Severity = SeverityInfo
			f.Hint = "--workload notify answers the workload syscall through its own listener on top of the stack; any other syscall this filter notifies for would still fail with ENOSYS"
		}
		switch {
		case !valid:
			f.Message = fmt.Sprintf("filter %d (%s) returns SECCOMP_RET_USER_NOTIF at instruction %d (compile's listing); without a listener the syscall would fail with ENOSYS", i, p.Name, first)
		case len(names) == 0:
			f.Message = fmt.Sprintf("filter %d (%s) returns SECCOMP_RET_USER_NOTIF at instruction %d (compile's listing), for no %s syscall with all arguments 0 (other arguments or ABIs may reach it); without a listener the syscall would fail with ENOSYS", i, p.Name, first, l.native.Name)
		default:
			if len(names) == 1 {
				f.Syscall = names[0]
			}
			f.Message = fmt.Sprintf("filter %d (%s) returns SECCOMP_RET_USER_NOTIF for %s on %s: %s; without a listener %s would fail with ENOSYS", i, p.Name, plural(len(names), "syscall"), l.native.Name, sampleNames(names), map[bool]string{true: "it", false: "they"}[len(names) == 1])
		}
		l.add(f)
	}
}

// sourceWarnings turns each distinct program's Program.Warnings (problems
// the loader found in the source, such as an OCI syscall name no table
// knows) into a warning finding, and its Program.Notes (how a valid
// source was read: parts left out of the model, where an include was
// found, which compiler's reading is modeled) into info findings. Each of
// ws (a stacked source's own warnings, LintOptions.SourceWarnings) becomes
// a stack finding: an error when the source's consumer refuses it
// (Refused) or the ignored item would have denied something (FailsOpen),
// else a warning.
func (l *linter) sourceWarnings(ws []*filters.SourceError) {
	for _, i := range l.distinct() {
		for _, w := range l.s[i].Warnings {
			l.add(Finding{Severity: SeverityWarning, Code: LintSourceWarning, Filter: i,
				Message: fmt.Sprintf("filter %d (%s): %s", i, l.s[i].Name, w),
				Hint:    "fix the source at the place named; the filter is built as if the item were not there"})
		}
		for _, n := range l.s[i].Notes {
			l.add(Finding{Severity: SeverityInfo, Code: LintSourceNote, Filter: i,
				Message: fmt.Sprintf("filter %d (%s): %s", i, l.s[i].Name, n),
				Hint:    "nothing to fix: the source is valid; this says how it was read (a part left out of the model, where an included file was found, whose reading of it is modeled)"})
		}
	}
	for _, w := range ws {
		if w.Refused {
			l.add(Finding{Severity: SeverityError, Code: LintRefused, Filter: -1,
				Message: w.Error(),
				Hint:    "fix the line named; the other findings check the stack as if it were installed anyway (for a systemd unit: as systemd 255 and earlier install it)"})
			continue
		}
		if w.FailsOpen {
			open := *w
			open.Msg += "; the stack lets through what the entry was to deny"
			l.add(Finding{Severity: SeverityError, Code: LintIgnoredDeny, Filter: -1,
				Message: open.Error(),
				Hint:    "fix the entry at the place named; it is ignored (as systemd logs and skips it), so the stack denies less than the source says"})
			continue
		}
		l.add(Finding{Severity: SeverityWarning, Code: LintSourceWarning, Filter: -1,
			Message: w.Error(),
			Hint:    "fix the source at the place named; it is ignored (as systemd logs and skips it), and the stack is built without it"})
	}
}

// errnoCapped warns about every RET K of each distinct program that
// returns SECCOMP_RET_ERRNO with data above filters.MaxErrno (an OCI
// profile's errnoRet 12345): the kernel returns errno 4095 instead
// (kernel/seccomp.c: __seccomp_filter, "if (data > MAX_ERRNO) data =
// MAX_ERRNO"). One finding per filter and value, naming the first line.
func (l *linter) errnoCapped() {
	for _, i := range l.distinct() {
		p := l.s[i]
		seen := map[uint32]bool{}
		for pc, ins := range p.Insns {
			if ins.Op != filters.Ret|filters.K || !filters.ErrnoCapped(ins.K) || seen[ins.K] {
				continue
			}
			seen[ins.K] = true
			_, data := filters.SplitRet(ins.K)
			l.add(Finding{Severity: SeverityWarning, Code: LintErrnoCapped, Filter: i,
				Message: fmt.Sprintf("filter %d (%s) line %d: returns %s, but the kernel caps the errno at %d (MAX_ERRNO): the syscall fails with errno %d, not %d",
					i, p.Name, pc, filters.RetText(ins.K), filters.MaxErrno, filters.MaxErrno, data),
				Hint: fmt.Sprintf("give an errno from 1 to %d (an OCI profile's errnoRet, a policy's errno); Linux errnos end at 133 (EHWPOISON)", filters.MaxErrno)})
		}
	}
}

// verb describes a non-errno verdict: "killed (KILL_PROCESS) by filter 2".
func verb(r filters.StackResult) string {
	what := "killed"
	if r.Action == filters.ActionTrap {
		what = "trapped"
	}
	by := ""
	if r.Decider >= 0 {
		by = fmt.Sprintf(" by filter %d", r.Decider)
	}
	return fmt.Sprintf("%s (%s)%s", what, filters.RetText(r.Ret), by)
}

func (l *linter) workload(names []string, valid bool) {
	var report CacheReport
	if valid {
		report = PredictCache(l.s, []*filters.Arch{l.native})
	}
	for _, name := range names {
		n, ok := l.native.Lookup(name)
		if !ok {
			l.add(Finding{Severity: SeverityError, Code: LintUnknownSyscall, Filter: -1, Syscall: name,
				Message: fmt.Sprintf("workload syscall %q is not in the %s table", name, l.native.Name),
				Hint:    "check the spelling (names as in syscall_64.tbl, e.g. getpid, close, execve)"})
			continue
		}
		if !valid {
			continue
		}
		r := l.verdict(l.native.Data(n))
		argNote := ""
		if readsArgs(r) {
			argNote = " (with all arguments 0; the verdict depends on arguments)"
		}
		errno, isErrno := r.Errno()
		switch {
		case allowed(r.Action):
		case l.listener && (r.Action == filters.ActionUserNotif || r.Action == filters.ActionTrace):
			// The notify workload's own USER_NOTIF filter on top wins
			// over TRACE and ties with USER_NOTIF (the newest decides):
			// its supervisor answers.
		case !isErrno:
			l.add(Finding{Severity: SeverityError, Code: LintWorkloadKilled, Filter: r.Decider, Syscall: name,
				Message: fmt.Sprintf("the workload calls %s, which is %s%s: the benchmark child would die", name, verb(r), argNote),
				Hint:    "allow " + name + " in the policy, or pick a workload whose syscalls the policy allows"})
		default:
			l.add(Finding{Severity: SeverityWarning, Code: LintWorkloadDenied, Filter: r.Decider, Syscall: name,
				Message: fmt.Sprintf("the workload calls %s, which fails with errno %d%s: the benchmark times the error path", name, errno, argNote),
				Hint:    "allow " + name + " if you mean to measure the syscall itself"})
		}
		if e, ok := report.Lookup(l.native.Name, n); ok && !e.Cached && len(l.s) > 0 && allowed(r.Action) {
			l.add(Finding{Severity: SeverityInfo, Code: LintWorkloadCost, Filter: e.Filter, Syscall: name,
				Message: fmt.Sprintf("%s runs the filters on every call (%d instructions over the stack): %s", name, r.Instructions, e.Reason),
				Hint:    "plain nr rules that return ALLOW let the kernel's action cache skip the filters (Linux >= 5.11)"})
		}
	}
}

// uncached reports allowed native syscalls the action cache cannot skip.
func (l *linter) uncached() {
	if len(l.s) == 0 {
		return
	}
	report := PredictCache(l.s, []*filters.Arch{l.native})
	var names []string
	cause := map[string]int{}
	for _, e := range report.Entries {
		if e.Cached {
			continue
		}
		if !allowed(l.verdict(l.native.Data(e.Nr)).Action) {
			continue
		}
		names = append(names, e.Name)
		cause[e.Cause]++
	}
	if len(names) == 0 {
		return
	}
	var causes []string
	for _, c := range []string{CacheLoad, CacheRet, CacheInsn, CacheRange, CacheInvalid} {
		if cause[c] > 0 {
			causes = append(causes, fmt.Sprintf("%s %d", c, cause[c]))
		}
	}
	l.add(Finding{Severity: SeverityInfo, Code: LintUncached, Filter: -1,
		Message: fmt.Sprintf("%s allowed on %s %s the filters on every call (%s): %s", plural(len(names), "syscall"), l.native.Name, map[bool]string{true: "runs", false: "run"}[len(names) == 1], strings.Join(causes, ", "), sampleNames(names)),
		Hint:    "argument checks, loads of instruction_pointer and non-ALLOW returns keep the kernel's action cache from skipping the filters; see simulate --all"})
}
