package testutils

import (
	"os"
	"strings"
	"testing"
)

// accelParam is the kernel command-line parameter internal/vmtest appends
// to every guest it boots: seccompbench.accel=kvm or seccompbench.accel=tcg.
const accelParam = "seccompbench.accel="

// procCmdline is the file Emulated reads; tests of this package replace it.
var procCmdline = "/proc/cmdline"

// Emulated reports whether these tests run in a guest of internal/vmtest
// that QEMU emulates with TCG (its kernel command line carries
// seccompbench.accel=tcg). On the host, under KVM, or if /proc/cmdline
// cannot be read it reports false.
func Emulated() bool {
	b, err := os.ReadFile(procCmdline)
	if err != nil {
		return false
	}
	for _, f := range strings.Fields(string(b)) {
		if v, ok := strings.CutPrefix(f, accelParam); ok {
			return v == "tcg"
		}
	}
	return false
}

// SkipIfEmulated skips a test that times the kernel when it runs under
// TCG emulation, where a guest's clock measures QEMU's translated code and
// the host's scheduling of its threads, not the kernel's own cost: on the
// 6.1 arm64 guest a getpid the kernel answers from the action cache,
// running no filter at all, measured 382 ns more per stacked filter.
// what names the measurement, for the skip message.
func SkipIfEmulated(tb testing.TB, what string) {
	tb.Helper()
	if Emulated() {
		tb.Skipf("%s: this guest runs under TCG emulation (%s), whose timings are QEMU's, not the kernel's", what, accelParam+"tcg")
	}
}
