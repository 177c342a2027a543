// Package kerneltest holds what the runner's kernel tests need and the
// binary must not carry: raw single-syscall probes in assembly and
// InstallFilters, which filters the calling thread. Only _test.go files
// import it.
package kerneltest
