package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTemp writes data to name in a fresh temporary directory and
// returns its path.
func writeTemp(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestErrnoAboveMaxErrno: an OCI profile's errnoRet 12345 is returned by
// the kernel as 4095 (kernel/seccomp.c: __seccomp_filter caps ERRNO data
// at MAX_ERRNO). simulate's verdict and JSON errno say 4095 while the
// per-filter listing keeps the filter's ERRNO(12345); lint warns with a
// counted finding.
func TestErrnoAboveMaxErrno(t *testing.T) {
	path := writeTemp(t, "errno.json", []byte(`{"defaultAction": "SCMP_ACT_ALLOW", "architectures": ["SCMP_ARCH_X86_64"],
 "syscalls": [{"names": ["syslog"], "action": "SCMP_ACT_ERRNO", "errnoRet": 12345}]}`))
	var out, errb bytes.Buffer
	if code := run([]string{"simulate", path, "--syscall", "syslog", "--arch", "x86_64"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("simulate: exit %d, stderr %q", code, errb.String())
	}
	text := out.String()
	for _, want := range []string{"verdict   ERRNO(4095) from filter 0", "the filter returns ERRNO(12345), which the kernel caps at errno 4095", "ERRNO(12345)  "} {
		if !strings.Contains(text, want) {
			t.Errorf("simulate text lacks %q:\n%s", want, text)
		}
	}
	out.Reset()
	if code := run([]string{"simulate", path, "--syscall", "syslog", "--arch", "x86_64", "--format", "json"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("simulate --format json: exit %d, stderr %q", code, errb.String())
	}
	var doc struct {
		Syscalls []struct {
			Ret   string `json:"ret"`
			Errno *int   `json:"errno"`
		} `json:"syscalls"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil || len(doc.Syscalls) != 1 || doc.Syscalls[0].Errno == nil {
		t.Fatalf("simulate JSON: %v %s", err, out.String())
	}
	if s := doc.Syscalls[0]; *s.Errno != 4095 || s.Ret != "ERRNO(12345)" {
		t.Errorf("simulate JSON: errno %d ret %q, want errno 4095 (what the kernel returns) and ret ERRNO(12345) (the filter's value)", *s.Errno, s.Ret)
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"lint", path, "--arch", "x86_64"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("lint: exit %d (a warning is no error), stderr %q", code, errb.String())
	}
	all := out.String() + errb.String()
	for _, want := range []string{"[errno-capped]", "returns ERRNO(12345), but the kernel caps the errno at 4095", "1 warning"} {
		if !strings.Contains(all, want) {
			t.Errorf("lint output lacks %q:\n%s", want, all)
		}
	}
}
