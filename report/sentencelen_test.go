package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sentence "github.com/seccompbench/seccompbench/internal/prose"
	"github.com/seccompbench/seccompbench/report/document"
)

// TestSentenceLength (issue #46): no sentence of any committed output
// (golden files, docs/examples) and of any renderer's output, text
// (default and --explain), Markdown and HTML, over every committed run,
// compare, fleet, estimate and inspect fixture is longer than
// MaxSentence characters. Tables and aligned fields are not
// sentences (sentence.Sentences).
func TestSentenceLength(t *testing.T) {
	if MaxSentence != sentence.MaxSentence {
		t.Fatalf("report.MaxSentence %d, the test's limit %d", MaxSentence, sentence.MaxSentence)
	}
	outputs := map[string]string{}
	check := func(name string, f sentence.Format, out string) {
		t.Helper()
		outputs[name] = out
		for _, s := range sentence.Long(out, f) {
			t.Errorf("%s: sentence of %d characters (at most %d):\n%s", name, len([]rune(s)), MaxSentence, s)
		}
	}
	render := func(name string, fn func(*bytes.Buffer) error) string {
		t.Helper()
		var b bytes.Buffer
		if err := fn(&b); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return b.String()
	}

	// The committed outputs.
	var files []string
	for _, glob := range []string{"testdata/golden/*", "../docs/examples/*", "../docs/examples/*/*"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	for _, p := range files {
		var f sentence.Format
		switch filepath.Ext(p) {
		case ".txt":
			f = sentence.Text
		case ".md":
			f = sentence.Markdown
		case ".html":
			f = sentence.HTML
		default:
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		check(p, f, string(b))
	}

	// Run documents in every renderer.
	docs := headlineFixtures(t)
	var fleet []document.FleetEntry
	runFiles, _ := filepath.Glob("../docs/examples/fleet/*.json")
	runFiles = append(runFiles, "testdata/run-schema2.json")
	for _, p := range runFiles {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		d, err := ReadJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		docs[p] = d
	}
	for name, d := range docs {
		check(name+" text", sentence.Text, render(name, func(b *bytes.Buffer) error { return WriteTable(b, d) }))
		check(name+" text --explain", sentence.Text, render(name, func(b *bytes.Buffer) error { return WriteText(b, d, TextOptions{Explain: true}) }))
		check(name+" markdown", sentence.Markdown, render(name, func(b *bytes.Buffer) error { return WriteMarkdown(b, d) }))
		check(name+" html", sentence.HTML, render(name, func(b *bytes.Buffer) error { return WriteHTML(b, d, HTMLCharts{}) }))
		if !strings.Contains(name, "schema2") {
			fleet = append(fleet, document.FleetEntry{Name: name, Doc: d})
		}
	}

	// compare over the example results, and the fleet report over all.
	c, err := Compare([]document.NamedDocument{{Name: "run.json", Doc: docs["run.json"]}, {Name: "minimal.json", Doc: docs["minimal.json"]}}, document.CompareOptions{Confidence: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	check("compare text", sentence.Text, render("compare", func(b *bytes.Buffer) error { return WriteComparisonTable(b, c) }))
	check("compare text --explain", sentence.Text, render("compare", func(b *bytes.Buffer) error { return WriteComparisonText(b, c, TextOptions{Explain: true}) }))
	check("compare markdown", sentence.Markdown, render("compare", func(b *bytes.Buffer) error { return WriteComparisonMarkdown(b, c) }))
	check("compare html", sentence.HTML, render("compare", func(b *bytes.Buffer) error { return WriteComparisonHTML(b, c, HTMLCharts{}) }))
	fl, err := BuildFleet(fleet)
	if err != nil {
		t.Fatal(err)
	}
	check("fleet text", sentence.Text, render("fleet", func(b *bytes.Buffer) error { return WriteFleetTable(b, fl) }))
	check("fleet text --explain", sentence.Text, render("fleet", func(b *bytes.Buffer) error { return WriteFleetText(b, fl, TextOptions{Explain: true}) }))
	check("fleet markdown", sentence.Markdown, render("fleet", func(b *bytes.Buffer) error { return WriteFleetMarkdown(b, fl) }))
	check("fleet html", sentence.HTML, render("fleet", func(b *bytes.Buffer) error { return WriteFleetHTML(b, fl, HTMLCharts{}) }))

	// Estimates.
	for _, fx := range []string{"estimate.json", "estimate-validate.json", "estimate-command.json"} {
		var e document.Estimate
		readFixture(t, fx, &e)
		check(fx+" text", sentence.Text, render(fx, func(b *bytes.Buffer) error { WriteEstimateText(b, &e, 15); return nil }))
		check(fx+" text --explain", sentence.Text, render(fx, func(b *bytes.Buffer) error { WriteEstimateTextOpts(b, &e, 15, TextOptions{Explain: true}); return nil }))
		check(fx+" markdown", sentence.Markdown, render(fx, func(b *bytes.Buffer) error { return WriteEstimateMarkdown(b, &e, 15) }))
		check(fx+" html", sentence.HTML, render(fx, func(b *bytes.Buffer) error { return WriteEstimateHTML(b, &e, 15, HTMLCharts{}) }))
	}

	// inspect.
	var in document.InspectDoc
	readFixture(t, "inspect.json", &in)
	check("inspect.json text", sentence.Text, render("inspect", func(b *bytes.Buffer) error {
		for _, p := range in.Processes {
			WriteInspectText(b, p, true)
		}
		return nil
	}))

	// The splitter must see the prose: each run renderer's output holds
	// sentences, and the meaning of the golden fixture is among them.
	for _, name := range []string{"fixture markdown", "fixture html", "fixture text --explain"} {
		n := len(sentence.Sentences(outputs[name], formatOf(name)))
		if n < 10 {
			t.Errorf("%s: only %d sentences found; the splitter misses the prose", name, n)
		}
	}
}

// formatOf is the prose format of a TestSentenceLength output name.
func formatOf(name string) sentence.Format {
	switch {
	case strings.HasSuffix(name, "markdown"):
		return sentence.Markdown
	case strings.HasSuffix(name, "html"):
		return sentence.HTML
	}
	return sentence.Text
}
