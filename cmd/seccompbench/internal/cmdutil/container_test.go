package cmdutil

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	specs "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/seccompbench/seccompbench/filters/oci"
)

// TestBundleMatches: --bundle is accepted when its linux.seccomp is
// POLICY as --rootfs would resolve it, and refused with a reason when it
// is another profile or none, since the report names POLICY.
func TestBundleMatches(t *testing.T) {
	want, err := rootfsConfig(t.TempDir(), oci.DockerDefaultName, []string{"/bin/true"}, oci.Options{})
	if err != nil {
		t.Fatal(err)
	}
	other := *want
	lin := *want.Linux
	lin.Seccomp = &specs.LinuxSeccomp{DefaultAction: specs.ActAllow,
		Syscalls: []specs.LinuxSyscall{{Names: []string{"mount"}, Action: specs.ActErrno}}}
	other.Linux = &lin
	none := *want
	linNone := *want.Linux
	linNone.Seccomp = nil
	none.Linux = &linNone
	tests := []struct {
		name    string
		cfg     *specs.Spec
		wantErr string
	}{
		{"same profile", want, ""},
		{"another profile", &other, "is not docker-default"},
		{"no profile", &none, "has no linux.seccomp"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			b, _ := json.Marshal(tt.cfg)
			if err := os.WriteFile(filepath.Join(dir, "config.json"), b, 0o644); err != nil {
				t.Fatal(err)
			}
			err := bundleMatches(dir, oci.DockerDefaultName, oci.Options{})
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
}
