package runner

// safeSyscallsARM64 are the arm64 numbers of safeSyscalls' entries
// (include/uapi/asm-generic/unistd.h); init replaces the x86_64 numbers
// runner.go lists, so that `--syscall NAME` makes NAME on this
// architecture. Arguments and comments stay as they are: every entry
// means the same call on both.
var safeSyscallsARM64 = map[string]int64{
	"getpid": 172, "getppid": 173, "getuid": 174, "gettid": 178, "umask": 166,
	"sched_yield": 124, "read": 63, "write": 64, "close": 57, "fstat": 80,
	"lseek": 62, "dup": 23, "openat": 56,
}

func init() {
	for name, s := range safeSyscalls {
		nr, ok := safeSyscallsARM64[name]
		if !ok {
			panic("runner: no arm64 number for safe syscall " + name)
		}
		s.nr = nr
		safeSyscalls[name] = s
	}
}
