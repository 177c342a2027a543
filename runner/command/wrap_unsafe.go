package command

import (
	"fmt"
	"unsafe"

	"github.com/seccompbench/seccompbench/runner/internal/sys"
	"golang.org/x/sys/unix"
)

// wrapState is everything the wrapper's install-and-exec path touches. It
// is built before the first filter goes in, so that path allocates nothing
// and makes no syscall but seccomp(2), execve(2) and exit_group(2).
type wrapState struct {
	res     []int64 // the shared result area (fd 4)
	progs   []sys.SockFprog
	filters [][]byte // keeps the programs reachable
	flags   uintptr
	path    uintptr
	argv    []uintptr // NULL-terminated
	envp    []uintptr // NULL-terminated
	cstrs   [][]byte  // keeps the C strings reachable
	// cpuAfter: read the CPU time after installing into ru.
	cpuAfter bool
	ru       unix.Rusage
}

// setResult points st.res at the mapped result area mem.
func (st *wrapState) setResult(mem []byte) {
	st.res = unsafe.Slice((*int64)(unsafe.Pointer(&mem[0])), len(mem)/8)
}

// setExec prepares execve's path, argv and envp as C arrays.
func (st *wrapState) setExec(path string, argv, env []string) error {
	cstr := func(s string) (uintptr, error) {
		b, err := unix.ByteSliceFromString(s)
		if err != nil {
			return 0, fmt.Errorf("command argument or environment %q: %w", s, err)
		}
		st.cstrs = append(st.cstrs, b)
		return uintptr(unsafe.Pointer(&b[0])), nil
	}
	var err error
	if st.path, err = cstr(path); err != nil {
		return err
	}
	for _, a := range argv {
		p, err := cstr(a)
		if err != nil {
			return err
		}
		st.argv = append(st.argv, p)
	}
	for _, e := range env {
		p, err := cstr(e)
		if err != nil {
			return err
		}
		st.envp = append(st.envp, p)
	}
	st.argv = append(st.argv, 0)
	st.envp = append(st.envp, 0)
	return nil
}

// wrapInstallExec installs the stack with SECCOMP_FILTER_FLAG_TSYNC, timing
// each seccomp(2) call, and execve's the command; it never returns. It is
// NOSPLIT (no stack check, the runtime's synchronous preemption point) and
// NORACE, and everything it calls is too, so the Go runtime makes no
// syscall on this thread once filters that may deny it are in. Other
// runtime threads carry the stack as well (TSYNC); the window before
// execve ends them is a few microseconds.
//
//go:nosplit
//go:norace
func wrapInstallExec(st *wrapState) {
	res := st.res
	res[slotState] = wrapStateStarted
	res[slotInstallStart] = sys.Nanotime()
	for i := range st.progs {
		t0 := sys.Nanotime()
		r, _, e := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, st.flags, uintptr(unsafe.Pointer(&st.progs[i])))
		res[wrapSlots+i] = sys.Nanotime() - t0
		if e != 0 || r != 0 {
			res[slotErrno] = int64(e)
			res[slotR1] = int64(r)
			res[slotState] = wrapStateInstallFailed
			wrapExit(wrapExitInstall)
		}
		res[slotInstalled] = int64(i + 1)
	}
	res[slotInstallEnd] = sys.Nanotime()
	if st.cpuAfter {
		_, _, e := unix.RawSyscall(unix.SYS_GETRUSAGE, unix.RUSAGE_SELF, uintptr(unsafe.Pointer(&st.ru)), 0)
		if e == 0 {
			u, s := &st.ru.Utime, &st.ru.Stime
			res[slotCPUAfter] = (u.Sec+s.Sec)*1e9 + (u.Usec+s.Usec)*1e3
		}
	}
	res[slotState] = wrapStateExec
	_, _, e := unix.RawSyscall(unix.SYS_EXECVE, st.path, uintptr(unsafe.Pointer(&st.argv[0])), uintptr(unsafe.Pointer(&st.envp[0])))
	res[slotErrno] = int64(e)
	res[slotState] = wrapStateExecFailed
	wrapExit(wrapExitExec)
}

// wrapExit ends the process with exit_group(2), or spins when the stack
// denies even that (the timing process's deadline then kills it).
//
//go:nosplit
//go:norace
func wrapExit(code uintptr) {
	unix.RawSyscall(unix.SYS_EXIT_GROUP, code, 0, 0)
	//lint:ignore SA5002 the endless loop is the point: it never returns and makes no call
	for {
	}
}
