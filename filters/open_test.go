package filters

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpen(t *testing.T) {
	def, err := DefaultPolicy().Compile()
	if err != nil {
		t.Fatal(err)
	}
	minimal := filepath.Join(policiesDir, "minimal.yaml")
	tests := []struct {
		spec       string
		wantName   string
		wantSource string
		wantSHA    string // program SHA256, "" = don't check
	}{
		{"default", "default", DefaultPolicyName, def.SHA256()},
		{"embedded:default", "default", DefaultPolicyName, def.SHA256()},
		{filepath.Join(policiesDir, "default.json"), "default", filepath.Join(policiesDir, "default.json"), def.SHA256()},
		{minimal, "minimal", minimal, ""},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			prog, err := Open(tt.spec)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			if prog.Name != tt.wantName || prog.Source != tt.wantSource {
				t.Errorf("Name, Source = %q, %q; want %q, %q", prog.Name, prog.Source, tt.wantName, tt.wantSource)
			}
			if tt.wantSHA != "" && prog.SHA256() != tt.wantSHA {
				t.Errorf("program %s, want %s", prog.SHA256(), tt.wantSHA)
			}
			if prog.Len() == 0 {
				t.Error("empty program")
			}
		})
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	oci := write("docker.json", []byte(`{"defaultAction": "SCMP_ACT_NOPE", "syscalls": []}`))
	raw := write("filter.bpf", []byte{0x20, 0, 0, 0, 64, 0, 0, 0})
	unit := write("x.service", []byte("[Service]\nSystemCallFilter=@system-service\n"))
	odd := write("odd.bpf", []byte{0x06, 0, 0, 0, 0, 0, 0xff, 0x7f, 0x06, 0, 0})
	bad := write("bad.yaml", []byte("default_action: errno\nsyscalls:\n- action: allow\n  names: [getpdi]\n"))
	missing := filepath.Join(dir, "missing.yaml")
	tests := []struct {
		name    string
		spec    string
		is      error
		contain string
	}{
		{"unknown embedded", "embedded:docker", ErrUnsupportedFormat, `no embedded policy "docker"`},
		{"missing file", missing, os.ErrNotExist, missing},
		{"bad oci profile", oci, ErrBadOCI, oci + `:1:19: invalid OCI seccomp profile: defaultAction: unknown action "SCMP_ACT_NOPE"`},
		{"bad raw bpf", raw, ErrBadRaw, raw + `: invalid raw BPF filter: instruction 0`},
		{"systemd unit", unit, ErrUnsupportedFormat, "--systemd-unit"},
		{"binary, not whole instructions", odd, ErrBadRaw, "size 11 bytes is not a multiple of 8 (sizeof(struct sock_filter)): 3 stray bytes"},
		{"bad policy", bad, ErrBadPolicy, bad + `:4:11: unknown syscall "getpdi" for x86_64; did you mean "getpid"?`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Open(tt.spec)
			if !errors.Is(err, tt.is) {
				t.Fatalf("Open = %v, want %v", err, tt.is)
			}
			if !strings.Contains(err.Error(), tt.contain) {
				t.Errorf("Open = %q, want it to contain %q", err, tt.contain)
			}
		})
	}
}

func TestDetectFormat(t *testing.T) {
	tests := []struct {
		name string
		data string
		want Format
	}{
		{"yaml", "default_action: errno\n", FormatPolicy},
		{"policy json", `{"default_action": "errno"}`, FormatPolicy},
		{"oci json", ` {"defaultAction": "SCMP_ACT_ALLOW"}`, FormatOCI},
		{"invalid json is left to the policy parser", `{"defaultAction": `, FormatPolicy},
		{"empty", "", FormatPolicy},
		{"raw bpf", "\x06\x00\x00\x00\x00\x00\xff\x7f", FormatRawBPF},
		{"binary, not whole instructions", "\x06\x00\x00", FormatUnknown},
		{"invalid utf-8", "\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8", FormatRawBPF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DetectFormat("x", []byte(tt.data)); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}
