//go:build linux

package sandbox

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/seccompbench/seccompbench/runner/internal/sys"
	"golang.org/x/sys/unix"
)

// installFilter attaches one filter (struct sock_filter records) to the
// calling thread, or with SECCOMP_FILTER_FLAG_TSYNC in flags to every
// thread. With TSYNC, a thread that cannot be synchronized makes seccomp(2)
// return its TID, reported as an error.
func installFilter(f []byte, flags uintptr) error {
	prog, ok := sys.NewSockFprog(f)
	if !ok {
		return fmt.Errorf("bad filter length %d bytes", len(f))
	}
	r, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, flags, uintptr(unsafe.Pointer(&prog)))
	runtime.KeepAlive(f)
	if e != 0 {
		return fmt.Errorf("seccomp(2): %w", e)
	}
	if r != 0 {
		return fmt.Errorf("seccomp(2): thread %d could not be synchronized", r)
	}
	return nil
}
