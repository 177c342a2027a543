package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/internal/golden"
	"github.com/seccompbench/seccompbench/report/document"
)

func TestCompareFindsKnownDifference(t *testing.T) {
	// b's defeat children with filters are 50 ns faster: every defeat cell
	// N >= 1 and the entry term change by -50 ns; nothing else changes.
	a, b := fixtureDoc(t, 0), fixtureDoc(t, -50)
	c, err := Compare([]document.NamedDocument{{Name: "a.json", Doc: a}, {Name: "b.json", Doc: b}}, document.CompareOptions{Confidence: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(c.Cells), len(a.Results); got != want {
		t.Fatalf("cells = %d, want %d", got, want)
	}
	for _, cc := range c.Cells {
		wantSig := cc.Variant == "defeat" && cc.Filters > 0
		if cc.Significant != wantSig {
			t.Errorf("%s/%d: significant = %v (p %g), want %v", cc.Variant, cc.Filters, cc.Significant, cc.P, wantSig)
		}
		if wantSig {
			if d := cc.DeltaNs; d < -50.001 || d > -49.999 {
				t.Errorf("%s/%d: delta = %g ns, want -50", cc.Variant, cc.Filters, d)
			}
			if !(cc.CILowNs < -50 && -50 < cc.CIHighNs) {
				t.Errorf("%s/%d: CI [%g, %g] misses -50", cc.Variant, cc.Filters, cc.CILowNs, cc.CIHighNs)
			}
		}
	}
	got := map[string]document.FitChange{}
	for _, f := range c.Fits {
		got[f.Variant+"/"+f.Term] = f
	}
	if f := got["defeat/entry"]; !f.Significant || f.DeltaNs > -45 || f.DeltaNs < -55 {
		t.Errorf("defeat entry change = %+v, want significant ~-50 ns", f)
	}
	for _, k := range []string{"defeat/per_filter", "on/per_filter", "on/entry"} {
		if f, ok := got[k]; !ok || f.Significant {
			t.Errorf("%s = %+v (present %v), want a non-significant change", k, f, ok)
		}
	}

	var tab bytes.Buffer
	if err := WriteComparisonTable(&tab, c); err != nil {
		t.Fatal(err)
	}
	out := tab.String()
	for _, want := range []string{"compared: base a.json (default) vs b.json (default)", "-4.1%", "~", "verdict: per filter, b.json vs base a.json: no change detected in on, defeat"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	golden.Check(t, "compare.txt", tab.Bytes())
	var ex bytes.Buffer
	if err := WriteComparisonText(&ex, c, TextOptions{Explain: true}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Welch", "Significant is not large"} {
		if strings.Contains(out, want) || !strings.Contains(ex.String(), want) {
			t.Errorf("%q is not in the --explain text only", want)
		}
	}
	var md bytes.Buffer
	if err := WriteComparisonMarkdown(&md, c); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "compare.md", md.Bytes())
}

func TestCompareIdenticalIsTilde(t *testing.T) {
	a := fixtureDoc(t, 0)
	c, err := Compare([]document.NamedDocument{{Name: "a.json", Doc: a}, {Name: "a2.json", Doc: fixtureDoc(t, 0)}}, document.CompareOptions{Confidence: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	for _, cc := range c.Cells {
		if cc.Significant || !cc.Known || cc.DeltaNs != 0 || deltaText(cc.Change, false) != "~" {
			t.Errorf("%s/%d: %+v, want a known, non-significant zero change shown as ~", cc.Variant, cc.Filters, cc.Change)
		}
	}
	for _, f := range c.Fits {
		if f.Significant || deltaText(f.Change, true) != "~" {
			t.Errorf("fit %s/%s: %+v, want ~", f.Variant, f.Term, f.Change)
		}
	}
	var tab bytes.Buffer
	WriteComparisonTable(&tab, c)
	for _, line := range strings.Split(tab.String(), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "on ") || strings.HasPrefix(strings.TrimSpace(line), "defeat ") {
			if !strings.Contains(line, " ~ ") {
				t.Errorf("row without ~: %q", line)
			}
		}
	}
}

func TestCompareChecks(t *testing.T) {
	tests := []struct {
		name     string
		edit     func(d *document.Document)
		force    bool
		wantErr  error
		wantWarn string
	}{
		{name: "workload", edit: func(d *document.Document) { d.Config.Workload = "mix" }, wantErr: document.ErrWorkloadMismatch},
		{name: "workload forced", edit: func(d *document.Document) { d.Config.Workload = "mix" }, force: true, wantWarn: "forced comparison"},
		{name: "kernel", edit: func(d *document.Document) { d.Environment.Kernel = "5.10.0" }, wantWarn: "different kernels"},
		{name: "cpu", edit: func(d *document.Document) { d.Environment.CPUModel = "Other CPU" }, wantWarn: "different CPUs"},
		{name: "partial", edit: func(d *document.Document) { d.Partial = true }, wantWarn: "partial result"},
		{name: "inherited filters", edit: func(d *document.Document) { d.Environment.ParentSeccompFilters = 1 },
			wantWarn: "different inherited seccomp filters: a.json ran under 0, b.json under 1"},
		{name: "missing cell", edit: func(d *document.Document) { d.Results = d.Results[:len(d.Results)-1] }, wantWarn: "measured only in a.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := fixtureDoc(t, 0)
			tt.edit(b)
			c, err := Compare([]document.NamedDocument{{Name: "a.json", Doc: fixtureDoc(t, 0)}, {Name: "b.json", Doc: b}}, document.CompareOptions{Confidence: 0.95, Force: tt.force})
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var tab bytes.Buffer
			WriteComparisonTable(&tab, c)
			if !strings.Contains(tab.String(), tt.wantWarn) {
				t.Errorf("output lacks warning %q:\n%s", tt.wantWarn, tab.String())
			}
		})
	}
	if _, err := Compare([]document.NamedDocument{{Name: "a.json", Doc: fixtureDoc(t, 0)}}, document.CompareOptions{Confidence: 0.95}); !errors.Is(err, document.ErrTooFewResults) {
		t.Errorf("one document: err = %v, want ErrTooFewResults", err)
	}
}

func TestComparisonJSON(t *testing.T) {
	c, err := Compare([]document.NamedDocument{{Name: "a.json", Doc: fixtureDoc(t, 0)}, {Name: "b.json", Doc: fixtureDoc(t, -50)}, {Name: "c.json", Doc: fixtureDoc(t, 0)}}, document.CompareOptions{Confidence: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteComparisonJSON(&b, c); err != nil {
		t.Fatal(err)
	}
	var got struct {
		SchemaVersion int    `json:"schema_version"`
		Test          string `json:"test"`
		Alpha         float64
		Sources       []struct{ Name string }
		Cells         []struct {
			Source      int
			Variant     string
			Filters     int
			DeltaNs     float64 `json:"delta_ns"`
			Significant bool
		}
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.SchemaVersion != 1 || got.Test != "welch-t" || len(got.Sources) != 3 || got.Sources[0].Name != "a.json" {
		t.Errorf("header = %+v", got)
	}
	if a := got.Alpha; a < 0.0999 || a > 0.1001 {
		t.Errorf("alpha = %g, want 0.1", a)
	}
	perSource := map[int]int{}
	for _, cc := range got.Cells {
		perSource[cc.Source]++
		if cc.Source == 2 && cc.Significant {
			t.Errorf("c.json equals a.json but %s/%d is significant", cc.Variant, cc.Filters)
		}
	}
	if perSource[1] != 14 || perSource[2] != 14 {
		t.Errorf("cells per source = %v, want 14 each for sources 1 and 2", perSource)
	}
}

// TestCompareSegmentless: a result whose intervals leave out the time
// segments is named, since a change between two runs carries the wander
// between them; a result with segments is not.
func TestCompareSegmentless(t *testing.T) {
	a, b := fixtureDoc(t, 0), fixtureDoc(t, -50)
	for i := range a.Fits {
		a.Fits[i].Segments, a.Fits[i].SegmentSDNs = 4, 1.5
	}
	c, err := Compare([]document.NamedDocument{{Name: "a.json", Doc: a}, {Name: "b.json", Doc: b}}, document.CompareOptions{Confidence: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	var named []string
	for _, w := range c.Warnings {
		if strings.Contains(w, "leave out how the host's speed wanders") {
			named = append(named, strings.SplitN(w, ":", 2)[0])
		}
	}
	if len(named) != 1 || named[0] != "b.json" {
		t.Errorf("segmentless results named %q, want [b.json]", named)
	}
}

// TestComparePolicyMismatch: comparing runs of two policies names both
// and warns; the same policy twice does not.
func TestComparePolicyMismatch(t *testing.T) {
	a, b := fixtureDoc(t, 0), fixtureDoc(t, 0)
	b.Config.Policies = []document.Policy{{Path: "other.json", SHA256: "ff"}}
	c, err := Compare([]document.NamedDocument{{Name: "a.json", Doc: a}, {Name: "b.json", Doc: b}}, document.CompareOptions{Confidence: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	var tab bytes.Buffer
	if err := WriteComparisonTable(&tab, c); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"base a.json (default) vs b.json (other.json)", "the policies differ", "different policies: a.json measured default, b.json measured other.json"} {
		if !strings.Contains(tab.String(), want) {
			t.Errorf("comparison lacks %q:\n%s", want, tab.String())
		}
	}
	same, err := Compare([]document.NamedDocument{{Name: "a.json", Doc: a}, {Name: "a2.json", Doc: fixtureDoc(t, 0)}}, document.CompareOptions{Confidence: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range same.Warnings {
		if strings.Contains(w, "different policies") {
			t.Errorf("same policy warned: %s", w)
		}
	}
}
