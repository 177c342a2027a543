//go:build linux

package inspect

import (
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ptraceGetFilter calls ptrace(PTRACE_SECCOMP_GET_FILTER, pid, index, buf)
// (Linux 4.4, CONFIG_CHECKPOINT_RESTORE): it copies filter index of the
// stopped tracee into buf as struct sock_filter records and returns the
// filter's length in instructions. With buf nil it returns only the length
// (kernel/seccomp.c: seccomp_get_filter). buf must hold at least 8 bytes per
// instruction.
func ptraceGetFilter(pid, index int, buf []byte) (int, unix.Errno) {
	var p unsafe.Pointer
	if len(buf) > 0 {
		p = unsafe.Pointer(&buf[0])
	}
	r, _, e := unix.Syscall6(unix.SYS_PTRACE, unix.PTRACE_SECCOMP_GET_FILTER, uintptr(pid), uintptr(index), uintptr(p), 0, 0)
	runtime.KeepAlive(buf)
	if e != 0 {
		return 0, e
	}
	return int(r), 0
}
