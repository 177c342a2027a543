package protocol

import (
	"slices"
	"strings"
	"testing"
)

// sampleLog is a console log as QEMU's serial port delivers it: CRLF line
// ends, kernel messages, go test -v output with subtests and a skip.
const sampleLog = "SeaBIOS (version 1.16.2)\r\n" +
	"[    0.000000] Linux version 6.1.0-57-cloud-amd64\r\n" +
	"VMTEST:KERNEL 6.1.0-57-cloud-amd64 amd64\r\n" +
	"VMTEST:BEGIN runner\r\n" +
	"=== RUN   TestA\r\n" +
	"--- PASS: TestA (0.01s)\r\n" +
	"=== RUN   TestB\r\n" +
	"=== RUN   TestB/one\r\n" +
	"=== RUN   TestB/skipped\r\n" +
	"    x_test.go:7: needs Linux 5.19\r\n" +
	"=== RUN   TestB/two\r\n" +
	"    --- PASS: TestB/one (0.00s)\r\n" +
	"    --- SKIP: TestB/skipped (0.00s)\r\n" +
	"    --- FAIL: TestB/two (0.00s)\r\n" +
	"        x_test.go:9: boom\r\n" +
	"--- FAIL: TestB (0.00s)\r\n" +
	"=== RUN   TestC\r\n" +
	"    x_test.go:12: needs Linux 5.11; this kernel is 5.10.0\r\n" +
	"--- SKIP: TestC (0.00s)\r\n" +
	"=== RUN   TestF\r\n" +
	"--- SKIP: TestF (0.00s)\r\n" +
	"    f_test.go:3: old-style reason after the line\r\n" +
	"[   12.3] audit: type=1326 audit(1.2:3): auid=4294967295 --- PASS: TestD (1.00s)\r\n" +
	"FAIL\r\n" +
	"VMTEST:END runner exit=1 seconds=12.5\r\n" +
	"VMTEST:BEGIN testutils\r\n" +
	"--- PASS: TestE (0.00s)\r\n" +
	"VMTEST:END testutils exit=0 seconds=0.2\r\n" +
	"VMTEST:DONE\r\n" +
	"[   13.0] reboot: Power down\r\n"

func TestParse(t *testing.T) {
	r, err := Parse(strings.NewReader(sampleLog))
	if err != nil {
		t.Fatal(err)
	}
	if r.Release != "6.1.0-57-cloud-amd64" || r.Arch != "amd64" || !r.Done {
		t.Errorf("release %q arch %q done %v", r.Release, r.Arch, r.Done)
	}
	if len(r.Steps) != 2 {
		t.Fatalf("%d steps, want 2", len(r.Steps))
	}
	s := r.Steps[0]
	if s.Name != "runner" || s.Exit != 1 || s.Seconds != 12.5 || !s.Finished {
		t.Errorf("step 0 = %+v", s)
	}
	if got, want := s.Passed, []string{"TestA", "TestB/one", "TestD"}; !slices.Equal(got, want) {
		t.Errorf("passed %q, want %q", got, want)
	}
	if got, want := s.Failed, []string{"TestB/two", "TestB"}; !slices.Equal(got, want) {
		t.Errorf("failed %q, want %q", got, want)
	}
	if got := s.SkipReasons["TestC"]; got != "x_test.go:12: needs Linux 5.11; this kernel is 5.10.0" {
		t.Errorf("skip reason %q", got)
	}
	if got := s.SkipReasons["TestB/skipped"]; got != "x_test.go:7: needs Linux 5.19" {
		t.Errorf("subtest skip reason %q", got)
	}
	if got := s.SkipReasons["TestF"]; got != "f_test.go:3: old-style reason after the line" {
		t.Errorf("skip reason %q", got)
	}
	p, f, sk := r.Counts()
	if p != 3 || f != 1 || sk != 2 {
		t.Errorf("Counts() = %d, %d, %d; want 3, 1, 2 (top-level tests only)", p, f, sk)
	}
	if r.OK() {
		t.Error("OK() = true with a failed test")
	}
	if sum := r.Summary(); !strings.Contains(sum, "FAIL runner: TestB/two") || !strings.Contains(sum, "3 passed, 1 failed, 2 skipped") {
		t.Errorf("Summary() = %q", sum)
	}
}

func TestParseIncomplete(t *testing.T) {
	tests := []struct {
		name   string
		log    string
		wantOK bool
		check  func(*Result) bool
	}{
		{"all passed", "VMTEST:KERNEL 5.10.0 amd64\nVMTEST:BEGIN a\n--- PASS: T (0s)\nVMTEST:END a exit=0 seconds=1\nVMTEST:DONE\n", true,
			func(r *Result) bool { return r.Steps[0].Finished }},
		{"kernel never ran init", "Kernel panic - not syncing: No working init found\n", false,
			func(r *Result) bool { return r.Release == "" && len(r.Steps) == 0 }},
		{"died mid-step", "VMTEST:KERNEL 6.1.0 arm64\nVMTEST:BEGIN a\n--- PASS: T (0s)\n", false,
			func(r *Result) bool { return !r.Steps[0].Finished && r.Steps[0].Exit == -1 }},
		{"exit without failed test", "VMTEST:BEGIN a\nVMTEST:END a exit=2 seconds=0\nVMTEST:DONE\n", false,
			func(r *Result) bool { return strings.Contains(r.Summary(), "a: exit 2") }},
		{"init error", "VMTEST:ERROR mount proc on /proc: EPERM\nVMTEST:DONE\n", false,
			func(r *Result) bool { return len(r.Errors) == 1 && r.Errors[0] == "mount proc on /proc: EPERM" }},
		{"no steps", "VMTEST:KERNEL 6.1.0 amd64\nVMTEST:DONE\n", false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Parse(strings.NewReader(tt.log))
			if err != nil {
				t.Fatal(err)
			}
			if r.OK() != tt.wantOK {
				t.Errorf("OK() = %v, want %v (%s)", r.OK(), tt.wantOK, r.Summary())
			}
			if tt.check != nil && !tt.check(r) {
				t.Errorf("unexpected result %+v", r)
			}
		})
	}
}
