package oci

import (
	"testing"

	"github.com/seccompbench/seccompbench/filters"
)

// TestDockerDefaultAArch64 compiles Docker's default profile for an arm64
// host (OCIOptions.Arch "aarch64"): the native arch is aarch64, arm is its
// archMap sub-architecture, and verdicts follow each ABI's table.
func TestDockerDefaultAArch64(t *testing.T) {
	p, err := DockerDefault(Options{Arch: "aarch64"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		arch  *filters.Arch
		name  string
		allow bool
	}{
		{filters.ArchAArch64, "getpid", true},
		{filters.ArchAArch64, "openat", true},
		{filters.ArchARM, "getpid", true},
		{filters.ArchAArch64, "kexec_load", false},
		{filters.ArchX86_64, "getpid", false}, // not an arch of this profile on arm64
	}
	for _, tt := range tests {
		nr, _ := tt.arch.Lookup(tt.name)
		r, err := filters.EmulateStack(filters.Stack{p}, tt.arch.Data(nr))
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Action == filters.ActionAllow; got != tt.allow {
			t.Errorf("%s %s: %s, want allow=%v", tt.arch, tt.name, filters.RetText(r.Ret), tt.allow)
		}
	}
}
