package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/report/document"
)

// subsetData names a file of testdata/subset.
func subsetData(name string) string { return filepath.Join("..", "..", "testdata", "subset", name) }

// TestSubsetIntersectRefuseAlternatives: a Firecracker file's thread
// filters apply to different threads, never together; subset and
// intersect refuse it without --thread (exit 2) and take one thread.
func TestSubsetIntersectRefuseAlternatives(t *testing.T) {
	fc := filepath.Join("..", "..", "testdata", "policies", "firecracker-vmm.json")
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"subset", fc, "--baseline", "docker-default"}, 2, "choose one with --thread vmm|api|vcpu"},
		{[]string{"subset", "docker-default", "--baseline", fc}, 2, "choose one with --thread"},
		{[]string{"intersect", "docker-default", fc}, 2, "choose one with --thread"},
		// vcpu differs from docker-default in errno only: a subset by
		// action class, not with --strict-errno.
		{[]string{"subset", fc, "--thread", "vcpu", "--baseline", "docker-default"}, 0, ""},
		{[]string{"subset", fc, "--thread", "vcpu", "--baseline", "docker-default", "--strict-errno"}, 3, ""},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		code := run(tt.args, strings.NewReader(""), &out, &errb)
		if code != tt.code || !strings.Contains(errb.String(), tt.want) {
			t.Errorf("%q: exit %d, want %d with %q:\n%s", tt.args, code, tt.code, tt.want, errb.String())
		}
	}
}

// TestSubsetUnnamedCounted: an aarch64 policy against docker-default on
// x86 is looser on inputs outside the x86 tables; they are counted, the
// arch named, and the exit status is 3.
func TestSubsetUnnamedCounted(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"subset", subsetData("crash_dump.arm64.policy"), "--baseline", "docker-default", "--format", "json"},
		strings.NewReader(""), &out, &errb)
	if code != 3 {
		t.Fatalf("exit %d, want 3:\n%s", code, errb.String())
	}
	var doc document.SubsetDoc
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Looser+doc.DataDiffers != len(doc.Findings)+len(doc.Unnamed) || len(doc.Unnamed) == 0 {
		t.Errorf("looser %d + data differs %d, want %d findings + %d unnamed (> 0)", doc.Looser, doc.DataDiffers, len(doc.Findings), len(doc.Unnamed))
	}
	for _, f := range doc.Unnamed {
		if f.AuditArch == 0xc00000b7 && (f.Arch != "aarch64" || f.Name == "") {
			t.Errorf("unnamed %+v: want arch aarch64 and the aarch64 name of nr %d", f, f.Nr)
		}
	}
}

// TestIntersectOCIDataOnly: two profiles that differ in errno data only
// where one OCI default cannot state the stack's errno: the filter is
// written, the OCI file is not, and the error names the inputs in order
// and the kernel's tie rule.
func TestIntersectOCIDataOnly(t *testing.T) {
	dir := t.TempDir()
	bpf, ociPath := filepath.Join(dir, "i.bpf"), filepath.Join(dir, "i.json")
	var out, errb bytes.Buffer
	code := run([]string{"intersect", subsetData("read-arg0.json"), subsetData("read-arg1-enosys.json"), "-o", bpf, "--oci", ociPath},
		strings.NewReader(""), &out, &errb)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	for _, want := range []string{"A = " + subsetData("read-arg0.json"), "B = " + subsetData("read-arg1-enosys.json"), "errno data", "newest filter's data", "swapping"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb.String())
		}
	}
	if _, err := os.Stat(bpf); err != nil {
		t.Errorf("filter not written: %v", err)
	}
	if _, err := os.Stat(ociPath); err == nil {
		t.Errorf("OCI profile %s written", ociPath)
	}
}

// TestIntersectOCIListener: SCMP_ACT_NOTIFY's listenerPath survives the
// intersection when the inputs agree, and conflicting ones are refused.
func TestIntersectOCIListener(t *testing.T) {
	dir := t.TempDir()
	ociPath := filepath.Join(dir, "i.json")
	var out, errb bytes.Buffer
	if code := run([]string{"intersect", subsetData("notify.json"), subsetData("deny-chmod.json"), "--oci", ociPath}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("exit %d:\n%s", code, errb.String())
	}
	data, err := os.ReadFile(ociPath)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		ListenerPath string `json:"listenerPath"`
	}
	if err := json.Unmarshal(data, &got); err != nil || got.ListenerPath != "/run/seccomp-listener.sock" {
		t.Errorf("listenerPath = %q (%v), want /run/seccomp-listener.sock", got.ListenerPath, err)
	}
	other := filepath.Join(dir, "other.json")
	src, err := os.ReadFile(subsetData("notify.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, bytes.ReplaceAll(src, []byte("seccomp-listener"), []byte("other")), 0o644); err != nil {
		t.Fatal(err)
	}
	errb.Reset()
	code := run([]string{"intersect", subsetData("notify.json"), other, "--oci", filepath.Join(dir, "c.json")}, strings.NewReader(""), &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "listenerPath") {
		t.Errorf("conflicting listeners: exit %d, want 1 naming listenerPath:\n%s", code, errb.String())
	}
}

// TestSubsetOwnOutputAndStdin: seccompbench's own JSON output given as a
// policy, and "-" given twice, are usage errors (exit 2) that say so.
func TestSubsetOwnOutputAndStdin(t *testing.T) {
	var doc, errb bytes.Buffer
	if code := run([]string{"subset", subsetData("pulled-keyctl.json"), "--baseline", "docker-default", "--format", "json"}, strings.NewReader(""), &doc, &errb); code != 3 {
		t.Fatalf("subset: exit %d:\n%s", code, errb.String())
	}
	own := filepath.Join(t.TempDir(), "subset.json")
	if err := os.WriteFile(own, doc.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args  []string
		stdin string
		want  string
	}{
		{[]string{"subset", own, "--baseline", "docker-default"}, "", `own JSON output (kind "subset")`},
		{[]string{"intersect", "docker-default", own}, "", `own JSON output (kind "subset")`},
		{[]string{"subset", "-", "--baseline", "-"}, "{}", `"-" (standard input) is given 2 times`},
		{[]string{"intersect", "-", "docker-default", "-"}, "{}", `"-" (standard input) is given 2 times`},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		errb.Reset()
		code := run(tt.args, strings.NewReader(tt.stdin), &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), tt.want) {
			t.Errorf("%q: exit %d, want 2 with %q:\n%s", tt.args, code, tt.want, errb.String())
		}
	}
}

// TestSubsetIntersectMessages: the undecidable subset speaks of the
// subset (and prints its error with --format json), intersect's merge
// error does not stutter, the cost names the ABIs of --arch, x32
// entries at an x86_64 number are labelled as such and listed once, and
// a stack over MAX_INSNS_PER_PATH is warned about.
func TestSubsetIntersectMessages(t *testing.T) {
	long := filepath.Join(t.TempDir(), "long.bpf")
	insn := []byte{0x20, 0, 0, 0, 0, 0, 0, 0} // ld [0]
	prog := bytes.Repeat(insn, filters.MaxInsns-1)
	prog = append(prog, 0x06, 0, 0, 0, 0, 0, 0xff, 0x7f) // ret ALLOW
	if err := os.WriteFile(long, prog, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args      []string
		code      int
		stream    string // "out" or "err"
		want, bad string
	}{
		{[]string{"subset", subsetData("arith.bpf"), "--baseline", "docker-default"}, 1, "err", "cannot prove or refute that the profile is at least as restrictive", "equivalence"},
		{[]string{"subset", subsetData("arith.bpf"), "--baseline", "docker-default", "--format", "json"}, 1, "err", "cannot prove or refute that the profile", "equivalence"},
		{[]string{"intersect", subsetData("arith.bpf"), "docker-default"}, 1, "err", "merge " + subsetData("arith.bpf") + " docker-default: filter", "merge: "},
		{[]string{"subset", subsetData("crash_dump.arm64.policy"), "--baseline", "docker-default", "--arch", "aarch64"}, 0, "out", "mean over every aarch64/arm syscall", "x86_64/i386/x32"},
		{[]string{"subset", subsetData("allow-x32.json"), "--baseline", "docker-default"}, 3, "out", "x32 nr 13 (x86_64 rt_sigaction; not an x32 call)", "x32 rt_sigaction (nr 13)"},
		{[]string{"subset", long, long, long, long, long, long, long, long, "--baseline", long}, 0, "err", "over MAX_INSNS_PER_PATH (32768)", ""},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		code := run(tt.args, strings.NewReader(""), &out, &errb)
		got := map[string]string{"out": out.String(), "err": errb.String()}[tt.stream]
		if code != tt.code || !strings.Contains(got, tt.want) || (tt.bad != "" && strings.Contains(got, tt.bad)) {
			t.Errorf("%q: exit %d, want %d; std%s should have %q and not %q:\n%s\n%s", tt.args, code, tt.code, tt.stream, tt.want, tt.bad, out.String(), errb.String())
		}
		for _, line := range strings.Split(out.String(), "\n") {
			if _, names, ok := strings.Cut(line, "): "); ok && strings.HasPrefix(line, "  x32 ") {
				seen := map[string]bool{}
				for _, n := range strings.Fields(names) {
					if seen[n] {
						t.Errorf("%q: summary lists %s twice: %s", tt.args, n, line)
					}
					seen[n] = true
				}
			}
		}
	}
}
