// Package sys holds the runner's raw kernel calls and their constants:
// struct sock_fprog and the seccomp(2) install loop, the thread's
// capabilities, /proc/PID/status, the runtime clock. One typed wrapper per
// call, no policy (compare cilium/ebpf internal/sys). Only packages under
// runner/ may import it.
package sys

import "errors"

// ErrNotSupported is returned when the kernel or architecture lacks a
// feature the runner needs; the wrapping error names it and the minimum
// kernel version.
var ErrNotSupported = errors.New("not supported")

// Filter flags of seccomp(SECCOMP_SET_MODE_FILTER)
// (include/uapi/linux/seccomp.h).
const (
	// FlagTSync is SECCOMP_FILTER_FLAG_TSYNC (Linux 3.17): install on
	// every thread of the process.
	FlagTSync = 1
	// FlagSpecAllow is SECCOMP_FILTER_FLAG_SPEC_ALLOW (Linux 4.17): do not
	// enable the speculative store bypass mitigation.
	FlagSpecAllow = 1 << 2
	// FlagNewListener is SECCOMP_FILTER_FLAG_NEW_LISTENER (Linux 5.0):
	// seccomp(2) returns a user-notification listener fd.
	FlagNewListener = 1 << 3
)
