//go:build linux && !amd64 && !arm64

package runner

import "github.com/seccompbench/seccompbench/filters"

// maybeRunProbeChild is a no-op where the emulator-vs-kernel agreement test
// (emulator_kernel_test.go: amd64 and arm64, whose raw probes are in
// probe_amd64.s and probe_arm64.s) does not build.
func maybeRunProbeChild() {}

// nativeArch is x86_64's table where this package has none of its own: the
// cache benchmark's prediction is then only indicative.
var nativeArch = filters.ArchX86_64
