package filters

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestDetectFormatCorpus(t *testing.T) {
	tests := []struct {
		file string
		want Format
	}{
		{"docker-default.json", FormatOCI},
		{"podman-like.json", FormatOCI},
		{"vmm-like.json", FormatOCI},
		{"raw.bpf", FormatRawBPF},
		{"hardened.service", FormatSystemdUnit},
		{"timesyncd-like.service", FormatSystemdUnit},
		{"default.yaml", FormatPolicy},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("../testdata/policies", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if got := DetectFormat(tt.file, b); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
	for _, tt := range []struct {
		name, data string
		want       Format
	}{
		{"directive string", "SystemCallFilter=@system-service", FormatSystemdUnit},
		{"comment then section", "# x\n\n[Service]\nUser=x\n", FormatSystemdUnit},
		{"unknown section is not a unit", "[Frobnicate]\n", FormatPolicy},
		{"other key=value is not a unit", "Foo=bar\n", FormatPolicy},
		{"yaml", "seccomp:\n  default_action: allow\n", FormatPolicy},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := DetectFormat("x", []byte(tt.data)); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestParseFormat(t *testing.T) {
	for in, want := range map[string]Format{"auto": FormatUnknown, "oci": FormatOCI, "systemd": FormatSystemdUnit, "raw-bpf": FormatRawBPF, "beats-yaml": FormatPolicy} {
		got, err := ParseFormat(in)
		if err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %s, %v; want %s", in, got, err, want)
		}
	}
	if _, err := ParseFormat("xml"); err == nil {
		t.Error("ParseFormat(xml) succeeded")
	}
}

// TestOpenFormats opens every non-policy corpus entry through Open and
// OpenWith, and checks that options reach the OCI compiler.
func TestOpenFormats(t *testing.T) {
	for _, spec := range []string{DockerDefaultName, "../testdata/policies/vmm-like.json", "../testdata/policies/raw.bpf"} {
		p, err := Open(spec)
		if err != nil {
			t.Fatalf("Open(%s): %v", spec, err)
		}
		if err := Validate(p.Insns); err != nil {
			t.Errorf("Open(%s): invalid program: %v", spec, err)
		}
	}
	if _, err := Open("../testdata/policies/hardened.service"); !errors.Is(err, ErrUnsupportedFormat) {
		t.Errorf("Open(unit) = %v, want ErrUnsupportedFormat", err)
	}
	nr, _ := ArchX86_64.Lookup("mount")
	for _, tt := range []struct {
		name string
		opt  OpenOptions
		spec string
		want Action
	}{
		{"default caps", OpenOptions{}, DockerDefaultName, ActionErrno},
		{"CAP_SYS_ADMIN", OpenOptions{OCI: OCIOptions{Caps: []string{"CAP_SYS_ADMIN"}}}, DockerDefaultName, ActionAllow},
		{"file with caps", OpenOptions{OCI: OCIOptions{Caps: []string{"CAP_SYS_ADMIN"}}}, "../testdata/policies/docker-default.json", ActionAllow},
		{"forced format", OpenOptions{Format: FormatOCI}, "../testdata/policies/docker-default.json", ActionErrno},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := OpenWith(tt.spec, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Emulate(p, ArchX86_64.Data(nr))
			if err != nil {
				t.Fatal(err)
			}
			if got := KernelAction(r.Ret); got != tt.want {
				t.Errorf("mount = %s, want %s", got, tt.want)
			}
		})
	}
	if _, err := OpenWith("../testdata/policies/docker-default.json", OpenOptions{Format: FormatRawBPF}); !errors.Is(err, ErrBadRaw) {
		t.Errorf("forcing raw-bpf on JSON = %v, want ErrBadRaw", err)
	}
}
