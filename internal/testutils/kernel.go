// Package testutils holds helpers for tests that meet a real kernel: they
// know which kernel version brought a feature, skip with a reason on a
// kernel that predates it, and fail on a kernel new enough to have it that
// does not (compare cilium/ebpf internal/testutils: SkipOnOldKernel,
// SkipIfNotSupported). It is for tests only and reads the kernel version
// from /proc, so it needs no system calls of its own.
package testutils

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Version is a kernel version: major, minor, patch.
type Version [3]int

// ErrBadVersion is returned by ParseVersion for a string that does not
// start with "major.minor".
var ErrBadVersion = errors.New("bad kernel version")

// ParseVersion parses the leading "major.minor[.patch]" of a kernel release
// or version string ("6.1.0-57-cloud-amd64", "5.11", "6.18.0+"); anything
// after the numbers is ignored. It returns an error wrapping ErrBadVersion
// if there is no "major.minor".
func ParseVersion(s string) (Version, error) {
	var v Version
	rest := s
	for i := range v {
		end := 0
		for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
			end++
		}
		if end == 0 {
			if i < 2 {
				return Version{}, fmt.Errorf("parse kernel version %q: %w", s, ErrBadVersion)
			}
			break
		}
		v[i], _ = strconv.Atoi(rest[:end])
		rest = rest[end:]
		if i < 2 {
			if !strings.HasPrefix(rest, ".") {
				if i == 0 {
					return Version{}, fmt.Errorf("parse kernel version %q: %w", s, ErrBadVersion)
				}
				break
			}
			rest = rest[1:]
		}
	}
	return v, nil
}

// Less reports whether v is older than w.
func (v Version) Less(w Version) bool {
	for i := range v {
		if v[i] != w[i] {
			return v[i] < w[i]
		}
	}
	return false
}

// String returns "major.minor.patch".
func (v Version) String() string { return fmt.Sprintf("%d.%d.%d", v[0], v[1], v[2]) }

// kernelRelease returns the running kernel's release (uname -r). Tests of
// this package replace it.
var kernelRelease = sync.OnceValues(func() (string, error) {
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return "", fmt.Errorf("read kernel release: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
})

// KernelVersion returns the running kernel's version and release string,
// read once from /proc/sys/kernel/osrelease.
func KernelVersion() (Version, string, error) {
	rel, err := kernelRelease()
	if err != nil {
		return Version{}, "", err
	}
	v, err := ParseVersion(rel)
	return v, rel, err
}

// mustVersion parses minVersion or fails tb: a bad literal is a bug in
// the test.
func mustVersion(tb testing.TB, minVersion string) (Version, bool) {
	tb.Helper()
	min, err := ParseVersion(minVersion)
	if err != nil {
		tb.Fatalf("testutils: %v", err)
		return Version{}, false
	}
	return min, true
}

// SkipOnOldKernel skips the test when the running kernel is older than
// minVersion ("5.11"), naming feature and both versions. It fails the test
// if the kernel version cannot be read.
func SkipOnOldKernel(tb testing.TB, minVersion, feature string) {
	tb.Helper()
	min, ok := mustVersion(tb, minVersion)
	if !ok {
		return
	}
	v, rel, err := KernelVersion()
	if err != nil {
		tb.Fatalf("testutils: %v", err)
		return
	}
	if v.Less(min) {
		tb.Skipf("%s needs Linux %s; this kernel is %s", feature, minVersion, rel)
	}
}

// SkipIfNotSupported decides what a probe's result means for the test:
//
//   - err is nil: the feature is there; the test goes on;
//   - err wraps notSupported and the kernel is older than minVersion: the
//     test is skipped, with feature, both versions and err as the reason;
//   - err wraps notSupported on a kernel of minVersion or newer: the test
//     FAILS, since such a kernel should have the feature (a config option
//     turned off, or a broken probe, deserves a look, not a silent skip);
//   - any other error fails the test.
func SkipIfNotSupported(tb testing.TB, err, notSupported error, minVersion, feature string) {
	tb.Helper()
	if err == nil {
		return
	}
	if !errors.Is(err, notSupported) {
		tb.Fatalf("probe %s: %v", feature, err)
		return
	}
	min, ok := mustVersion(tb, minVersion)
	if !ok {
		return
	}
	v, rel, verr := KernelVersion()
	if verr != nil {
		tb.Fatalf("testutils: %v (probe of %s: %v)", verr, feature, err)
		return
	}
	if v.Less(min) {
		tb.Skipf("%s needs Linux %s; this kernel is %s: %v", feature, minVersion, rel, err)
		return
	}
	tb.Fatalf("kernel %s is at least %s and should have %s, but: %v", rel, minVersion, feature, err)
}

// ErrNotSupported is a sentinel for SkipIfNotSupported's callers that
// have no package sentinel of their own, e.g. a field missing from /proc.
var ErrNotSupported = errors.New("not supported by this kernel")
