// Package workload is the workload table: the names, ops and syscalls of
// every workload run measures, pure data with no kernel import, so lint,
// run's preflight, the help texts and report read it without importing
// the measuring runner. The timed loops that run a row live in runner.
package workload

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Spec is what a workload is, with no kernel: the pure fields of
// runner.Workload, which adds the command and container specs. Op names
// what one op is; the loops report nanoseconds per syscall, so an
// iteration of mix counts 5 ops.
type Spec struct {
	// Name is the workload's name in the workload table (Table):
	// "mix", "getpid", "close", "exec", "execvpe-miss", "notify",
	// "syscall" or "command".
	Name string
	// Op describes one op for the report, e.g. "one syscall of the mix loop".
	Op string
	// SyscallsPerIter is the number of syscalls (ops) per loop iteration.
	SyscallsPerIter int
	// Syscalls are the syscall names the loop makes, for cache and preflight
	// checks.
	Syscalls []string
	// Syscall holds nr, a0, a1, a2 for the "syscall" and "notify"
	// workloads.
	Syscall [4]int64
	// PathArg, if set, replaces a1 of the "syscall" workload by a pointer to
	// this NUL-terminated string.
	PathArg string
	// PathDirs is the number of PATH directories the exec workloads search;
	// the program is only in the last (1 for "exec").
	PathDirs int
	// ProbeKiB is the "probe" workload's working set (Probe), in KiB:
	// between consecutive syscalls the loop reads that much data and,
	// where the loop supports it, runs through that much code.
	ProbeKiB int
	// ProbeCode reports that the probe also runs through ProbeKiB of code
	// (amd64 only); false reads data only.
	ProbeCode bool
}

// Kind selects the measuring child's timed loop (runner/internal/loop);
// the child maps the protocol's workload name to it once, through the
// table, so its NOSPLIT timed code switches on a small integer.
type Kind uint8

// The loop kinds, one per timed loop of the child.
const (
	KindMix     Kind = iota + 1 // loopMix: close(dup(fd)), getpid, getuid, umask
	KindClose                   // loopClose: close(dup(fd))
	KindGetpid                  // loopGetpid: getpid
	KindSyscall                 // loopSyscall: one syscall with fixed arguments
	KindExec                    // loopExec: clone, execve along PATH, wait4
	KindCommand                 // no loop: runner/command runs a whole command
	KindNotify                  // loopSyscallCount: one notified syscall, results counted
	KindProbe                   // loop.Probe: a known working set, then one syscall
)

// Info is one row of the workload table: what the CLI help, the lint and
// preflight checks (through Syscalls), the parent and the child know about
// a timed loop.
type Info struct {
	// Name is the --workload value and the "workload" field of the child
	// protocol.
	Name string
	// Help is a short description for the CLI help, e.g. "UnixBench execl".
	Help string
	// Op describes one op; for execvpe-miss, K stands for the number of
	// PATH directories, and "syscall" names its syscall when it is built
	// (Syscall).
	Op string
	// Syscalls are the syscall names the loop makes; nil for "syscall",
	// which makes the one it is built with.
	Syscalls []string
	// SyscallsPerIter is the number of syscalls (ops) per loop iteration.
	SyscallsPerIter int
	// PathDirs, when above 0, marks a workload that execs a fixture
	// program written at run time (runner's ensureExecFixture); it is the default
	// number of PATH directories searched.
	PathDirs int
	// PathDirsParam reports that the number of PATH directories can be
	// chosen (ExecvpeMiss, --path-dirs).
	PathDirsParam bool
	// ByName reports that --workload selects the row by its name; false for
	// "syscall", which --syscall builds (Syscall).
	ByName bool
	// Kind is the child's timed loop for this row.
	Kind Kind
}

// NeedsExecFixture reports whether the workload execs a program that the
// parent writes to a temporary directory before the run.
func (wi Info) NeedsExecFixture() bool { return wi.PathDirs > 0 }

// workloadTable is the one list of workloads, in the order the CLI lists
// them. The syscall loops model UnixBench syscall.c's modes, exec its
// execl benchmark.
var workloadTable = []Info{
	{Name: "close", Help: "UnixBench syscall.c close mode", Kind: KindClose, ByName: true,
		SyscallsPerIter: 2, Syscalls: []string{"dup", "close"},
		Op: "one syscall of close(dup(fd))"},
	{Name: "getpid", Help: "UnixBench syscall.c getpid mode", Kind: KindGetpid, ByName: true,
		SyscallsPerIter: 1, Syscalls: []string{"getpid"},
		Op: "one getpid() syscall"},
	{Name: "mix", Help: "UnixBench syscall.c mix mode", Kind: KindMix, ByName: true,
		SyscallsPerIter: 5, Syscalls: []string{"dup", "close", "getpid", "getuid", "umask"},
		Op: "one syscall of the UnixBench mix loop: close(dup(fd)), getpid(), getuid(), umask(022)"},
	{Name: "exec", Help: "UnixBench execl", Kind: KindExec, ByName: true, PathDirs: 1,
		SyscallsPerIter: 1, Syscalls: []string{"clone", "execve", "exit", "wait4"},
		Op: "one clone(CLONE_VM|CLONE_VFORK) + execve of a 129-byte static program that calls exit(0) + wait4"},
	{Name: "execvpe-miss", Help: "execvpe's PATH search, --path-dirs", Kind: KindExec, ByName: true, PathDirs: 8, PathDirsParam: true,
		SyscallsPerIter: 1, Syscalls: []string{"clone", "execve", "exit", "wait4"},
		Op: "one clone + K execve attempts along a K-directory PATH (K-1 ENOENT misses) + exit + wait4"},
	{Name: "notify", Help: "SECCOMP_RET_USER_NOTIF round trip to a supervisor process, --syscall, --notify-sync, --notify-reply", Kind: KindNotify, ByName: true,
		SyscallsPerIter: 1, Syscalls: []string{"getppid"},
		Op: "one getppid() notified to a supervisor in another process and answered (SECCOMP_RET_USER_NOTIF round trip)"},
	{Name: "syscall", Help: "one syscall from the safe list, --syscall", Kind: KindSyscall,
		SyscallsPerIter: 1,
		Op:              "one syscall from the safe list with fixed arguments"},
	{Name: "probe", Help: "a known data and code working set between syscalls, for estimate's indirect-cost calibration", Kind: KindProbe,
		SyscallsPerIter: 1,
		Op:              "one syscall after touching a known working set"},
	{Name: "command", Help: "a whole command, --workload command -- CMD [ARG...]", Kind: KindCommand,
		SyscallsPerIter: 1,
		Op:              "one run of the command: execve to wait4, under the stack"},
}

// Table returns a copy of the workload table, in CLI order.
func Table() []Info {
	out := make([]Info, len(workloadTable))
	for i, wi := range workloadTable {
		wi.Syscalls = slices.Clone(wi.Syscalls)
		out[i] = wi
	}
	return out
}

// Find returns a copy of the table row named name, including "syscall",
// and whether there is one.
func Find(name string) (Info, bool) {
	wi := find(name)
	if wi == nil {
		return Info{}, false
	}
	c := *wi
	c.Syscalls = slices.Clone(wi.Syscalls)
	return c, true
}

func find(name string) *Info {
	for i := range workloadTable {
		if workloadTable[i].Name == name {
			return &workloadTable[i]
		}
	}
	return nil
}

// Names returns the names --workload accepts, in table order.
func Names() []string {
	var names []string
	for _, wi := range workloadTable {
		if wi.ByName {
			names = append(names, wi.Name)
		}
	}
	return names
}

// Usage returns the help text of a --workload flag, read from the table:
// "timed loop: " and each name with its Help.
func Usage() string {
	var parts []string
	for _, wi := range workloadTable {
		if wi.ByName {
			parts = append(parts, wi.Name+" ("+wi.Help+")")
		}
	}
	last := len(parts) - 1
	return "timed loop: " + strings.Join(parts[:last], ", ") + " or " + parts[last]
}

// spec returns the row as a Spec.
func (wi *Info) spec() Spec {
	return Spec{Name: wi.Name, Op: wi.Op, SyscallsPerIter: wi.SyscallsPerIter,
		Syscalls: slices.Clone(wi.Syscalls), PathDirs: wi.PathDirs}
}

// Exec returns UnixBench's exec mode: per op, one vfork-style
// clone, an execve of a minimal static program that calls exit(0), and
// wait4. The program is written to a temporary directory at run time and
// removed afterwards; it inherits the filter stack.
func Exec() Spec { return find("exec").spec() }

// ExecvpeMiss returns the path-search workload: per op, one clone,
// then execve attempts through k directories of which only the last holds
// the program (k-1 ENOENT misses, as execvpe walks PATH), exit, wait4.
func ExecvpeMiss(k int) Spec {
	w := find("execvpe-miss").spec()
	w.PathDirs = k
	w.Op = fmt.Sprintf("one clone + %d execve attempts along a %d-directory PATH (%d ENOENT misses) + exit + wait4", k, k, k-1)
	return w
}

// safeSyscall is a syscall the "syscall" workload may loop on: it has no
// side effect with the given arguments. The numbers are per architecture
// (safeSyscalls in syscalls_amd64.go, syscalls_arm64.go).
type safeSyscall struct {
	nr      int64
	args    [3]int64
	path    string // if set, a1 points to it
	comment string
}

// SafeSyscalls returns the names `--syscall` accepts, sorted, each with a
// description of its arguments.
func SafeSyscalls() []string {
	var out []string
	for n, s := range safeSyscalls {
		out = append(out, n+": "+s.comment)
	}
	sort.Strings(out)
	return out
}

// Syscall returns a loop on one syscall from the safe list,
// spec "NAME" or "NAME:a0[,a1[,a2]]" with integer arguments overriding the
// defaults (openat's path argument cannot be overridden).
func Syscall(spec string) (Spec, error) {
	name, argStr, hasArgs := strings.Cut(spec, ":")
	sc, ok := safeSyscalls[name]
	if !ok {
		var names []string
		for n := range safeSyscalls {
			names = append(names, n)
		}
		sort.Strings(names)
		return Spec{}, fmt.Errorf("syscall %q is not on the safe list: use one of %s", name, strings.Join(names, ", "))
	}
	args := sc.args
	if hasArgs {
		parts := strings.Split(argStr, ",")
		if len(parts) > 3 {
			return Spec{}, fmt.Errorf("syscall %q: at most 3 arguments, got %d", spec, len(parts))
		}
		for i, p := range parts {
			if sc.path != "" && i == 1 {
				return Spec{}, fmt.Errorf("syscall %q: argument 1 of %s is a fixed path and cannot be set", spec, name)
			}
			v, err := strconv.ParseInt(strings.TrimSpace(p), 0, 64)
			if err != nil {
				return Spec{}, fmt.Errorf("syscall %q: argument %d %q is not an integer", spec, i, p)
			}
			args[i] = v
		}
	}
	w := find("syscall").spec()
	w.Syscalls = []string{name}
	w.Syscall = [4]int64{sc.nr, args[0], args[1], args[2]}
	w.PathArg = sc.path
	w.Op = fmt.Sprintf("one %s syscall: %s, args %d,%d,%d", name, sc.comment, args[0], args[1], args[2])
	return w, nil
}

// Notify returns the notify workload on syscall spec (as for Syscall: "NAME" or "NAME:a0,a1,a2" from the safe list; "" means
// getppid). The op is one round trip through the supervisor.
//
// Requires at least Linux 5.5 (SECCOMP_USER_NOTIF_FLAG_CONTINUE);
// notify.Options.Sync Linux 6.6.
func Notify(spec string) (Spec, error) {
	if spec == "" {
		spec = "getppid"
	}
	w, err := Syscall(spec)
	if err != nil {
		return Spec{}, err
	}
	name := w.Syscalls[0]
	nw := find("notify").spec()
	nw.Syscalls = []string{name}
	nw.Syscall = w.Syscall
	nw.PathArg = w.PathArg
	nw.Op = fmt.Sprintf("one %s() notified to a supervisor in another process and answered (SECCOMP_RET_USER_NOTIF round trip)", name)
	return nw, nil
}

// MaxProbeKiB is the largest working set Probe accepts, in KiB.
const MaxProbeKiB = 16384

// Probe returns the indirect-cost probe: per op, a dependent read of every
// cache line of kib KiB of data in a fixed random order, then (code) a run
// through kib KiB of straight-line code with a taken branch every 32
// bytes, then one syscall NAME from the safe list with arguments 0 (as
// Syscall, spec "NAME"). It returns an error for a syscall off the safe
// list or kib outside [0, MaxProbeKiB].
func Probe(name string, kib int, code bool) (Spec, error) {
	if kib < 0 || kib > MaxProbeKiB {
		return Spec{}, fmt.Errorf("probe working set %d KiB: want 0 to %d", kib, MaxProbeKiB)
	}
	s, err := Syscall(name)
	if err != nil {
		return Spec{}, err
	}
	if s.PathArg != "" {
		return Spec{}, fmt.Errorf("probe syscall %q takes a path: use one whose arguments are all 0", name)
	}
	w := find("probe").spec()
	w.Syscalls, w.Syscall, w.ProbeKiB, w.ProbeCode = s.Syscalls, [4]int64{s.Syscall[0]}, kib, code
	what := "data"
	if code {
		what = "data and code"
	}
	w.Op = fmt.Sprintf("one %s() after touching %d KiB of %s", name, kib, what)
	return w, nil
}

// IsNotify reports whether w is the notify workload.
func (w Spec) IsNotify() bool { return w.Name == "notify" }

// Loops returns the built-in syscall loops (the table's rows that
// --workload selects and that exec nothing) by name.
func Loops() map[string]Spec {
	m := map[string]Spec{}
	for i := range workloadTable {
		if wi := &workloadTable[i]; wi.ByName && !wi.NeedsExecFixture() {
			m[wi.Name] = wi.spec()
			if wi.Kind == KindNotify {
				m[wi.Name], _ = Notify("")
			}
		}
	}
	return m
}

// Lookup returns the workload --workload NAME selects, with the
// table's default PATH directories for execvpe-miss (8), or an error
// listing the valid names.
func Lookup(name string) (Spec, error) {
	wi := find(name)
	if wi == nil || !wi.ByName {
		return Spec{}, fmt.Errorf("unknown workload %q: use one of %s", name, strings.Join(Names(), ", "))
	}
	if wi.PathDirsParam {
		return ExecvpeMiss(wi.PathDirs), nil
	}
	if wi.Kind == KindNotify {
		return Notify("")
	}
	return wi.spec(), nil
}
