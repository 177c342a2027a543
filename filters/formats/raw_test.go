package formats

import (
	"reflect"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/oci"
	"github.com/seccompbench/seccompbench/filters/systemd"
)

// TestRawRoundTrip: Program.Bytes then ParseRaw gives the same instructions,
// for compiled OCI and systemd programs.
func TestRawRoundTrip(t *testing.T) {
	dd, err := oci.DockerDefault(oci.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := systemd.ParseDirectives("unit", "SystemCallFilter=@system-service\nRestrictNamespaces=yes", systemd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range append([]*filters.Program{dd}, st.Programs...) {
		q, err := filters.ParseRaw(p.Name+".bpf", p.Bytes())
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		if !reflect.DeepEqual(q.Insns, p.Insns) {
			t.Fatalf("%s: round trip changed the program", p.Name)
		}
		if q.SHA256() != p.SHA256() {
			t.Errorf("%s: sha256 differs after round trip", p.Name)
		}
	}
}
