package workload

// safeSyscalls are the x86_64 syscalls `--syscall` accepts, with default
// arguments that make them fail fast or do nothing
// (arch/x86/entry/syscalls/syscall_64.tbl).
var safeSyscalls = map[string]safeSyscall{
	"getpid":      {nr: 39, comment: "getpid()"},
	"getppid":     {nr: 110, comment: "getppid()"},
	"getuid":      {nr: 102, comment: "getuid()"},
	"gettid":      {nr: 186, comment: "gettid()"},
	"umask":       {nr: 95, args: [3]int64{0o22}, comment: "umask(a0), default 022"},
	"sched_yield": {nr: 24, comment: "sched_yield()"},
	"read":        {nr: 0, args: [3]int64{-1}, comment: "read(a0, NULL, 0), default fd -1: EBADF"},
	"write":       {nr: 1, args: [3]int64{-1}, comment: "write(a0, NULL, 0), default fd -1: EBADF"},
	"close":       {nr: 3, args: [3]int64{-1}, comment: "close(a0), default fd -1: EBADF"},
	"fstat":       {nr: 5, args: [3]int64{-1}, comment: "fstat(a0, NULL), default fd -1: EBADF"},
	"lseek":       {nr: 8, args: [3]int64{-1}, comment: "lseek(a0, 0, 0), default fd -1: EBADF"},
	"dup":         {nr: 32, args: [3]int64{-1}, comment: "dup(a0), default fd -1: EBADF"},
	"openat":      {nr: 257, args: [3]int64{-100, 0, 0}, path: "/nonexistent/seccompbench", comment: "openat(AT_FDCWD, \"/nonexistent/seccompbench\", a2): ENOENT"},
}
