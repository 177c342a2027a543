package report

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/filters/analysis"
	"github.com/seccompbench/seccompbench/filters/systemd"
)

// TestDirectiveLines: a run on a unit prints, in text and Markdown, one
// line per directive from the analysis, and none without a unit.
func TestDirectiveLines(t *testing.T) {
	data, err := os.ReadFile("../testdata/policies/hardened.service")
	if err != nil {
		t.Fatal(err)
	}
	st, err := systemd.ParseUnit("hardened.service", data, systemd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := analysis.PartCosts(st.Source(), nil)
	if err != nil {
		t.Fatal(err)
	}
	d := fixtureDoc(t, 0)
	d.Config.Directives = UnitDirectivesOf(r)
	lines := directiveLines(d.Config.Directives)
	if len(lines) != len(r.Parts)+1 {
		t.Fatalf("%d lines for %d directives (+1 for the stack): %q", len(lines), len(r.Parts), lines)
	}
	for i, p := range r.Parts {
		if !strings.HasPrefix(lines[i], p.Name+": "+Plural(len(p.Filters), "filter")) {
			t.Errorf("line %d %q does not start with %s and its filter count", i, lines[i], p.Name)
		}
		if (p.Redundant == analysis.RedundantYes) != strings.Contains(lines[i], "Redundant:") {
			t.Errorf("line %q and redundant=%s disagree", lines[i], p.Redundant)
		}
	}
	for name, render := range map[string]func(*bytes.Buffer) error{
		"text":     func(b *bytes.Buffer) error { return WriteTable(b, d) },
		"markdown": func(b *bytes.Buffer) error { return WriteMarkdown(b, d) },
	} {
		var b bytes.Buffer
		if err := render(&b); err != nil {
			t.Fatal(err)
		}
		flat := strings.Join(strings.Fields(b.String()), " ")
		if !strings.Contains(flat, "hat each directive costs") || !strings.Contains(flat, "MemoryDenyWriteExecute: 3 filters") {
			t.Errorf("%s output lacks the directive lines:\n%s", name, b.String())
		}
	}
	d.Config.Directives = nil
	var b bytes.Buffer
	if err := WriteTable(&b, d); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "each directive costs") {
		t.Errorf("directive lines without a unit:\n%s", b.String())
	}
}
