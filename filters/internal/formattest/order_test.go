package formattest_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/seccompbench/seccompbench/filters/firecracker"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/filters/internal/formattest"
	"github.com/seccompbench/seccompbench/filters/kubernetes"
	"github.com/seccompbench/seccompbench/filters/lxc"
	"github.com/seccompbench/seccompbench/filters/minijail"
	"github.com/seccompbench/seccompbench/filters/unsupported"
)

// detect sniffs data in the order proposed for the format table: the
// existing detectors that recognize a format positively (raw BPF, OCI,
// systemd), then the new formats, then the known unsupported inputs, and
// Beats last, since formats.DetectFormat falls back to it for any text.
func detect(name string, data []byte) string {
	switch f := formats.DetectFormat(name, data); f {
	case formats.RawBPF, formats.OCI, formats.SystemdUnit, formats.Snapd, formats.Kafel, formats.Nsjail, formats.Unknown:
		return f.String()
	}
	switch {
	case kubernetes.Detect(data):
		return "kubernetes"
	case firecracker.Detect(data):
		return "firecracker"
	case lxc.Detect(data):
		return "lxc"
	case minijail.Detect(data):
		return "minijail"
	}
	if f, _, ok := unsupported.Detect(data); ok {
		return f
	}
	return formats.Policy.String()
}

// TestDetectOrder checks every sample against the format it is written
// in: the misdiagnoses of issue 12 (a Firecracker file or a multi-document
// Kubernetes file taken for a Beats policy, an LXC policy failing as YAML)
// are gone once the new detectors run before the Beats fallback.
func TestDetectOrder(t *testing.T) {
	want := map[string]string{
		"args-workload.yaml": "policy", "default.json": "policy", "default.yaml": "policy",
		"denylist.yaml": "policy", "large-allowlist.yaml": "policy", "minimal.yaml": "policy",
		"pathological.yaml": "policy", "positions.yaml": "policy",
		"docker-default.json": "oci", "strict-no-seccomp.json": "oci", "podman-like.json": "oci", "vmm-like.json": "oci",
		"raw.bpf": "raw-bpf", "hardened.service": "systemd-unit", "timesyncd-like.service": "systemd-unit",
		"k8s-profiles.yaml": "kubernetes", "firecracker-vmm.json": "firecracker", "lxc.seccomp": "lxc",
		"chrome-renderer.policy": "minijail", "common.policy": "minijail",
		"snap-default.src": "snapd",
	}
	seen := map[string]bool{}
	for _, f := range formattest.Files(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		base := filepath.Base(f)
		seen[base] = true
		w, ok := want[base]
		if !ok {
			t.Errorf("%s: no expected format in this test's table", f)
			continue
		}
		if got := detect(f, b); got != w {
			t.Errorf("%s detected as %s, want %s", f, got, w)
		}
	}
	for base := range want {
		if !seen[base] {
			t.Errorf("sample %s is gone", base)
		}
	}
	// Today's formats.DetectFormat alone misreads three of them.
	for _, name := range []string{"k8s-profiles.yaml", "firecracker-vmm.json", "lxc.seccomp"} {
		if got := formats.DetectFormat(name, formattest.Read(t, name)); got != formats.Policy {
			t.Logf("formats.DetectFormat(%s) = %v: no longer a misdiagnosis", name, got)
		}
	}
	for _, f := range []string{"nsjail-noseccomp.cfg", "bwrap-filter.c", "strace-c.txt", "strace-trace.txt"} {
		p := filepath.Join("..", "..", "unsupported", "testdata", f)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := detect(p, b); got == "policy" || got == "minijail" {
			t.Errorf("%s detected as %s, want an unsupported format", f, got)
		}
	}
}
