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

// TestErrorsInUserWords: a bad number says which flag or file:line:column
// and what it must be, never Go's parser names; an unreadable policy says
// "open" once; a lint finding does not repeat its filter; standard input
// over the limit says "more than" the limit, not a size nobody read.
func TestErrorsInUserWords(t *testing.T) {
	csv := writeTemp(t, "p.csv", []byte("syscall,count\nread, abc\n"))
	badnames := writeTemp(t, "badnames.json", []byte(`{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names": ["read", "notasyscall"], "action": "SCMP_ACT_ALLOW"}]}`))
	missing := filepath.Join(t.TempDir(), "missing.yaml")
	huge := strings.Repeat("a", 16<<20+1)
	for _, tt := range []struct {
		name  string
		args  []string
		stdin string
		code  int
		want  []string
		not   []string
	}{
		{"trials", []string{"run", "default", "--trials", "abc"}, "", 2,
			[]string{`--trials: "abc" is not a whole number`}, []string{"strconv", "invalid syntax"}},
		{"seed", []string{"run", "default", "--seed", "-1"}, "", 2,
			[]string{`--seed: "-1" is not a whole number of 0 or more`}, []string{"strconv"}},
		{"csv count", []string{"estimate", "default", "--profile", csv}, "", 1,
			[]string{csv + `:2:7: invalid syscall profile: count "abc" is not a whole number`}, []string{"strconv"}},
		{"missing policy", []string{"lint", missing}, "", 1,
			[]string{"open " + missing + ": no such file or directory"}, []string{"open policy: open", "open filter: open"}},
		{"finding names its filter once", []string{"lint", badnames, "--arch", "x86_64"}, "", 0,
			[]string{`filter 0 (badnames) [source-warning]: ` + badnames + `:1:`}, []string{"filter 0 (badnames): filter 0 (badnames)", "[source-warning]: filter 0"}},
		{"stdin over the limit", []string{"lint", "-"}, huge, 1,
			[]string{"read standard input: input too large: more than 16777216 bytes"}, []string{"16777217", "open filter"}},
		{"report stdin over the limit", []string{"report", "-"}, huge, 1,
			[]string{"read standard input: input too large: more than 16777216 bytes"}, []string{"16777217", "read result: read"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(tt.args, strings.NewReader(tt.stdin), &out, &errb)
			all := out.String() + errb.String()
			if code != tt.code {
				t.Errorf("exit %d, want %d; output:\n%s", code, tt.code, all)
			}
			for _, w := range tt.want {
				if !strings.Contains(all, w) {
					t.Errorf("output lacks %q:\n%s", w, all)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(all, n) {
					t.Errorf("output holds %q:\n%s", n, all)
				}
			}
		})
	}
}
