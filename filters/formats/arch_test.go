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
