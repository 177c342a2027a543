package runner

// nrSeccomp is seccomp(2) on arm64 (include/uapi/asm-generic/unistd.h).
const nrSeccomp = 277

// Numbers the tests' hand-written filters match
// (include/uapi/asm-generic/unistd.h).
const (
	nrGetpid    = 172
	nrExecve    = 221
	nrGetppid   = 173
	nrRead      = 63
	nrUmask     = 166
	nrOpenat    = 56
	nrWrite     = 64
	nrFutex     = 98
	nrExit      = 93
	nrExitGroup = 94
	nrMmap      = 222
)
