package runner

// nrSeccomp is seccomp(2) on x86_64 (arch/x86/entry/syscalls/syscall_64.tbl).
const nrSeccomp = 317

// Numbers the tests' hand-written filters match
// (arch/x86/entry/syscalls/syscall_64.tbl).
const (
	nrGetpid    = 39
	nrExecve    = 59
	nrGetppid   = 110
	nrRead      = 0
	nrUmask     = 95
	nrOpenat    = 257
	nrWrite     = 1
	nrFutex     = 202
	nrExit      = 60
	nrExitGroup = 231
	nrMmap      = 9
)
