package report

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/report/internal/text"
)

// pageText is the text of an HTML page, a space before every element
// but <wbr> so that table cells do not run together.
func pageText(t *testing.T, page []byte) string {
	t.Helper()
	root, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatalf("parse html: %v", err)
	}
	var b strings.Builder
	for n := range root.Descendants() {
		switch {
		case n.Type == html.TextNode && (n.Parent == nil || n.Parent.Data != "style"):
			b.WriteString(n.Data)
		case n.Type == html.ElementNode && n.Data != "wbr":
			b.WriteString(" ")
		}
	}
	return b.String()
}

// figureRE matches a figure as the writers print one: digits with an
// optional sign and decimals ("-50.0", "+0.00", "998.7", "95").
var figureRE = regexp.MustCompile(`[-+]?\d+(?:\.\d+)?`)

// missingFigures are the figures of text that md does not have as often,
// in the order text has them.
func missingFigures(text, md string) []string {
	have := map[string]int{}
	for _, f := range figureRE.FindAllString(md, -1) {
		have[f]++
	}
	var out []string
	for _, f := range figureRE.FindAllString(text, -1) {
		if have[f] == 0 {
			out = append(out, f)
			continue
		}
		have[f]--
	}
	return out
}

// The check itself: a figure the Markdown lacks, or has fewer times than
// the text, is reported; one it has is not.
func TestMissingFigures(t *testing.T) {
	if got := missingFigures("per filter 19.98 [19.80, 20.16]", "| 19.98 | [19.80, 20.16] |"); got != nil {
		t.Errorf("same figures: got %q missing, want none", got)
	}
	if got := missingFigures("p 0.015, -50.0 and -50.0", "p 0.012, -50.0"); !slices.Equal(got, []string{"0.015", "-50.0"}) {
		t.Errorf("got %q missing, want [0.015 -50.0]", got)
	}
}

// sectionsCase is one command's output in every format.
type sectionsCase struct {
	name                   string
	text, explain, md, web func(*bytes.Buffer) error
}

// sectionsCases are compare (two and three results, cells missing on one
// side), report (with a result without fits and mixed confidence
// levels) and estimate (both fixtures, one with --command), each in
// default text, --explain text, Markdown and HTML.
func sectionsCases(t *testing.T) []sectionsCase {
	a, b, c := fixtureDoc(t, 0), fixtureDoc(t, -50), fixtureDoc(t, 10)
	c.Results = c.Results[:len(c.Results)-1]
	var out []sectionsCase
	for _, docs := range [][]document.NamedDocument{{{Name: "a.json", Doc: a}, {Name: "b.json", Doc: b}}, {{Name: "a.json", Doc: a}, {Name: "b.json", Doc: b}, {Name: "c.json", Doc: c}}} {
		cmp, err := Compare(docs, document.CompareOptions{Confidence: 0.95})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, sectionsCase{"compare " + text.Plural(len(docs), "result"),
			func(w *bytes.Buffer) error { return WriteComparisonText(w, cmp, TextOptions{}) },
			func(w *bytes.Buffer) error { return WriteComparisonText(w, cmp, TextOptions{Explain: true}) },
			func(w *bytes.Buffer) error { return WriteComparisonMarkdown(w, cmp) },
			func(w *bytes.Buffer) error { return WriteComparisonHTML(w, cmp, HTMLCharts{}) }})
	}
	entries := fleetFixture(t)
	nofit := fixtureDoc(t, 0)
	nofit.Fits, nofit.Config.Confidence = nil, 0.9
	entries = append(entries, document.FleetEntry{Name: "nofit.json", Doc: nofit})
	entries[2].Doc.Config.Confidence = 0.99
	fl, err := BuildFleet(entries)
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, sectionsCase{"report",
		func(w *bytes.Buffer) error { return WriteFleetText(w, fl, TextOptions{}) },
		func(w *bytes.Buffer) error { return WriteFleetText(w, fl, TextOptions{Explain: true}) },
		func(w *bytes.Buffer) error { return WriteFleetMarkdown(w, fl) },
		func(w *bytes.Buffer) error { return WriteFleetHTML(w, fl, HTMLCharts{}) }})
	for _, fx := range []string{"estimate.json", "estimate-validate.json"} {
		e := new(document.Estimate)
		readFixture(t, fx, e)
		if e.Validation != nil {
			e.Validation.EstimateCommand = &document.EstimateCommand{Argv: []string{"find", "/usr"}, Filters: 4, Variant: "defeat", Trials: 10, RunsPerChild: 2,
				BaselineRunNs: 150e6, PredictedAddedNs: 39e6, PredictedCILowNs: 36e6, PredictedCIHighNs: 42e6, CalibrationCILowNs: 37e6, CalibrationCIHighNs: 41e6,
				SyscallsAddedNs: 38e6, ProcessAddedNs: 1e6, ProcessCILowNs: 0.5e6, ProcessCIHighNs: 1.5e6, ProcessProbe: "/bin/true",
				MeasuredAddedNs: 50e6, MeasuredCILowNs: 36e6, MeasuredCIHighNs: 64e6, Ratio: 0.78, ErrorPct: -22, CPURatio: 1.1, CPUErrorPct: 10,
				InstallNs: 1.2e6, InstallShare: 1.2 / 51.2, Dominant: "running", DominantClear: true}
		}
		out = append(out, sectionsCase{"estimate " + fx,
			func(w *bytes.Buffer) error { WriteEstimateText(w, e, 3); return nil },
			func(w *bytes.Buffer) error { WriteEstimateTextOpts(w, e, 3, TextOptions{Explain: true}); return nil },
			func(w *bytes.Buffer) error { return WriteEstimateMarkdown(w, e, 3) },
			func(w *bytes.Buffer) error { return WriteEstimateHTML(w, e, 3, HTMLCharts{}) }})
	}
	return out
}

// TestSectionsAgree: compare, report and estimate render text, Markdown
// and HTML from one list of sections each, so every figure of the
// default text is in the --explain text (nothing lost, only moved),
// every figure of the --explain text is in the Markdown, and every
// figure of the Markdown is on the HTML page, at least as often. A
// figure added to one format only, or formatted differently in two,
// fails here.
func TestSectionsAgree(t *testing.T) {
	for _, tt := range sectionsCases(t) {
		t.Run(tt.name, func(t *testing.T) {
			var out [4]bytes.Buffer
			for i, write := range []func(*bytes.Buffer) error{tt.text, tt.explain, tt.md, tt.web} {
				if err := write(&out[i]); err != nil {
					t.Fatal(err)
				}
			}
			page := pageText(t, out[3].Bytes())
			md := strings.NewReplacer(`\|`, "|", `\_`, "_", `\*`, "*", "&lt;", "<", "&gt;", ">").Replace(out[2].String())
			for _, p := range []struct{ from, to, a, b string }{
				{"default text", "--explain text", out[0].String(), out[1].String()},
				{"--explain text", "Markdown", out[1].String(), md},
				{"Markdown", "HTML", md, page},
			} {
				if miss := missingFigures(p.a, p.b); len(miss) > 0 {
					t.Errorf("figures of the %s missing from the %s: %q\n--- %s ---\n%s\n--- %s ---\n%s", p.from, p.to, miss, p.from, p.a, p.to, p.b)
				}
			}
		})
	}
}
