package minijail

// constants are the named values a policy may use in an argument
// expression or after "return", with their Linux x86_64 values
// (include/uapi/asm-generic/fcntl.h, mman-common.h, errno-base.h, errno.h,
// linux/socket.h, linux/net.h, linux/futex.h, linux/prctl.h, linux/sched.h,
// asm-generic/ioctls.h, linux/time.h). minijail resolves names with the
// C library headers of the target; this table is the common subset, and
// any other name is an error asking for the number.
var constants = map[string]uint64{
	// open(2) flags.
	"O_RDONLY": 0, "O_WRONLY": 1, "O_RDWR": 2, "O_ACCMODE": 3, "O_CREAT": 0x40, "O_EXCL": 0x80,
	"O_NOCTTY": 0x100, "O_TRUNC": 0x200, "O_APPEND": 0x400, "O_NONBLOCK": 0x800, "O_DSYNC": 0x1000,
	"O_ASYNC": 0x2000, "O_DIRECT": 0x4000, "O_LARGEFILE": 0x8000, "O_DIRECTORY": 0x10000,
	"O_NOFOLLOW": 0x20000, "O_NOATIME": 0x40000, "O_CLOEXEC": 0x80000, "O_PATH": 0x200000,
	"O_TMPFILE": 0x410000,
	// mmap(2), mprotect(2), madvise(2).
	"PROT_NONE": 0, "PROT_READ": 1, "PROT_WRITE": 2, "PROT_EXEC": 4,
	"MAP_SHARED": 1, "MAP_PRIVATE": 2, "MAP_FIXED": 0x10, "MAP_ANONYMOUS": 0x20, "MAP_ANON": 0x20,
	"MAP_GROWSDOWN": 0x100, "MAP_NORESERVE": 0x4000, "MAP_POPULATE": 0x8000, "MAP_STACK": 0x20000,
	"MADV_NORMAL": 0, "MADV_RANDOM": 1, "MADV_SEQUENTIAL": 2, "MADV_WILLNEED": 3, "MADV_DONTNEED": 4,
	"MADV_FREE": 8, "MADV_DONTFORK": 10, "MADV_HUGEPAGE": 14, "MADV_NOHUGEPAGE": 15,
	// socket(2).
	"AF_UNSPEC": 0, "AF_UNIX": 1, "AF_LOCAL": 1, "AF_INET": 2, "AF_INET6": 10, "AF_NETLINK": 16, "AF_PACKET": 17,
	"SOCK_STREAM": 1, "SOCK_DGRAM": 2, "SOCK_RAW": 3, "SOCK_SEQPACKET": 5, "SOCK_NONBLOCK": 0x800, "SOCK_CLOEXEC": 0x80000,
	// fcntl(2).
	"F_DUPFD": 0, "F_GETFD": 1, "F_SETFD": 2, "F_GETFL": 3, "F_SETFL": 4, "F_GETLK": 5, "F_SETLK": 6,
	"F_SETLKW": 7, "F_DUPFD_CLOEXEC": 1030, "FD_CLOEXEC": 1,
	// futex(2).
	"FUTEX_WAIT": 0, "FUTEX_WAKE": 1, "FUTEX_REQUEUE": 3, "FUTEX_CMP_REQUEUE": 4, "FUTEX_WAKE_OP": 5,
	"FUTEX_WAIT_BITSET": 9, "FUTEX_WAKE_BITSET": 10, "FUTEX_PRIVATE_FLAG": 128, "FUTEX_CLOCK_REALTIME": 256,
	"FUTEX_WAIT_PRIVATE": 128, "FUTEX_WAKE_PRIVATE": 129,
	// prctl(2).
	"PR_SET_PDEATHSIG": 1, "PR_GET_DUMPABLE": 3, "PR_SET_DUMPABLE": 4, "PR_SET_NAME": 15, "PR_GET_NAME": 16,
	"PR_SET_SECCOMP": 22, "PR_SET_NO_NEW_PRIVS": 38, "PR_GET_NO_NEW_PRIVS": 39,
	// clone(2).
	"CLONE_VM": 0x100, "CLONE_FS": 0x200, "CLONE_FILES": 0x400, "CLONE_SIGHAND": 0x800, "CLONE_THREAD": 0x10000,
	"CLONE_NEWNS": 0x20000, "CLONE_SYSVSEM": 0x40000, "CLONE_SETTLS": 0x80000, "CLONE_PARENT_SETTID": 0x100000,
	"CLONE_CHILD_CLEARTID": 0x200000, "CLONE_CHILD_SETTID": 0x1000000, "CLONE_NEWUSER": 0x10000000,
	"CLONE_NEWPID": 0x20000000, "CLONE_NEWNET": 0x40000000,
	// ioctl(2) requests on terminals and files.
	"TCGETS": 0x5401, "TCSETS": 0x5402, "TIOCSTI": 0x5412, "TIOCGWINSZ": 0x5413, "FIONREAD": 0x541b,
	"FIONBIO": 0x5421, "FIOCLEX": 0x5451,
	// rt_sigprocmask(2), clock_gettime(2).
	"SIG_BLOCK": 0, "SIG_UNBLOCK": 1, "SIG_SETMASK": 2,
	"CLOCK_REALTIME": 0, "CLOCK_MONOTONIC": 1, "CLOCK_PROCESS_CPUTIME_ID": 2, "CLOCK_THREAD_CPUTIME_ID": 3,
	"CLOCK_MONOTONIC_RAW": 4, "CLOCK_REALTIME_COARSE": 5, "CLOCK_MONOTONIC_COARSE": 6, "CLOCK_BOOTTIME": 7,
	// errno values, for "return".
	"EPERM": 1, "ENOENT": 2, "ESRCH": 3, "EINTR": 4, "EIO": 5, "ENXIO": 6, "E2BIG": 7, "ENOEXEC": 8,
	"EBADF": 9, "ECHILD": 10, "EAGAIN": 11, "ENOMEM": 12, "EACCES": 13, "EFAULT": 14, "EBUSY": 16,
	"EEXIST": 17, "ENODEV": 19, "ENOTDIR": 20, "EISDIR": 21, "EINVAL": 22, "ENFILE": 23, "EMFILE": 24,
	"ENOTTY": 25, "EFBIG": 27, "ENOSPC": 28, "ESPIPE": 29, "EROFS": 30, "EPIPE": 32, "ERANGE": 34,
	"ENOSYS": 38, "EOPNOTSUPP": 95, "ENOTSUP": 95, "EAFNOSUPPORT": 97, "EADDRINUSE": 98, "ECONNREFUSED": 111,
}
