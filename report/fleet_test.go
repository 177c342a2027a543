package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/internal/golden"
	"github.com/seccompbench/seccompbench/report/document"
)

// fleetFixture returns three results of the fixture policy: node-a as
// fixtureDoc, node-b 30 ns slower per defeated child on another kernel
// whose JSON carries the keys of newer runs (loader, fits[].loader,
// environment.cmdline_mitigations), and node-c of another policy.
func fleetFixture(t *testing.T) []document.FleetEntry {
	t.Helper()
	var entries []document.FleetEntry
	for i, name := range []string{"node-a.json", "node-b.json", "node-c.json"} {
		d := fixtureDoc(t, float64(30*i))
		d.Environment.Hostname = strings.TrimSuffix(name, ".json")
		if i == 1 {
			d.Environment.Kernel = "6.1.0-test"
		}
		if i == 2 {
			d.Config.Policies[0].Path = "/policies/other.yaml"
			d.Config.Policies[0].SHA256 = "fedcba9876543210" + d.Config.Policies[0].SHA256[16:]
		}
		data, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			var m map[string]any
			json.Unmarshal(data, &m)
			m["config"].(map[string]any)["loader"] = "unprivileged"
			for _, f := range m["fits"].([]any) {
				f.(map[string]any)["loader"] = "unprivileged"
			}
			m["environment"].(map[string]any)["cmdline_mitigations"] = []string{"spectre_bhi=on"}
			data, _ = json.Marshal(m)
		}
		e, err := ReadFleetEntry(name, data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		entries = append(entries, e)
	}
	return entries
}

func TestFleetRenderers(t *testing.T) {
	f, err := BuildFleet(fleetFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(f.Groups), 2; got != want {
		t.Fatalf("got %d groups, want %d (two results share a policy)", got, want)
	}
	if got, want := len(f.Groups[0].Rows), 4; got != want {
		t.Errorf("first group has %d rows, want %d (2 results x 2 variants)", got, want)
	}
	b := f.Groups[0].Rows[2]
	if b.Loader != "unprivileged" || !strings.Contains(b.Mitigations, "cmdline: spectre_bhi=on") || b.Host != "node-b" {
		t.Errorf("node-b row %+v: want loader, cmdline mitigations and host from the JSON", b)
	}
	if a := f.Groups[0].Rows[0]; a.Loader != "" || strings.Contains(a.Mitigations, "cmdline") {
		t.Errorf("node-a row %+v: keys absent from its JSON must stay empty", a)
	}
	for _, tt := range []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"fleet.txt", func(b *bytes.Buffer) error { return WriteFleetTable(b, f) }},
		{"fleet.md", func(b *bytes.Buffer) error { return WriteFleetMarkdown(b, f) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tt.write(&b); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, tt.name, b.Bytes())
		})
	}
	t.Run("csv", func(t *testing.T) {
		var b, warn bytes.Buffer
		if err := WriteFleetCSV(&b, &warn, f); err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(&b).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if got, want := len(rows), 1+6; got != want {
			t.Errorf("got %d CSV rows, want %d (header + 3 results x 2 variants)", got, want)
		}
		if !strings.Contains(warn.String(), "2 kernels") {
			t.Errorf("warnings %q do not mention the mixed kernels", warn.String())
		}
	})
	t.Run("json", func(t *testing.T) {
		var b bytes.Buffer
		if err := WriteFleetJSON(&b, f); err != nil {
			t.Fatal(err)
		}
		var back document.Fleet
		if err := json.Unmarshal(b.Bytes(), &back); err != nil || len(back.Groups) != 2 || back.Kind != document.KindReport {
			t.Errorf("JSON round trip: %v, %+v", err, back)
		}
	})
	t.Run("benchstat", func(t *testing.T) {
		var b, warn bytes.Buffer
		if err := WriteFleetBenchstat(&b, &warn, fleetFixture(t)); err != nil {
			t.Fatal(err)
		}
		for _, h := range []string{"host: node-a\n", "host: node-b\n", "host: node-c\n"} {
			if !strings.Contains(b.String(), h) {
				t.Errorf("benchstat output lacks %q", h)
			}
		}
	})
}

func TestBuildFleetEmpty(t *testing.T) {
	if _, err := BuildFleet(nil); !errors.Is(err, document.ErrNoResults) {
		t.Errorf("got %v, want ErrNoResults", err)
	}
}

func TestReadFleetEntryRejectsOtherJSON(t *testing.T) {
	if _, err := ReadFleetEntry("cmp.json", []byte(`{"schema_version": 1, "kind": "compare"}`)); !errors.Is(err, document.ErrWrongKind) || !strings.Contains(err.Error(), "a compare document, want a run result") {
		t.Errorf("got %v, want the wrong-kind error", err)
	}
}

// TestFleetInheritedFilters: a run inside a container (one inherited
// filter) grouped with a bare-host run of the same policy is named.
func TestFleetInheritedFilters(t *testing.T) {
	entries := fleetFixture(t)
	entries[1].Doc.Environment.ParentSeccompFilters = 1
	f, err := BuildFleet(entries)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, w := range f.Warnings {
		found = found || strings.Contains(w, "different inherited seccomp filters: node-a.json ran under 0, node-b.json under 1")
	}
	if !found {
		t.Errorf("warnings %q lack the inherited filters", f.Warnings)
	}
}

// TestBuildFleetSegmentless: beside a result whose intervals include the
// time segments, results whose intervals leave them out (too few blocks,
// or written before segments) are named in one warning; when no result
// has segments there is nothing to set them against and no warning.
func TestBuildFleetSegmentless(t *testing.T) {
	has := func(fl *document.Fleet) string {
		for _, w := range fl.Warnings {
			if strings.Contains(w, "leave out how the host's speed wanders") {
				return w
			}
		}
		return ""
	}
	entries := fleetFixture(t)
	fl, err := BuildFleet(entries)
	if err != nil {
		t.Fatal(err)
	}
	if w := has(fl); w != "" {
		t.Errorf("no result has segments, yet: %q", w)
	}
	for i := range entries[0].Doc.Fits {
		entries[0].Doc.Fits[i].Segments, entries[0].Doc.Fits[i].SegmentSDNs = 4, 1.5
	}
	if fl, err = BuildFleet(entries); err != nil {
		t.Fatal(err)
	}
	w := has(fl)
	if !strings.HasPrefix(w, "node-b.json, node-c.json: intervals that leave out") || strings.Contains(w, "node-a.json") {
		t.Errorf("warning %q, want it to name node-b.json and node-c.json only", w)
	}
}
