package formats

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/beats"
	"github.com/seccompbench/seccompbench/filters/internal/filterstest"
	"github.com/seccompbench/seccompbench/filters/oci"
)

func TestOpen(t *testing.T) {
	def, err := beats.Default().Compile()
	if err != nil {
		t.Fatal(err)
	}
	minimal := filepath.Join(filterstest.PoliciesDir, "minimal.yaml")
	tests := []struct {
		spec       string
		wantName   string
		wantSource string
		wantSHA    string // program SHA256, "" = don't check
	}{
		{"default", "default", beats.DefaultName, def.SHA256()},
		{"embedded:default", "default", beats.DefaultName, def.SHA256()},
		{filepath.Join(filterstest.PoliciesDir, "default.json"), "default", filepath.Join(filterstest.PoliciesDir, "default.json"), def.SHA256()},
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
	ociFile := write("docker.json", []byte(`{"defaultAction": "SCMP_ACT_NOPE", "syscalls": []}`))
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
		{"bad ociFile profile", ociFile, oci.ErrBadProfile, ociFile + `:1:19: invalid OCI seccomp profile: defaultAction: unknown action "SCMP_ACT_NOPE"`},
		{"bad raw bpf", raw, filters.ErrBadRaw, raw + `: invalid raw BPF filter: instruction 0`},
		{"systemd unit", unit, ErrUnsupportedFormat, "--systemd-unit"},
		{"binary, not whole instructions", odd, filters.ErrBadRaw, "size 11 bytes is not a multiple of 8 (sizeof(struct sock_filter)): 3 stray bytes"},
		{"bad policy", bad, beats.ErrBadPolicy, bad + `:4:11: unknown syscall "getpdi" for x86_64; did you mean "getpid"?`},
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
		{"yaml", "default_action: errno\n", Policy},
		{"policy json", `{"default_action": "errno"}`, Policy},
		{"oci json", ` {"defaultAction": "SCMP_ACT_ALLOW"}`, OCI},
		{"truncated oci json", `{"defaultAction": `, OCI},
		{"oci json with a trailing comma", `{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names": ["read"], "action": "SCMP_ACT_ALLOW",}]}`, OCI},
		{"broken oci json, default last", `{"syscalls": [{"names": ["read"], "action": "SCMP_ACT_ALLOW",}], "defaultAction": "SCMP_ACT_ERRNO"}`, OCI},
		{"broken oci json, defaultErrnoRet", `{"defaultErrnoRet": 1,, "defaultAction": "SCMP_ACT_ERRNO"}`, OCI},
		{"runtime config", `{"ociVersion": "1.0.2", "linux": {"seccomp": {"defaultAction": "SCMP_ACT_ALLOW"}}}`, OCI},
		{"broken runtime config", `{"linux": {"seccomp": {"defaultAction": "SCMP_ACT_ALLOW",}}}`, OCI},
		{"broken policy json", `{"default_action": "errno", "syscalls": [{"names": ["read"], "action": "allow",}]}`, Policy},
		{"policy json with an OCI action", `{"default_action": "errno", "syscalls": [{"names": ["read"], "action": "SCMP_ACT_ALLOW"}]}`, Policy},
		{"nested defaultAction is no OCI key", `{"seccomp": {"defaultAction": "allow"},}`, Policy},
		{"yaml flow mapping", `{default_action: errno, syscalls: []}`, Policy},
		{"empty", "", Policy},
		{"raw bpf", "\x06\x00\x00\x00\x00\x00\xff\x7f", RawBPF},
		{"binary, not whole instructions", "\x06\x00\x00", Unknown},
		{"invalid utf-8", "\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8", RawBPF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DetectFormat("x", []byte(tt.data)); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

// TestOpenBrokenOCI opens OCI profiles that are not valid JSON: they must
// reach the OCI loader, which names the JSON error's line and column.
func TestOpenBrokenOCI(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, data string
		line, col  int
		want       string
	}{
		{"trailing comma", `{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names": ["read"], "action": "SCMP_ACT_ALLOW",}]}`,
			1, 97, `:1:97: invalid OCI seccomp profile: invalid character '}' looking for beginning of object key string`},
		{"missing comma, second line", "{\"defaultAction\": \"SCMP_ACT_ERRNO\",\n \"syscalls\": [{\"names\": [\"read\"] \"action\": \"SCMP_ACT_ALLOW\"}]}",
			2, 34, `:2:34: invalid OCI seccomp profile: invalid character '"' after object key:value pair`},
		{"truncated", "{\"defaultAction\": \"SCMP_ACT_ERRNO\",\n \"syscalls\": [",
			2, 14, `:2:14: invalid OCI seccomp profile: unexpected end of JSON input`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "x.json")
			if err := os.WriteFile(path, []byte(tt.data), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Open(path)
			var se *filters.SourceError
			if !errors.Is(err, oci.ErrBadProfile) || !errors.As(err, &se) {
				t.Fatalf("Open = %v (%T), want a *SourceError wrapping ErrBadProfile", err, err)
			}
			if se.Line != tt.line || se.Col != tt.col {
				t.Errorf("at %d:%d, want %d:%d", se.Line, se.Col, tt.line, tt.col)
			}
			if got, want := err.Error(), path+tt.want; got != want {
				t.Errorf("error = %q\nwant      %q", got, want)
			}
		})
	}
}
