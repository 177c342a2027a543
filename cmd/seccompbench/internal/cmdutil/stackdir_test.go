package cmdutil

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/report/document"
)

// TestLoadPoliciesStackDir: a directory in the layout inspect --save and
// compile --save write loads as one stacked source, in the manifest's
// index order, each filter named as the manifest names it.
func TestLoadPoliciesStackDir(t *testing.T) {
	dir := t.TempDir()
	allow, err := formats.Open("default")
	if err != nil {
		t.Fatal(err)
	}
	deny, err := formats.Open("docker-default")
	if err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]*filters.Program{"filter-00.bpf": allow, "filter-01.bpf": deny} {
		if err := os.WriteFile(filepath.Join(dir, name), p.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Listed newest first: the index decides the order.
	m := document.InspectManifest{Filters: []document.InspectSavedFilter{
		{Index: 1, File: "filter-01.bpf", Name: "RestrictRealtime/x86_64"},
		{Index: 0, File: "filter-00.bpf", Name: "SystemCallArchitectures/all"},
	}}
	data, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := LoadPolicies([]string{dir}, formats.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Sources) != 1 || !l.Sources[0].Stacked || len(l.Progs) != 2 {
		t.Fatalf("loaded %d sources, %d filters; want one stacked source of 2", len(l.Sources), len(l.Progs))
	}
	if l.Progs[0].Name != "SystemCallArchitectures/all" || l.Progs[1].Name != "RestrictRealtime/x86_64" {
		t.Errorf("names %q, %q; want the manifest's, in index order", l.Progs[0].Name, l.Progs[1].Name)
	}
	if l.Progs[1].SHA256() != deny.SHA256() {
		t.Errorf("filter 1 is not filter-01.bpf")
	}
	if _, err := LoadPolicies([]string{t.TempDir()}, formats.OpenOptions{}); err == nil {
		t.Error("an empty directory loaded")
	}
	// A manifest of schema_version 1, whose "modeled" was an English
	// phrase, reads the same.
	v1 := `{"schema_version": 1, "kind": "stack-manifest", "modeled": "systemd 252 stack of u.service on x86_64 (native layout)",
		"filters": [{"index": 0, "file": "filter-00.bpf", "name": "SystemCallArchitectures/all"}]}`
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(v1), 0o644); err != nil {
		t.Fatal(err)
	}
	if l, err = LoadPolicies([]string{dir}, formats.OpenOptions{}); err != nil || len(l.Progs) != 1 || l.Progs[0].Name != "SystemCallArchitectures/all" {
		t.Errorf("schema_version 1 manifest: err %v, loaded %+v", err, l)
	}
}
