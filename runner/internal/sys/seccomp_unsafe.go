package sys

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// SockFprog is struct sock_fprog (include/uapi/linux/filter.h).
type SockFprog struct {
	Len    uint16
	_      [6]byte
	Filter unsafe.Pointer
}

// NewSockFprog returns the struct sock_fprog of f, an array of struct
// sock_filter records in native byte order, and whether f has a length
// sock_fprog can describe: a non-zero multiple of 8 bytes, at most 65535
// instructions (its len is 16 bits; seccomp(2) then rejects more than
// BPF_MAXINSNS, 4096, with EINVAL). f must stay reachable until the kernel
// has copied it (kernel/seccomp.c: seccomp_prepare_user_filter).
func NewSockFprog(f []byte) (SockFprog, bool) {
	if len(f) == 0 || len(f)%8 != 0 || len(f)/8 > 0xffff {
		return SockFprog{}, false
	}
	return SockFprog{Len: uint16(len(f) / 8), Filter: unsafe.Pointer(&f[0])}, true
}

// InstallLoop attaches fps in order and returns how many were attached, and
// for the first failing call its return value and errno. A non-zero return
// value with errno 0 is a TSYNC failure: the ID of the thread that could
// not be synchronized (seccomp(2)). It is NOSPLIT, like everything it
// calls, so no preemption point runs between two filters, and NORACE, so
// no race-detector hook (which may make syscalls) runs either.
//
//go:nosplit
//go:norace
func InstallLoop(fps []SockFprog, flags uintptr) (n int, r1 uintptr, errno unix.Errno) {
	for i := range fps {
		r, _, e := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, flags, uintptr(unsafe.Pointer(&fps[i])))
		if e != 0 || r != 0 {
			return i, r, e
		}
	}
	return len(fps), 0, 0
}
