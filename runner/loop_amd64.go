package runner

// Raw-syscall loops implemented in loop_amd64.s. Each is a NOSPLIT leaf, so
// the measuring thread makes no syscall but the workload's while it runs.

//go:noescape
func loopMix(iters uint64, fd uintptr)

//go:noescape
func loopGetpid(iters uint64)

//go:noescape
func loopClose(iters uint64, fd uintptr)

//go:noescape
func loopSyscall(iters uint64, nr, a0, a1, a2 uintptr)

//go:noescape
func loopControl(iters uint64, buf *uint64)

//go:noescape
func loopExec(iters uint64, paths *uintptr, npaths uint64, argv, envp *uintptr, status *int32) (ok uint64)

// loopsSupported reports whether this architecture has timed loops.
const loopsSupported = true

//go:noescape
func loopSyscallCount(iters uint64, nr, a0, a1, a2 uintptr, res *[2]uint64)
