package testutils

import (
	"errors"
	"fmt"
	"testing"
)

func TestParseVersion(t *testing.T) {
	tests := []struct {
		in      string
		want    Version
		wantErr bool
	}{
		{"6.1.0-57-cloud-amd64", Version{6, 1, 0}, false},
		{"6.12.117+deb12-cloud-amd64", Version{6, 12, 117}, false},
		{"5.10.0-46-cloud-amd64", Version{5, 10, 0}, false},
		{"5.11", Version{5, 11, 0}, false},
		{"6.18.0", Version{6, 18, 0}, false},
		{"4.14-rc1", Version{4, 14, 0}, false},
		{"6", Version{}, true},
		{"", Version{}, true},
		{"x.y", Version{}, true},
	}
	for _, tt := range tests {
		got, err := ParseVersion(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseVersion(%q) = %v, %v; want %v, err %v", tt.in, got, err, tt.want, tt.wantErr)
		}
		if err != nil && !errors.Is(err, ErrBadVersion) {
			t.Errorf("ParseVersion(%q) error %v does not wrap ErrBadVersion", tt.in, err)
		}
	}
	if !(Version{5, 10, 262}).Less(Version{5, 11, 0}) || (Version{6, 1, 0}).Less(Version{5, 11, 0}) || (Version{5, 11, 0}).Less(Version{5, 11, 0}) {
		t.Error("Less is wrong")
	}
}

// fakeTB records what the helpers ask of a test. Methods it does not
// override panic (the embedded interface is nil).
type fakeTB struct {
	testing.TB
	skipped, failed string
}

func (f *fakeTB) Helper()                           {}
func (f *fakeTB) Skipf(format string, args ...any)  { f.skipped = fmt.Sprintf(format, args...) }
func (f *fakeTB) Fatalf(format string, args ...any) { f.failed = fmt.Sprintf(format, args...) }

// withRelease runs f with the kernel release faked as rel.
func withRelease(t *testing.T, rel string, f func()) {
	t.Helper()
	old := kernelRelease
	kernelRelease = func() (string, error) { return rel, nil }
	defer func() { kernelRelease = old }()
	f()
}

func TestSkipIfNotSupported(t *testing.T) {
	errNo := fmt.Errorf("probe: %w", ErrNotSupported)
	tests := []struct {
		name, release string
		err           error
		wantSkip      bool
		wantFail      bool
	}{
		{"supported", "5.10.0-46-cloud-amd64", nil, false, false},
		{"old kernel lacks it", "5.10.0-46-cloud-amd64", errNo, true, false},
		{"new kernel lacks it", "6.1.0-57-cloud-amd64", errNo, false, true},
		{"exactly the minimum lacks it", "5.11.0", errNo, false, true},
		{"other error", "5.10.0", errors.New("EPERM"), false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			withRelease(t, tt.release, func() {
				f := &fakeTB{}
				SkipIfNotSupported(f, tt.err, ErrNotSupported, "5.11", "the action cache")
				if (f.skipped != "") != tt.wantSkip || (f.failed != "") != tt.wantFail {
					t.Errorf("skipped %q, failed %q; want skip %v, fail %v", f.skipped, f.failed, tt.wantSkip, tt.wantFail)
				}
			})
		})
	}
}

func TestSkipOnOldKernel(t *testing.T) {
	tests := []struct {
		release  string
		wantSkip bool
	}{
		{"5.8.0", true},
		{"5.9.0-1-amd64", false},
		{"6.18.0", false},
	}
	for _, tt := range tests {
		withRelease(t, tt.release, func() {
			f := &fakeTB{}
			SkipOnOldKernel(f, "5.9", "Seccomp_filters in /proc/PID/status")
			if (f.skipped != "") != tt.wantSkip || f.failed != "" {
				t.Errorf("%s: skipped %q, failed %q; want skip %v", tt.release, f.skipped, f.failed, tt.wantSkip)
			}
		})
	}
}

// TestRunningKernel reads this machine's kernel version; in the VM matrix
// (internal/vmtest) its log line records which kernel the tests met.
func TestRunningKernel(t *testing.T) {
	v, rel, err := KernelVersion()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("kernel %s (version %s)", rel, v)
}
