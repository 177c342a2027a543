//go:build race

package testutils

// Race is true when the test binary is built with -race: the detector
// slows code 2-20× (so absolute time bounds do not hold) and, on linux,
// cannot follow syscall.AllThreadsSyscall, which then returns ENOTSUP.
const Race = true
