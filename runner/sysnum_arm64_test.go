package runner

// nrSeccomp is seccomp(2) on arm64 (include/uapi/asm-generic/unistd.h).
const nrSeccomp = 277
