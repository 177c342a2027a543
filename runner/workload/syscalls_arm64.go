package workload

// safeSyscalls are the arm64 syscalls `--syscall` accepts, with default
// arguments that make them fail fast or do nothing: the entries of
// syscalls_amd64.go, the same calls and arguments, numbered from
// include/uapi/asm-generic/unistd.h.
var safeSyscalls = map[string]safeSyscall{
	"getpid":      {nr: 172, comment: "getpid()"},
	"getppid":     {nr: 173, comment: "getppid()"},
	"getuid":      {nr: 174, comment: "getuid()"},
	"gettid":      {nr: 178, comment: "gettid()"},
	"umask":       {nr: 166, args: [3]int64{0o22}, comment: "umask(a0), default 022"},
	"sched_yield": {nr: 124, comment: "sched_yield()"},
	"read":        {nr: 63, args: [3]int64{-1}, comment: "read(a0, NULL, 0), default fd -1: EBADF"},
	"write":       {nr: 64, args: [3]int64{-1}, comment: "write(a0, NULL, 0), default fd -1: EBADF"},
	"close":       {nr: 57, args: [3]int64{-1}, comment: "close(a0), default fd -1: EBADF"},
	"fstat":       {nr: 80, args: [3]int64{-1}, comment: "fstat(a0, NULL), default fd -1: EBADF"},
	"lseek":       {nr: 62, args: [3]int64{-1}, comment: "lseek(a0, 0, 0), default fd -1: EBADF"},
	"dup":         {nr: 23, args: [3]int64{-1}, comment: "dup(a0), default fd -1: EBADF"},
	"openat":      {nr: 56, args: [3]int64{-100, 0, 0}, path: "/nonexistent/seccompbench", comment: "openat(AT_FDCWD, \"/nonexistent/seccompbench\", a2): ENOENT"},
}
