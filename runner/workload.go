package runner

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/seccompbench/seccompbench/runner/command"
	"github.com/seccompbench/seccompbench/runner/container"
)

// Workload is a timed syscall loop. Op names what one op is; the loops
// report nanoseconds per syscall, so an iteration of mix counts 5 ops.
type Workload struct {
	// Name is the workload's name in the workload table (WorkloadTable):
	// "mix", "getpid", "close", "exec", "execvpe-miss" or "syscall".
	Name string
	// Op describes one op for the report, e.g. "one syscall of the mix loop".
	Op string
	// SyscallsPerIter is the number of syscalls (ops) per loop iteration.
	SyscallsPerIter int
	// Syscalls are the syscall names the loop makes, for cache and preflight
	// checks.
	Syscalls []string
	// Syscall holds nr, a0, a1, a2 for the "syscall" workload.
	Syscall [4]int64
	// PathArg, if set, replaces a1 of the "syscall" workload by a pointer to
	// this NUL-terminated string.
	PathArg string
	// PathDirs is the number of PATH directories the exec workloads search;
	// the program is only in the last (1 for "exec").
	PathDirs int
	// Command is the command workload's command (CommandWorkload); nil
	// for the loops.
	Command *command.Spec
	// Container, with Command, runs every run of the command in a
	// container an OCI runtime starts (ContainerWorkload); nil otherwise.
	Container *container.Spec
}

// loopKind selects the child's timed loop (loop_amd64.s); the child maps
// the protocol's workload name to it once, through the workload table, so
// its NOSPLIT timed code switches on a small integer.
type loopKind uint8

const (
	kindMix     loopKind = iota + 1 // loopMix: close(dup(fd)), getpid, getuid, umask
	kindClose                       // loopClose: close(dup(fd))
	kindGetpid                      // loopGetpid: getpid
	kindSyscall                     // loopSyscall: one syscall with fixed arguments
	kindExec                        // loopExec: clone, execve along PATH, wait4
	kindCommand                     // no loop: runner/command runs a whole command
	kindNotify                      // loopSyscallCount: one notified syscall, results counted
)

// WorkloadInfo is one row of the workload table: what the CLI help, the
// lint and preflight checks (through Syscalls), the parent and the child
// know about a timed loop.
type WorkloadInfo struct {
	// Name is the --workload value and the "workload" field of the child
	// protocol.
	Name string
	// Help is a short description for the CLI help, e.g. "UnixBench execl".
	Help string
	// Op describes one op; for execvpe-miss, K stands for the number of
	// PATH directories, and "syscall" names its syscall when it is built
	// (SyscallWorkload).
	Op string
	// Syscalls are the syscall names the loop makes; nil for "syscall",
	// which makes the one it is built with.
	Syscalls []string
	// SyscallsPerIter is the number of syscalls (ops) per loop iteration.
	SyscallsPerIter int
	// PathDirs, when above 0, marks a workload that execs a fixture
	// program written at run time (ensureExecFixture); it is the default
	// number of PATH directories searched.
	PathDirs int
	// PathDirsParam reports that the number of PATH directories can be
	// chosen (ExecvpeMissWorkload, --path-dirs).
	PathDirsParam bool
	// ByName reports that --workload selects the row by its name; false for
	// "syscall", which --syscall builds (SyscallWorkload).
	ByName bool

	loop loopKind
}

// NeedsExecFixture reports whether the workload execs a program that the
// parent writes to a temporary directory before the run.
func (wi WorkloadInfo) NeedsExecFixture() bool { return wi.PathDirs > 0 }

// workloadTable is the one list of workloads, in the order the CLI lists
// them. The syscall loops model UnixBench syscall.c's modes, exec its
// execl benchmark.
var workloadTable = []WorkloadInfo{
	{Name: "close", Help: "UnixBench syscall.c close mode", loop: kindClose, ByName: true,
		SyscallsPerIter: 2, Syscalls: []string{"dup", "close"},
		Op: "one syscall of close(dup(fd))"},
	{Name: "getpid", Help: "UnixBench syscall.c getpid mode", loop: kindGetpid, ByName: true,
		SyscallsPerIter: 1, Syscalls: []string{"getpid"},
		Op: "one getpid() syscall"},
	{Name: "mix", Help: "UnixBench syscall.c mix mode", loop: kindMix, ByName: true,
		SyscallsPerIter: 5, Syscalls: []string{"dup", "close", "getpid", "getuid", "umask"},
		Op: "one syscall of the UnixBench mix loop: close(dup(fd)), getpid(), getuid(), umask(022)"},
	{Name: "exec", Help: "UnixBench execl", loop: kindExec, ByName: true, PathDirs: 1,
		SyscallsPerIter: 1, Syscalls: []string{"clone", "execve", "exit", "wait4"},
		Op: "one clone(CLONE_VM|CLONE_VFORK) + execve of a 129-byte static program that calls exit(0) + wait4"},
	{Name: "execvpe-miss", Help: "execvpe's PATH search, --path-dirs", loop: kindExec, ByName: true, PathDirs: 8, PathDirsParam: true,
		SyscallsPerIter: 1, Syscalls: []string{"clone", "execve", "exit", "wait4"},
		Op: "one clone + K execve attempts along a K-directory PATH (K-1 ENOENT misses) + exit + wait4"},
	{Name: "notify", Help: "SECCOMP_RET_USER_NOTIF round trip to a supervisor process, --syscall, --notify-sync, --notify-reply", loop: kindNotify, ByName: true,
		SyscallsPerIter: 1, Syscalls: []string{"getppid"},
		Op: "one getppid() notified to a supervisor in another process and answered (SECCOMP_RET_USER_NOTIF round trip)"},
	{Name: "syscall", Help: "one syscall from the safe list, --syscall", loop: kindSyscall,
		SyscallsPerIter: 1,
		Op:              "one syscall from the safe list with fixed arguments"},
	{Name: "command", Help: "a whole command, --workload command -- CMD [ARG...]", loop: kindCommand,
		SyscallsPerIter: 1,
		Op:              "one run of the command: execve to wait4, under the stack"},
}

// WorkloadTable returns a copy of the workload table, in CLI order.
func WorkloadTable() []WorkloadInfo {
	out := make([]WorkloadInfo, len(workloadTable))
	for i, wi := range workloadTable {
		wi.Syscalls = slices.Clone(wi.Syscalls)
		out[i] = wi
	}
	return out
}

// FindWorkload returns a copy of the table row named name, including
// "syscall", and whether there is one.
func FindWorkload(name string) (WorkloadInfo, bool) {
	wi := findWorkload(name)
	if wi == nil {
		return WorkloadInfo{}, false
	}
	c := *wi
	c.Syscalls = slices.Clone(wi.Syscalls)
	return c, true
}

func findWorkload(name string) *WorkloadInfo {
	for i := range workloadTable {
		if workloadTable[i].Name == name {
			return &workloadTable[i]
		}
	}
	return nil
}

// WorkloadNames returns the names --workload accepts, in table order.
func WorkloadNames() []string {
	var names []string
	for _, wi := range workloadTable {
		if wi.ByName {
			names = append(names, wi.Name)
		}
	}
	return names
}

// WorkloadUsage returns the help text of a --workload flag, read from the
// table: "timed loop: " and each name with its Help.
func WorkloadUsage() string {
	var parts []string
	for _, wi := range workloadTable {
		if wi.ByName {
			parts = append(parts, wi.Name+" ("+wi.Help+")")
		}
	}
	last := len(parts) - 1
	return "timed loop: " + strings.Join(parts[:last], ", ") + " or " + parts[last]
}

// workload returns the row as a Workload.
func (wi *WorkloadInfo) workload() Workload {
	return Workload{Name: wi.Name, Op: wi.Op, SyscallsPerIter: wi.SyscallsPerIter,
		Syscalls: slices.Clone(wi.Syscalls), PathDirs: wi.PathDirs}
}

// ExecWorkload returns UnixBench's exec mode: per op, one vfork-style
// clone, an execve of a minimal static program that calls exit(0), and
// wait4. The program is written to a temporary directory at run time and
// removed afterwards; it inherits the filter stack.
func ExecWorkload() Workload { return findWorkload("exec").workload() }

// ExecvpeMissWorkload returns the path-search workload: per op, one clone,
// then execve attempts through k directories of which only the last holds
// the program (k-1 ENOENT misses, as execvpe walks PATH), exit, wait4.
func ExecvpeMissWorkload(k int) Workload {
	w := findWorkload("execvpe-miss").workload()
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

// SyscallWorkload returns a loop on one syscall from the safe list,
// spec "NAME" or "NAME:a0[,a1[,a2]]" with integer arguments overriding the
// defaults (openat's path argument cannot be overridden).
func SyscallWorkload(spec string) (Workload, error) {
	name, argStr, hasArgs := strings.Cut(spec, ":")
	sc, ok := safeSyscalls[name]
	if !ok {
		var names []string
		for n := range safeSyscalls {
			names = append(names, n)
		}
		sort.Strings(names)
		return Workload{}, fmt.Errorf("syscall %q is not on the safe list: use one of %s", name, strings.Join(names, ", "))
	}
	args := sc.args
	if hasArgs {
		parts := strings.Split(argStr, ",")
		if len(parts) > 3 {
			return Workload{}, fmt.Errorf("syscall %q: at most 3 arguments, got %d", spec, len(parts))
		}
		for i, p := range parts {
			if sc.path != "" && i == 1 {
				return Workload{}, fmt.Errorf("syscall %q: argument 1 of %s is a fixed path and cannot be set", spec, name)
			}
			v, err := strconv.ParseInt(strings.TrimSpace(p), 0, 64)
			if err != nil {
				return Workload{}, fmt.Errorf("syscall %q: argument %d %q is not an integer", spec, i, p)
			}
			args[i] = v
		}
	}
	w := findWorkload("syscall").workload()
	w.Syscalls = []string{name}
	w.Syscall = [4]int64{sc.nr, args[0], args[1], args[2]}
	w.PathArg = sc.path
	w.Op = fmt.Sprintf("one %s syscall: %s, args %d,%d,%d", name, sc.comment, args[0], args[1], args[2])
	return w, nil
}

// NotifyWorkload returns the notify workload on syscall spec (as for
// SyscallWorkload: "NAME" or "NAME:a0,a1,a2" from the safe list; "" means
// getppid). The op is one round trip through the supervisor.
//
// Requires at least Linux 5.5 (SECCOMP_USER_NOTIF_FLAG_CONTINUE);
// notify.Options.Sync Linux 6.6.
func NotifyWorkload(spec string) (Workload, error) {
	if spec == "" {
		spec = "getppid"
	}
	w, err := SyscallWorkload(spec)
	if err != nil {
		return Workload{}, err
	}
	name := w.Syscalls[0]
	nw := findWorkload("notify").workload()
	nw.Syscalls = []string{name}
	nw.Syscall = w.Syscall
	nw.PathArg = w.PathArg
	nw.Op = fmt.Sprintf("one %s() notified to a supervisor in another process and answered (SECCOMP_RET_USER_NOTIF round trip)", name)
	return nw, nil
}

// IsNotify reports whether w is the notify workload.
func (w Workload) IsNotify() bool { return w.Name == "notify" }

// CommandWorkload returns the command workload for spec: ns/op is the wall
// time of one run of the command, from its execve to its reaping by
// wait4(2). It returns an error for an empty command or a negative count.
func CommandWorkload(spec command.Spec) (Workload, error) {
	if err := spec.Check(); err != nil {
		return Workload{}, err
	}
	w := findWorkload("command").workload()
	spec.Argv = slices.Clone(spec.Argv)
	spec.Env = slices.Clone(spec.Env)
	w.Command = &spec
	w.Op = "one run of `" + strings.Join(spec.Argv, " ") + "`: execve to wait4, under the stack"
	return w, nil
}

// ContainerWorkload returns the command workload's runtime path: every
// child is one container, `RUNTIME run --bundle B ID`, whose process is
// this binary as a timer that runs the command in spec (the bundle's
// process.args when spec has none) R times, so the container's stack, the
// privilege it is loaded with and no_new_privs are the runtime's own. Cells with 0
// filters run the bundle without linux.seccomp, every other cell with it:
// the runtime's profile is one filter, whatever count the cell names.
func ContainerWorkload(spec command.Spec, ct container.Spec) (Workload, error) {
	w, err := CommandWorkload(spec)
	if err != nil {
		return Workload{}, err
	}
	if err := ct.Check(); err != nil {
		return Workload{}, err
	}
	w.Container = &ct
	w.Op = "one run of `" + strings.Join(spec.Argv, " ") + "` inside a " + ct.Runtime + " container, fork to reaping (the container's start outside)"
	return w, nil
}

// Workloads returns the built-in syscall loops (the table's rows that
// --workload selects and that exec nothing) by name.
func Workloads() map[string]Workload {
	m := map[string]Workload{}
	for i := range workloadTable {
		if wi := &workloadTable[i]; wi.ByName && !wi.NeedsExecFixture() {
			m[wi.Name] = wi.workload()
			if wi.loop == kindNotify {
				m[wi.Name], _ = NotifyWorkload("")
			}
		}
	}
	return m
}

// LookupWorkload returns the workload --workload NAME selects, with the
// table's default PATH directories for execvpe-miss (8), or an error
// listing the valid names.
func LookupWorkload(name string) (Workload, error) {
	wi := findWorkload(name)
	if wi == nil || !wi.ByName {
		return Workload{}, fmt.Errorf("unknown workload %q: use one of %s", name, strings.Join(WorkloadNames(), ", "))
	}
	if wi.PathDirsParam {
		return ExecvpeMissWorkload(wi.PathDirs), nil
	}
	if wi.loop == kindNotify {
		return NotifyWorkload("")
	}
	return wi.workload(), nil
}
