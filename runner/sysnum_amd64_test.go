package runner

// nrSeccomp is seccomp(2) on x86_64 (arch/x86/entry/syscalls/syscall_64.tbl).
const nrSeccomp = 317
