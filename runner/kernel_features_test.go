//go:build linux

package runner

import (
	"fmt"
	"os"
	"testing"

	"github.com/seccompbench/seccompbench/internal/testutils"
	"github.com/seccompbench/seccompbench/runner/internal/sys"
)

// Tests that know their kernel: each probes one seccomp feature on the
// running kernel and checks the answer against the version that brought it
// (testutils.SkipIfNotSupported): skipped with a reason on an older
// kernel, FAIL on a kernel new enough to have it that does not. The VM
// matrix (internal/vmtest, docs/kernels.md) runs them on 5.10, 6.1, 6.12
// and arm64 6.1, where their answers differ.

// skipUnderFilters skips when this process already runs under seccomp
// filters: an inherited filter may deny the probes.
func skipUnderFilters(t *testing.T) {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc")
	}
	if _, mode, _ := statusFilters(b); mode == 2 {
		t.Skip("this process runs under inherited seccomp filters")
	}
}

// TestKernelFilterFlags probes seccomp(SECCOMP_SET_MODE_FILTER, flags, NULL)
// for each filter flag (include/uapi/linux/seccomp.h; versions from
// seccomp(2) and the kernel's git history): EFAULT means the kernel knows
// the flags, EINVAL that it does not.
func TestKernelFilterFlags(t *testing.T) {
	skipUnderFilters(t)
	const (
		flagTSync             = 1 << 0 // SECCOMP_FILTER_FLAG_TSYNC, 3.17
		flagLog               = 1 << 1 // SECCOMP_FILTER_FLAG_LOG, 4.14
		flagSpecAllow         = 1 << 2 // SECCOMP_FILTER_FLAG_SPEC_ALLOW, 4.17
		flagNewListener       = 1 << 3 // SECCOMP_FILTER_FLAG_NEW_LISTENER, 5.0
		flagTSyncESRCH        = 1 << 4 // SECCOMP_FILTER_FLAG_TSYNC_ESRCH, 5.7
		flagWaitKillableRecv  = 1 << 5 // SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, 5.19
		flagUnknownToAllKnown = 1 << 30
	)
	tests := []struct {
		name  string
		flags uint
		min   string
	}{
		{"TSYNC", flagTSync, "3.17"},
		{"LOG", flagLog, "4.14"},
		{"SPEC_ALLOW", flagSpecAllow, "4.17"},
		{"NEW_LISTENER", flagNewListener, "5.0"},
		{"TSYNC_ESRCH", flagTSync | flagTSyncESRCH, "5.7"},
		// WAIT_KILLABLE_RECV is only valid with NEW_LISTENER
		// (kernel/seccomp.c: seccomp_set_mode_filter).
		{"WAIT_KILLABLE_RECV", flagNewListener | flagWaitKillableRecv, "5.19"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := probeResult(seccompProbe(tt.flags), tt.flags)
			testutils.SkipIfNotSupported(t, err, ErrNotSupported, tt.min, "SECCOMP_FILTER_FLAG_"+tt.name)
		})
	}
	t.Run("unknown flag", func(t *testing.T) {
		if err := probeResult(seccompProbe(flagUnknownToAllKnown), flagUnknownToAllKnown); err == nil {
			t.Errorf("flag %#x accepted; no kernel knows it, so the probe cannot tell", uint(flagUnknownToAllKnown))
		}
	})
}

// TestKernelReportsFilterCount checks that /proc/self/status has
// Seccomp_filters (Linux 5.9, commit c818c03b661c), which the runner uses
// to verify each child's stack; runs record -1 without it.
func TestKernelReportsFilterCount(t *testing.T) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc")
	}
	n, mode, err := statusFilters(b)
	if err != nil {
		t.Fatal(err)
	}
	if mode < 0 {
		t.Fatal("/proc/self/status has no Seccomp field (CONFIG_SECCOMP off?)")
	}
	var probe error
	if n < 0 {
		probe = fmt.Errorf("/proc/self/status has no Seccomp_filters field: %w", testutils.ErrNotSupported)
	}
	testutils.SkipIfNotSupported(t, probe, testutils.ErrNotSupported, "5.9", "Seccomp_filters in /proc/PID/status")
}

// TestKernelActionCacheExpectation logs whether this kernel has the action
// cache (Linux 5.11, kernel/seccomp.c: seccomp_cache_prepare). The cache
// has no functional trace (a cached syscall gets the same verdict, only
// faster), so this test cannot probe it; TestCachePredictionAgreesWithKernel
// holds the prediction to its effect, and the VM matrix runs that benchmark on 5.10 and 6.x
// (docs/kernels.md). It skips, with the reason, on a pre-5.11 kernel, so
// the matrix shows which kernels ran without a cache.
func TestKernelActionCacheExpectation(t *testing.T) {
	testutils.SkipOnOldKernel(t, "5.11", "the seccomp action cache")
	_, rel, _ := testutils.KernelVersion()
	t.Logf("kernel %s has the action cache: constant-allowed syscalls skip every filter", rel)
}

// statusFilters returns the Seccomp_filters and Seccomp fields of a
// /proc/PID/status file (parseProcStatus; -1 when missing).
func statusFilters(status []byte) (filters, mode int, err error) {
	st, err := sys.ParseProcStatus(status)
	return st.SeccompFilters, st.SeccompMode, err
}
