package command

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/seccompbench/seccompbench/runner/internal/sys"
	"golang.org/x/sys/unix"
)

// The command workload's wrapper: a mode of this binary that installs the
// cell's stack on all its threads with SECCOMP_FILTER_FLAG_TSYNC, as a
// container runtime or systemd does for the process it starts, and then
// execve's the command, which inherits the stack (seccomp(2): filters are
// kept across execve). The timing process that forks it stays unfiltered.
//
// It talks to the timing process through two file descriptors, set up by
// the timing process (runCommandChild):
//
//	fd 3: wrapSpec as JSON (read-only);
//	fd 4: the result area, wrapSlots int64 slots plus one per filter,
//	      written through a shared mapping, because after the first filter
//	      is installed the wrapper may make no syscall but seccomp(2) and
//	      execve(2), and after execve the mapping is gone but the file
//	      keeps what was written.
const (
	wrapSpecFd   = 3
	wrapResultFd = 4
)

// Slots of the result area, each an int64 in native byte order.
const (
	slotState        = iota // wrapState*
	slotErrno               // errno of the failing seccomp(2) or execve
	slotInstalled           // filters installed
	slotR1                  // seccomp(2)'s return value on a TSYNC failure
	slotEntry               // nanotime at the wrapper's entry
	slotInstallStart        // nanotime before the first seccomp(2)
	slotInstallEnd          // nanotime after the last, just before execve
	slotCPUBefore           // the wrapper's user+sys CPU before installing, ns
	slotCPUAfter            // and after (0 when not read: wrapSpec.CPUAfter false)
	wrapSlots               // first per-filter slot: seccomp(2) duration, ns
)

// Values of slotState.
const (
	wrapStateNone          = iota // the wrapper did not get as far as installing
	wrapStateStarted              // installing
	wrapStateInstallFailed        // a seccomp(2) call failed
	wrapStateExec                 // about to execve (or the command runs)
	wrapStateExecFailed           // execve returned
)

// Exit codes of the wrapper when it cannot exec the command.
const (
	wrapExitSetup   = 125 // before installing: bad spec, no_new_privs
	wrapExitInstall = 126 // seccomp(2) failed
	wrapExitExec    = 127 // execve failed
)

// wrapSpec is what the wrapper reads from fd 3.
type wrapSpec struct {
	Path    string   `json:"path"`    // the command, resolved
	Argv    []string `json:"argv"`    // its arguments, Argv[0] included
	Env     []string `json:"env"`     // its environment
	Filters [][]byte `json:"filters"` // sock_filter arrays, oldest first
	Flags   uint     `json:"flags"`   // SECCOMP_FILTER_FLAG_* (TSYNC is added)
	// CPUAfter asks for getrusage(2) after installing: set only when the
	// stack allows it (getrusageAllowed), so the install's CPU time can be
	// told from the command's.
	CPUAfter bool `json:"cpu_after,omitempty"`
}

// wrapMain is the wrapper's entry point (WrapperChild). It
// never returns: it execs the command or exits with wrapExit*.
func wrapMain() {
	entry := sys.Nanotime()
	// The thread that installs and execs stays the same one (TSYNC puts
	// the filters on every thread anyway, but the timings are per thread).
	runtime.LockOSThread()
	st, err := newWrapState(entry)
	if err != nil {
		fmt.Fprintf(os.Stderr, "seccompbench command wrapper: %v\n", err)
		os.Exit(wrapExitSetup)
	}
	wrapInstallExec(st) // does not return
}

// newWrapState reads the spec, maps the result area and prepares every
// pointer the NOSPLIT install-and-exec path needs.
func newWrapState(entry int64) (*wrapState, error) {
	var spec wrapSpec
	f := os.NewFile(wrapSpecFd, "wrap-spec")
	data, err := readAllAt(f)
	if err != nil {
		return nil, fmt.Errorf("read spec from fd %d: %w", wrapSpecFd, err)
	}
	if err := json.Unmarshal(data, &spec); err != nil {
		return nil, fmt.Errorf("decode spec: %w", err)
	}
	// The command must not inherit the protocol descriptors.
	for _, fd := range []int{wrapSpecFd, wrapResultFd} {
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC); err != nil {
			return nil, fmt.Errorf("set close-on-exec on fd %d: %w", fd, err)
		}
	}
	size := 8 * (wrapSlots + len(spec.Filters))
	mem, err := unix.Mmap(wrapResultFd, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("map result area (fd %d, %d bytes): %w", wrapResultFd, size, err)
	}
	st := &wrapState{flags: uintptr(spec.Flags) | sys.FlagTSync, cpuAfter: spec.CPUAfter}
	st.setResult(mem)
	st.res[slotEntry] = entry
	for i, f := range spec.Filters {
		fp, ok := sys.NewSockFprog(f)
		if !ok {
			return nil, fmt.Errorf("filter %d: bad length %d bytes", i, len(f))
		}
		st.progs = append(st.progs, fp)
	}
	st.filters = spec.Filters
	if err := st.setExec(spec.Path, spec.Argv, spec.Env); err != nil {
		return nil, err
	}
	// Installing needs no_new_privs without CAP_SYS_ADMIN (seccomp(2):
	// EACCES); runtimes set it for the processes they start.
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return nil, fmt.Errorf("set no_new_privs: %w", err)
	}
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) == nil {
		st.res[slotCPUBefore] = ru.Utime.Nano() + ru.Stime.Nano()
	}
	return st, nil
}

// readAllAt reads f from offset 0 to its end with pread(2), leaving the
// shared file offset alone.
func readAllAt(f *os.File) ([]byte, error) {
	return io.ReadAll(io.NewSectionReader(f, 0, 1<<40))
}
