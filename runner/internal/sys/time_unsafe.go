package sys

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// Nanotime is the Go runtime's monotonic clock in ns. It makes no syscall
// on the architectures with a vDSO clock and is NOSPLIT, so code that runs
// under filters may call it.
//
//go:linkname Nanotime runtime.nanotime
func Nanotime() int64

// RawNanosleep sleeps for *ts with a raw nanosleep(2), outside the Go
// scheduler and its timers (see the measuring child's polling loop).
func RawNanosleep(ts *unix.Timespec) {
	unix.RawSyscall(unix.SYS_NANOSLEEP, uintptr(unsafe.Pointer(ts)), 0, 0)
}
