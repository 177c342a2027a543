package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportCommand reads the three real results of docs/examples/fleet
// (by glob, expanded by the command) and renders every format.
func TestReportCommand(t *testing.T) {
	glob := "../../docs/examples/fleet/node-*.json"
	var out, errb bytes.Buffer
	if code := run([]string{"report", glob, "--format", "json"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errb.String())
	}
	var fl struct {
		Groups []struct {
			Policy string `json:"policy"`
			Rows   []struct {
				Result      string  `json:"result"`
				Host        string  `json:"host"`
				Kernel      string  `json:"kernel"`
				Variant     string  `json:"variant"`
				ForeignLoad float64 `json:"foreign_load"`
			} `json:"rows"`
		} `json:"groups"`
	}
	if err := json.Unmarshal(out.Bytes(), &fl); err != nil {
		t.Fatal(err)
	}
	if len(fl.Groups) != 2 || len(fl.Groups[0].Rows) != 4 || len(fl.Groups[1].Rows) != 2 {
		t.Fatalf("got %+v, want 2 groups (default: 2 results x 2 variants; docker-default: 1 x 2)", fl.Groups)
	}
	for _, g := range fl.Groups {
		for _, r := range g.Rows {
			if r.Host == "" || r.Kernel == "" || r.ForeignLoad < 0 {
				t.Errorf("row %+v lacks host, kernel or foreign load", r)
			}
		}
	}
	dir := t.TempDir()
	var outs []string
	for _, ext := range []string{".txt", ".md", ".json", ".csv", ".bench", ".svg", ".png", ".html"} {
		outs = append(outs, "-o", filepath.Join(dir, "fleet"+ext))
	}
	out.Reset()
	errb.Reset()
	if code := run(append([]string{"report", "--explain", glob}, outs...), strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errb.String())
	}
	for i := 1; i < len(outs); i += 2 {
		if st, err := os.Stat(outs[i]); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", outs[i], err)
		}
	}
	page, _ := os.ReadFile(filepath.Join(dir, "fleet.html"))
	for _, want := range []string{"<!DOCTYPE html>", "<h2>policy embedded:default", "<svg", "Per-filter cost in ns per op across 3 results"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("HTML page lacks %q", want)
		}
	}
	txt, _ := os.ReadFile(filepath.Join(dir, "fleet.txt"))
	// "on (cached)" needs a negligible measured per-filter cost, which a
	// short run on a busy machine may not give: then "on (cached,
	// unconfirmed)" (report.fleetCache).
	for _, want := range []string{"policy embedded:default", "policy docker-default", "node-1.json", "node-3.json", "on (cached", "defeat (not cached)", "foreign load"} {
		if !bytes.Contains(txt, []byte(want)) {
			t.Errorf("table lacks %q:\n%s", want, txt)
		}
	}
}

func TestReportCommandErrors(t *testing.T) {
	dir := t.TempDir()
	notResult := filepath.Join(dir, "sim.json")
	os.WriteFile(notResult, []byte(`{"syscalls": []}`), 0o644)
	for _, tt := range []struct {
		name string
		args []string
		want int
	}{
		{"no argument", []string{"report"}, 2},
		{"glob matching nothing", []string{"report", filepath.Join(dir, "*.yaml")}, 2},
		{"missing file", []string{"report", filepath.Join(dir, "none.json")}, 1},
		{"not a run result (a usage error: wrong kind)", []string{"report", notResult}, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if got := run(tt.args, strings.NewReader(""), &out, &errb); got != tt.want {
				t.Errorf("exit %d, want %d; stderr:\n%s", got, tt.want, errb.String())
			}
		})
	}
}
