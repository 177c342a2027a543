package unsupported

import (
	"os"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/filters/internal/formattest"
)

func TestDetect(t *testing.T) {
	tests := []struct{ file, format, hint string }{
		{"testdata/bwrap-filter.c", CSockFilter, "struct sock_filter array"},
		{"testdata/strace-c.txt", StraceSummary, "use estimate --profile FILE"},
		{"../analysis/testdata/profiles/strace-mixed.txt", StraceSummary, "strace -c output"},
		{"testdata/strace-trace.txt", StraceTrace, "an strace trace"},
		{"testdata/strace-ff.txt", StraceTrace, "estimate --profile FILE"},
		{"testdata/nsjail-noseccomp.cfg", NsjailConfig, "nsjail installs no seccomp filter"},
		{"testdata/helm-seccompprofile.yaml", HelmTemplate, "Helm chart template"},
		{"testdata/helm-oci-configmap.yaml", HelmTemplate, "helm template RELEASE CHART"},
		{"testdata/own-subset.json", OwnOutput, `own JSON output (kind "subset")`},
	}
	for _, tt := range tests {
		b, err := os.ReadFile(tt.file)
		if err != nil {
			t.Fatal(err)
		}
		format, hint, ok := Detect(b)
		if !ok || format != tt.format || !strings.Contains(hint, tt.hint) {
			t.Errorf("Detect(%s) = %q, %q, %v; want %q with a hint containing %q", tt.file, format, hint, ok, tt.format, tt.hint)
		}
	}
}

// TestNotPolicies checks that no policy of a supported format, the new
// ones included, is taken for an unsupported input.
func TestNotPolicies(t *testing.T) {
	for _, f := range formattest.Files(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if format, _, ok := Detect(b); ok {
			t.Errorf("Detect(%s) = %q, want no match", f, format)
		}
	}
	for _, s := range []string{
		"default_action: errno\nsyscalls:\n  - action: allow\n    names: [read]\n",
		"read: 1\nwrite: arg0 == 1\n",
		"# POLICY notes { are in a comment here }\nread: 1\n",
		"read(3) = 1\n",
		// systemd's jinja2 unit templates are systemd's, not Helm's.
		"[Service]\n{{SERVICE_WATCHDOG}}\nExecStart={{LIBEXECDIR}}/x\n",
		"# mount { is in a comment; mode: ONCE too\nread: 1\n",
	} {
		if format, _, ok := Detect([]byte(s)); ok {
			t.Errorf("Detect(%q) = %q, want no match", s, format)
		}
	}
}
