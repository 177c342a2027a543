package notify

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// seccompNotif is struct seccomp_notif (include/uapi/linux/seccomp.h).
type seccompNotif struct {
	ID    uint64
	PID   uint32
	Flags uint32
	Data  struct {
		Nr                 int32
		Arch               uint32
		InstructionPointer uint64
		Args               [6]uint64
	}
}

// seccompNotifResp is struct seccomp_notif_resp.
type seccompNotifResp struct {
	ID    uint64
	Val   int64
	Error int32
	Flags uint32
}

// notifRecv is ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, req); req must be zeroed
// (the kernel returns EINVAL otherwise).
func notifRecv(fd int, req *seccompNotif) unix.Errno {
	_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.SECCOMP_IOCTL_NOTIF_RECV, uintptr(unsafe.Pointer(req)))
	return e
}

// notifSend is ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, resp).
func notifSend(fd int, resp *seccompNotifResp) unix.Errno {
	_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.SECCOMP_IOCTL_NOTIF_SEND, uintptr(unsafe.Pointer(resp)))
	return e
}

// notifSetFlags is ioctl(fd, SECCOMP_IOCTL_NOTIF_SET_FLAGS, flags), Linux
// 6.6; older kernels fail it with EINVAL (unknown ioctl).
func notifSetFlags(fd int, flags uint64) unix.Errno {
	_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.SECCOMP_IOCTL_NOTIF_SET_FLAGS, uintptr(flags))
	return e
}
