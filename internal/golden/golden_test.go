package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// recorder is a testing.TB that records failures instead of ending the test.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }
func (r *recorder) Fatal(...any)          { r.failed = true }

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.MkdirAll(filepath.Join("testdata", "golden"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("testdata", "golden", "x.txt"), []byte("same\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		got      string
		wantFail bool
	}{
		{"x.txt", "same\n", false},
		{"x.txt", "other\n", true},
		{"missing.txt", "same\n", true},
	} {
		r := &recorder{TB: t}
		Check(r, tc.name, []byte(tc.got))
		if r.failed != tc.wantFail {
			t.Errorf("Check(%s, %q): failed=%v, want %v", tc.name, tc.got, r.failed, tc.wantFail)
		}
	}
}
