package formats

import (
	"path/filepath"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/oci"
)

// TestOpenArchAArch64 opens each policy format for an arm64 host: Beats
// and OCI sources check AUDIT_ARCH_AARCH64 and allow getpid by its aarch64
// number; allowlists refuse x86_64 callers, and minimal.yaml (default
// allow) denies ptrace by its aarch64 number.
func TestOpenArchAArch64(t *testing.T) {
	getpid, _ := filters.ArchAArch64.Lookup("getpid")
	for _, spec := range []string{"default", oci.DockerDefaultName, "../../testdata/policies/minimal.yaml"} {
		t.Run(filepath.Base(spec), func(t *testing.T) {
			p, err := OpenWith(spec, OpenOptions{Arch: filters.ArchAArch64})
			if err != nil {
				t.Fatal(err)
			}
			r, err := filters.EmulateStack(filters.Stack{p}, filters.ArchAArch64.Data(getpid))
			if err != nil {
				t.Fatal(err)
			}
			if r.Action != filters.ActionAllow {
				t.Errorf("aarch64 getpid: %s, want allow", filters.RetText(r.Ret))
			}
			x86, err := filters.EmulateStack(filters.Stack{p}, filters.ArchX86_64.Data(39))
			if err != nil {
				t.Fatal(err)
			}
			if spec == "../../testdata/policies/minimal.yaml" {
				ptrace, _ := filters.ArchAArch64.Lookup("ptrace")
				if r, _ := filters.EmulateStack(filters.Stack{p}, filters.ArchAArch64.Data(ptrace)); r.Action != filters.ActionErrno {
					t.Errorf("aarch64 ptrace: %s, want errno", filters.RetText(r.Ret))
				}
			} else if x86.Action == filters.ActionAllow {
				t.Errorf("x86_64 getpid allowed by a filter for aarch64")
			}
		})
	}
	// OpenWith with Arch x86_64 gives Open's bytes for the embedded default.
	a, err := OpenWith("default", OpenOptions{Arch: filters.ArchX86_64})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open("default")
	if err != nil {
		t.Fatal(err)
	}
	if a.SHA256() != b.SHA256() {
		t.Error("OpenWith(default, Arch x86_64) differs from Open(default)")
	}
}

// TestArchSetsOCIHostArch: Arch sets the OCI host arch of every OCI-based
// format (its kernel's native ABI for a compat one), so a source opened
// with Arch aarch64 or arm is the one opened with OCI.Arch "aarch64", and
// not the x86_64 one. minijail policies are left out: --arch names the ABI
// such a policy is for (filters/minijail TestABIs), not a host.
func TestArchSetsOCIHostArch(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "policies")
	tests := []struct {
		spec string
		o    OpenOptions
	}{
		{oci.DockerDefaultName, OpenOptions{}},
		{filepath.Join(dir, "podman-like.json"), OpenOptions{}},
		{filepath.Join(dir, "k8s-profiles.yaml"), OpenOptions{ProfileName: "shop/checkout-api"}},
		{filepath.Join(dir, "lxc.seccomp"), OpenOptions{}},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.spec), func(t *testing.T) {
			load := func(arch *filters.Arch, host string) string {
				t.Helper()
				o := tt.o
				o.Arch, o.OCI.Arch = arch, host
				src, err := Load(tt.spec, o)
				if err != nil {
					t.Fatal(err)
				}
				return src.Filters[0].SHA256()
			}
			want := load(nil, "aarch64")
			if got := load(filters.ArchAArch64, ""); got != want {
				t.Error("Arch aarch64 differs from OCI.Arch aarch64")
			}
			if got := load(filters.ArchARM, ""); got != want {
				t.Error("Arch arm differs from OCI.Arch aarch64 (its kernel's native ABI)")
			}
			if load(filters.ArchX86_64, "") == want {
				t.Error("Arch x86_64 gives the aarch64 filter")
			}
		})
	}
}
