package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/seccompbench/seccompbench/report/document"
)

// checkWidth fails on every line of out wider than TextWidth characters
// (runes, not bytes: µ and × count once).
func checkWidth(t *testing.T, name, out string) {
	t.Helper()
	for i, l := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(l); n > TextWidth {
			t.Errorf("%s: line %d is %d characters, want at most %d:\n%s", name, i+1, n, TextWidth, l)
		}
	}
}

// TestEstimateTextWidth: the default estimate text of every committed
// estimate fixture, all rows shown, is within TextWidth columns.
func TestEstimateTextWidth(t *testing.T) {
	for _, fx := range []string{"estimate.json", "estimate-validate.json"} {
		var e document.Estimate
		readFixture(t, fx, &e)
		for _, top := range []int{0, 3} {
			var b bytes.Buffer
			WriteEstimateText(&b, &e, top)
			checkWidth(t, fmt.Sprintf("%s --top %d", fx, top), b.String())
		}
	}
}

// TestEstimateExplainKeepsColumns: what the default estimate table leaves
// out (the CACHED and INSNS columns) is in the --explain table.
func TestEstimateExplainKeepsColumns(t *testing.T) {
	var e document.Estimate
	readFixture(t, "estimate.json", &e)
	var def, ex bytes.Buffer
	WriteEstimateText(&def, &e, 0)
	WriteEstimateTextOpts(&ex, &e, 0, TextOptions{Explain: true})
	for _, col := range []string{"CACHED", "INSNS", "ADDED ns/CALL"} {
		if strings.Contains(def.String(), col) {
			t.Errorf("default table has %s", col)
		}
		if !strings.Contains(ex.String(), col) {
			t.Errorf("--explain table lacks %s", col)
		}
	}
}

// TestFleetAndCompareTextWidth: the default report (fleet) text over the
// committed examples and the default compare text of every pair of them
// are within TextWidth columns.
func TestFleetAndCompareTextWidth(t *testing.T) {
	var entries []document.FleetEntry
	paths, err := filepath.Glob(filepath.Join("..", "docs", "examples", "fleet", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"run.json", "minimal.json", "getpid.json"} {
		paths = append(paths, filepath.Join("..", "docs", "examples", n))
	}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		d, err := ReadJSON(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		entries = append(entries, document.FleetEntry{Name: filepath.Base(p), Doc: d})
	}
	// a long result name, as a path given on the command line
	entries = append(entries, document.FleetEntry{Name: "/var/lib/results/2026-12-01/very-long-host-name/getpid.json", Doc: entries[len(entries)-1].Doc})
	fl, err := BuildFleet(entries)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteFleetTable(&b, fl); err != nil {
		t.Fatal(err)
	}
	checkWidth(t, "report", b.String())
	for _, a := range entries {
		for _, c := range entries {
			cmp, err := Compare([]document.NamedDocument{{Name: a.Name, Doc: a.Doc}, {Name: c.Name, Doc: c.Doc}}, document.CompareOptions{Confidence: 0.95})
			if err != nil {
				continue // different workloads do not compare; the pairs that do are checked
			}
			var b bytes.Buffer
			if err := WriteComparisonTable(&b, cmp); err != nil {
				t.Fatal(err)
			}
			checkWidth(t, "compare "+a.Name+" "+c.Name, b.String())
		}
	}
}
