//go:build linux && !amd64 && !arm64

package runner

// maybeRunProbeChild is a no-op where the emulator-vs-kernel agreement test
// (emulator_kernel_test.go: amd64 and arm64, whose raw probes are in
// probe_amd64.s and probe_arm64.s) does not build.
func maybeRunProbeChild() {}
