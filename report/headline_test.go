package report

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/seccompbench/seccompbench/report/document"
)

// headlineFixtures are committed run results: the golden fixture and the
// measured examples of docs/examples.
func headlineFixtures(t *testing.T) map[string]*document.Document {
	t.Helper()
	out := map[string]*document.Document{"fixture": fixtureDoc(t, 0), "inconclusive": inconclusiveDoc(t)}
	for _, name := range []string{"run.json", "minimal.json", "getpid.json"} {
		f, err := os.Open(filepath.Join("..", "docs", "examples", name))
		if err != nil {
			t.Fatal(err)
		}
		d, err := ReadJSON(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = d
	}
	return out
}

// TestRunHeadline: the text output starts with at most MaxHeadlineLines
// lines that hold the answer: the policy, every fit's per-filter figure,
// the deepest cell's overhead and the entry cost, each with its interval.
func TestRunHeadline(t *testing.T) {
	for name, d := range headlineFixtures(t) {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteTable(&b, d); err != nil {
				t.Fatal(err)
			}
			head, _, _ := strings.Cut(b.String(), "\n\n")
			lines := strings.Split(head, "\n")
			if len(lines) > MaxHeadlineLines {
				t.Errorf("headline is %d lines, want at most %d:\n%s", len(lines), MaxHeadlineLines, head)
			}
			flat := strings.Join(strings.Fields(head), " ")
			want := []string{d.Config.Policies[0].Path, "verdict: "}
			for _, f := range d.Fits {
				want = append(want, estText(false, f.PerFilterNs, f.PerFilterCILowNs, f.PerFilterCIHighNs),
					estText(false, f.EntryNs, f.EntryCILowNs, f.EntryCIHighNs))
				c := deepestCell(d, f.Variant, f.Loader)
				want = append(want, estText(true, c.OverheadNs, c.OverheadCILowNs, c.OverheadCIHighNs))
				if f.Paired {
					c, _ := relCells(f)
					want = append(want, strings.TrimPrefix(strings.TrimSuffix(c, "x"), "+")+"× bare")
				}
			}
			for _, w := range want {
				if !strings.Contains(flat, w) {
					t.Errorf("headline lacks %q:\n%s", w, head)
				}
			}
		})
	}
}

// TestDefaultTextWidth: no line of the default text output is wider than
// TextWidth characters.
func TestDefaultTextWidth(t *testing.T) {
	for name, d := range headlineFixtures(t) {
		var b bytes.Buffer
		if err := WriteTable(&b, d); err != nil {
			t.Fatal(err)
		}
		for i, l := range strings.Split(b.String(), "\n") {
			if n := utf8.RuneCountInString(l); n > TextWidth {
				t.Errorf("%s: line %d is %d characters, want at most %d:\n%s", name, i+1, n, TextWidth, l)
			}
		}
	}
}

// TestExplainKeepsEverything: every line of the text report as it was
// before the headline (testdata/table-before-headline.txt, the golden
// fixture's output then) is in the --explain output, spacing and sentence
// breaks aside: nothing was lost, only moved. Since each fact is a
// sentence of its own (issue #46), a line is compared fact by fact: cut
// at ", and ", with ".", ";" and ":" before a space and case ignored, so
// "…filter); each filter adds" is found as "…filter). Each filter adds".
func TestExplainKeepsEverything(t *testing.T) {
	old, err := os.ReadFile(filepath.Join("testdata", "table-before-headline.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteText(&b, fixtureDoc(t, 0), TextOptions{Explain: true}); err != nil {
		t.Fatal(err)
	}
	flat := " " + factText(b.String()) + " "
	for _, l := range strings.Split(string(old), "\n") {
		for _, f := range strings.Split(l, ", and ") {
			if f = factText(f); f != "" && !strings.Contains(flat, " "+f+" ") {
				t.Errorf("--explain lost %q (of %q)", f, l)
			}
		}
	}
	var def bytes.Buffer
	if err := WriteTable(&def, fixtureDoc(t, 0)); err != nil {
		t.Fatal(err)
	}
	if def.Len() >= b.Len() {
		t.Errorf("default output (%d bytes) is not shorter than --explain (%d bytes)", def.Len(), b.Len())
	}
}

// TestStackLines: a systemd run names the directives each count adds.
func TestStackLines(t *testing.T) {
	d := fixtureDoc(t, 0)
	d.Config.FilterCounts = []int{0, 1, 4}
	d.Config.FilterNames = []string{"ProtectHostname/x86", "ProtectHostname/x32", "ProtectHostname/x86_64", "RestrictSUIDSGID/x86", "ProtectClock/x86"}
	got := stackLines(d)
	want := []string{"1 filter: ProtectHostname/x86", "4 filters: + ProtectHostname/x32, ProtectHostname/x86_64, RestrictSUIDSGID/x86"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("stackLines = %q, want %q", got, want)
	}
	for name, render := range map[string]func(*bytes.Buffer) error{
		"text":     func(b *bytes.Buffer) error { return WriteTable(b, d) },
		"markdown": func(b *bytes.Buffer) error { return WriteMarkdown(b, d) },
	} {
		var b bytes.Buffer
		if err := render(&b); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "RestrictSUIDSGID/x86") {
			t.Errorf("%s output does not name the directives:\n%s", name, b.String())
		}
	}
	d.Config.FilterNames = nil
	if got := stackLines(d); got != nil {
		t.Errorf("stackLines without names = %q", got)
	}
}

// TestHeadlineLabelsDocumented: every label a headline prints is a
// section of docs/reading-results.md, so each line points somewhere.
func TestHeadlineLabelsDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", ReadingDoc))
	if err != nil {
		t.Fatal(err)
	}
	labels := map[string]bool{}
	for _, d := range headlineFixtures(t) {
		for _, l := range RunHeadline(d) {
			labels[l.Label] = true
		}
	}
	a, b := fixtureDoc(t, 0), fixtureDoc(t, -50)
	b.Config.Policies = []document.Policy{{Path: "other.json"}}
	c, err := Compare([]document.NamedDocument{{Name: "a.json", Doc: a}, {Name: "b.json", Doc: b}}, document.CompareOptions{Confidence: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range CompareHeadline(c) {
		labels[l.Label] = true
	}
	for _, fx := range []string{"estimate.json", "estimate-command.json"} {
		var e document.Estimate
		readFixture(t, fx, &e)
		for _, l := range EstimateHeadline(&e) {
			labels[l.Label] = true
		}
	}
	delete(labels, "note")
	for l := range labels {
		if !strings.Contains(string(doc), "\n### "+l+"\n") {
			t.Errorf("%s has no section \"### %s\" for the headline label", ReadingDoc, l)
		}
	}
	if len(labels) < 7 {
		t.Errorf("only %d labels seen: %v", len(labels), labels)
	}
}

// TestOtherHeadlines: compare, report (fleet) and estimate headlines stay
// within MaxHeadlineLines lines of at most TextWidth characters on the
// committed fixtures.
func TestOtherHeadlines(t *testing.T) {
	fx := headlineFixtures(t)
	c, err := Compare([]document.NamedDocument{{Name: "run.json", Doc: fx["run.json"]}, {Name: "minimal.json", Doc: fx["minimal.json"]}}, document.CompareOptions{Confidence: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	var entries []document.FleetEntry
	for _, n := range []string{"run.json", "minimal.json", "getpid.json"} {
		entries = append(entries, document.FleetEntry{Name: n, Doc: fx[n]})
	}
	fl, err := BuildFleet(entries)
	if err != nil {
		t.Fatal(err)
	}
	for name, lines := range map[string][]HeadlineLine{"compare": CompareHeadline(c), "report": FleetHeadline(fl)} {
		var b bytes.Buffer
		writeHeadlineText(&errWriter{w: &b}, lines)
		got := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		if len(got) > MaxHeadlineLines {
			t.Errorf("%s headline is %d lines:\n%s", name, len(got), b.String())
		}
		for _, l := range got {
			if utf8.RuneCountInString(l) > TextWidth {
				t.Errorf("%s headline line over %d characters: %s", name, TextWidth, l)
			}
		}
	}
}

// TestHeadlineEveryVariantLoader: the run headline stays within
// MaxHeadlineLines lines of at most TextWidth characters for every cache
// variant (on, defeat, both) × loader (one, both) combination, with a
// long policy path, and keeps every fit's figures and the path's base name.
func TestHeadlineEveryVariantLoader(t *testing.T) {
	const long = "/very/long/directory/of/policies/that/nobody/would/type/by/hand/twice/service-hardened.json"
	for _, variants := range [][]string{{"on"}, {"defeat"}, {"on", "defeat"}} {
		for _, loaders := range [][]string{{""}, {"libseccomp", "seccomp"}} {
			name := strings.Join(variants, "+") + "/" + strings.Join(loaders, "+")
			t.Run(name, func(t *testing.T) {
				d := variantLoaderDoc(t, variants, loaders)
				d.Config.Policies[0].Path = long
				var b bytes.Buffer
				if err := WriteTable(&b, d); err != nil {
					t.Fatal(err)
				}
				head, _, _ := strings.Cut(b.String(), "\n\n")
				lines := strings.Split(head, "\n")
				if len(lines) > MaxHeadlineLines {
					t.Errorf("headline is %d lines, want at most %d:\n%s", len(lines), MaxHeadlineLines, head)
				}
				for _, l := range lines {
					if n := utf8.RuneCountInString(l); n > TextWidth {
						t.Errorf("line of %d characters: %s", n, l)
					}
				}
				flat := strings.Join(strings.Fields(head), " ")
				want := []string{"service-hardened.json", "…"}
				for _, f := range d.Fits {
					want = append(want, estText(false, f.PerFilterNs, f.PerFilterCILowNs, f.PerFilterCIHighNs))
					if len(loaders) == 1 {
						// with both loaders and both variants the entry line
						// gives way (foldNote); the table has the figures
						want = append(want, estText(false, f.EntryNs, f.EntryCILowNs, f.EntryCIHighNs))
					}
				}
				for _, w := range want {
					if !strings.Contains(flat, w) {
						t.Errorf("headline lacks %q:\n%s", w, head)
					}
				}
			})
		}
	}
}

// variantLoaderDoc is the golden fixture cut to variants, its fits and
// cells copied once per loader ("" for a single-loader run).
func variantLoaderDoc(t *testing.T, variants, loaders []string) *document.Document {
	d := fixtureDoc(t, 0)
	var fits []document.Fit
	var cells []document.CellResult
	for _, l := range loaders {
		for _, f := range d.Fits {
			if slices.Contains(variants, f.Variant) {
				f.Loader = l
				fits = append(fits, f)
			}
		}
		for _, c := range d.Results {
			if slices.Contains(variants, c.Variant) {
				c.Loader = l
				cells = append(cells, c)
			}
		}
	}
	if len(fits) != len(variants)*len(loaders) {
		t.Fatalf("fixture has %d fits for %v × %v", len(fits), variants, loaders)
	}
	d.Fits, d.Results = fits, cells
	if len(loaders) > 1 {
		d.Config.Loader = "both"
	}
	return d
}

// TestEstimateHeadlineCommand: with --command data the estimate
// headline's first lines after the policy state the predicted added time
// per run as the sum of every part predicted, with its stated interval,
// and the measured one, wall and CPU, with theirs; the direct part is
// labelled "direct"; it stays within MaxHeadlineLines lines of
// TextWidth with every part and a long command.
func TestEstimateHeadlineCommand(t *testing.T) {
	var e document.Estimate
	readFixture(t, "estimate-command.json", &e)
	lines := EstimateHeadline(&e)
	want := []struct{ label, text string }{
		{"policy", "profile strace of `git status` (not kept): 2475 calls"},
		{"predicted", "+1.23 ms [+0.13, +2.33] per run = direct +48.3 µs + per process +1.18 ms"},
		{"measured", "+1.88 ms [-0.51, +4.27] per run of 6.61 ms (wall), CPU user+sys +262 µs [+219, +304]"},
		{"direct", "+48.3 µs [11.2, 85.4] in seccomp, 2475 calls: newfstatat 56%"},
		{"verdict", "predicted interval: wall no verdict (interval holds 0), CPU covered; predicted ÷ measured 0.66 wall, 1.01 CPU"},
	}
	if len(lines) < len(want) {
		t.Fatalf("%d lines: %+v", len(lines), lines)
	}
	for i, w := range want[:4] {
		if lines[i].Label != w.label || !strings.Contains(lines[i].Text, w.text) {
			t.Errorf("line %d = %s: %q, want %s: ...%q...", i, lines[i].Label, lines[i].Text, w.label, w.text)
		}
	}
	if v := lines[len(lines)-2]; v.Label != "verdict" || v.Text != want[4].text {
		t.Errorf("verdict = %+v, want %q", v, want[4].text)
	}
	if n := lines[len(lines)-1]; !strings.HasPrefix(n.Text, "[ ]: 95% CI, predicted's with model error ±115%;") {
		t.Errorf("note = %q, want the model error said", n.Text)
	}
	c := e.Validation.EstimateCommand
	c.GapNs, c.IndirectAddedNs = 2.6e3, 35e3
	c.Argv = strings.Fields("tar -C /very/long/directory/of/sources -czf /another/long/path/archive.tar.gz --exclude=.git .")
	e.Profile.Source = StraceProfileSource(c.Argv)
	lines = EstimateHeadline(&e)
	if !strings.Contains(lines[1].Text, "= direct +48.3 µs + per process +1.18 ms + indirect +35.0 µs") {
		t.Errorf("predicted line lacks the indirect part: %q", lines[1].Text)
	}
	var b bytes.Buffer
	writeHeadlineText(&errWriter{w: &b}, lines)
	got := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(got) > MaxHeadlineLines {
		t.Errorf("headline is %d lines:\n%s", len(got), b.String())
	}
	for _, l := range got {
		if utf8.RuneCountInString(l) > TextWidth {
			t.Errorf("line over %d characters: %s", TextWidth, l)
		}
	}
	if !strings.HasPrefix(got[0], "policy:") || !strings.Contains(b.String(), "\npredicted: ") || !strings.Contains(b.String(), "\nmeasured: ") {
		t.Errorf("predicted and measured lines not at the top:\n%s", b.String())
	}
}

// TestEstimateHeadlineDirect: without --command the headline's figure is
// labelled "direct" (not "total"), says it is the time inside seccomp and
// that the per-process part needs --command, and has no predicted or
// measured line; a clipped interval says so.
func TestEstimateHeadlineDirect(t *testing.T) {
	var e document.Estimate
	readFixture(t, "estimate.json", &e)
	var direct string
	for _, l := range EstimateHeadline(&e) {
		switch l.Label {
		case "total", "predicted", "measured":
			t.Errorf("line %s: %q without --command", l.Label, l.Text)
		case "direct":
			direct = l.Text
		}
	}
	for _, want := range []string{"+24.0 ms [0, 84.5 ms] inside seccomp over 8180 calls (interval clipped at 0 from -36.5 ms: not resolved from 0)",
		"the direct part only: the per-process part needs --command"} {
		if !strings.Contains(direct, want) {
			t.Errorf("direct line %q lacks %q", direct, want)
		}
	}
}

// sentenceBreak is the punctuation a sentence break or a fact's ending
// puts before a space (or the end).
var sentenceBreak = regexp.MustCompile(`[.;:](\s|$)`)

// factText is s for TestExplainKeepsEverything: lower case, sentence
// punctuation dropped, spacing collapsed.
func factText(s string) string {
	s = sentenceBreak.ReplaceAllString(strings.ToLower(s), " ")
	return strings.Join(strings.Fields(s), " ")
}
