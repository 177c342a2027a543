//go:build linux && !amd64

package runner

// maybeRunProbeChild is a no-op where the emulator-vs-kernel agreement test
// (emulator_kernel_test.go, amd64 only: its probes use the x86_64, x32 and
// i386 entries) does not build.
func maybeRunProbeChild() {}
