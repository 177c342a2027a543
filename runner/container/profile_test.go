package container

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	specs "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/seccompbench/seccompbench/filters/oci"
)

// TestResolveConfig: docker-default resolved on Docker's capabilities
// keeps the capability-gated rules out (no CAP_SYS_ADMIN: no mount rule)
// and CheckSeccomp accepts a bundle carrying exactly that profile, while
// refusing one with another profile or none.
func TestResolveConfig(t *testing.T) {
	body, err := oci.DockerDefaultJSON()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := ResolveConfig("rootfs", "docker-default", body, []string{"/bin/true"}, oci.DockerDefaultCaps)
	if err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(cfg.Root.Path) || cfg.Linux.Seccomp == nil || cfg.Linux.Seccomp.DefaultAction != specs.ActErrno {
		t.Fatalf("root %q, seccomp %+v: want an absolute root and docker-default's SCMP_ACT_ERRNO default", cfg.Root.Path, cfg.Linux.Seccomp)
	}
	for _, sc := range cfg.Linux.Seccomp.Syscalls {
		if sc.Action == specs.ActAllow && len(sc.Args) == 0 && slices.Contains(sc.Names, "mount") {
			t.Errorf("mount allowed without CAP_SYS_ADMIN: %+v", sc)
		}
	}
	if _, err := ResolveConfig("/", "bad", []byte("{"), nil, nil); err == nil || !strings.Contains(err.Error(), "resolve OCI profile bad") {
		t.Errorf("err = %v, want one naming the profile", err)
	}
	other := &specs.LinuxSeccomp{DefaultAction: specs.ActAllow}
	tests := []struct {
		name    string
		sc      *specs.LinuxSeccomp
		wantErr string
	}{
		{"same profile", cfg.Linux.Seccomp, ""},
		{"another profile", other, "is not docker-default"},
		{"no profile", nil, "has no linux.seccomp"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			b, _ := json.Marshal(NewConfig("/", []string{"/bin/true"}, nil, tt.sc))
			if err := os.WriteFile(filepath.Join(dir, "config.json"), b, 0o644); err != nil {
				t.Fatal(err)
			}
			err := CheckSeccomp(dir, "docker-default", cfg.Linux.Seccomp)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestRuntimeBinary(t *testing.T) {
	for _, tt := range []struct{ runtime, want string }{
		{string(oci.RuntimeRunc), "runc"}, {string(oci.RuntimeRunc11), "runc"}, {string(oci.RuntimeCrun), "crun"}, {"", "runc"},
	} {
		if got := RuntimeBinary(tt.runtime); got != tt.want {
			t.Errorf("RuntimeBinary(%q) = %q, want %q", tt.runtime, got, tt.want)
		}
	}
}
