package loop

// Raw-syscall loops implemented in loop_amd64.s. Each is a NOSPLIT leaf, so
// the measuring thread makes no syscall but the workload's while it runs.

//go:noescape
func Mix(iters uint64, fd uintptr)

//go:noescape
func Getpid(iters uint64)

//go:noescape
func Close(iters uint64, fd uintptr)

//go:noescape
func Syscall(iters uint64, nr, a0, a1, a2 uintptr)

//go:noescape
func Control(iters uint64, buf *uint64)

//go:noescape
func Exec(iters uint64, paths *uintptr, npaths uint64, argv, envp *uintptr, status *int32) (ok uint64)

// Supported reports whether this architecture has timed loops.
const Supported = true

//go:noescape
func SyscallCount(iters uint64, nr, a0, a1, a2 uintptr, res *[2]uint64)

// Probe is the indirect-cost probe's loop: per iteration, steps dependent
// loads through the index cycle chase, a call into the code sled code
// (when not 0; amd64 only), and syscall nr() with arguments 0. The last
// index read is stored in *sink.
//
//go:noescape
func Probe(iters uint64, nr uintptr, chase *uint64, steps uint64, code uintptr, sink *uint64)
