package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/report/document"
)

// The legend's "[ ]" stays whole however a headline line wraps: no line
// ends in "([" or starts with "]:".
func TestHeadlineLegendNeverSplits(t *testing.T) {
	for pad := 0; pad < 40; pad++ {
		var b strings.Builder
		ew := &errWriter{w: &b}
		writeHeadlineLines(ew, []HeadlineLine{{Label: "verdict", Text: strings.Repeat("x", 50+pad) + " word word ([ ]: 95% CI; labels: see docs/reading-results.md; --explain)"}})
		for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
			l = strings.TrimSpace(l)
			if strings.HasSuffix(l, "([") || strings.HasPrefix(l, "]:") || strings.Contains(l, "\x00") {
				t.Fatalf("pad %d: the legend split or leaked its placeholder:\n%s", pad, b.String())
			}
		}
		if !strings.Contains(b.String(), "([ ]:") {
			t.Fatalf("pad %d: legend lost:\n%s", pad, b.String())
		}
	}
}

// An inconclusive as-installed cost still lets a resolved uncached one
// through.
func TestRunVerdictInconclusiveKeepsUncached(t *testing.T) {
	d := &document.Document{Fits: []document.Fit{
		{Variant: "on", PerFilterNs: 0.5, PerFilterCILowNs: -8, PerFilterCIHighNs: 9, BaselineNs: 100},
		{Variant: "defeat", PerFilterNs: 64.8, PerFilterCILowNs: 49.9, PerFilterCIHighNs: 79.6, BaselineNs: 100},
	}}
	got := runVerdict(d)
	if !strings.HasPrefix(got, "as installed, inconclusive") || !strings.Contains(got, "uncached, +64.8 ns/op per filter") {
		t.Errorf("runVerdict = %q", got)
	}
}

// A subset finding on x86_64's uretprobe or uprobe says the kernel may
// pass it without filtering; other findings, and other ABIs' same
// numbers, say nothing of the kind.
func TestSubsetUprobeNote(t *testing.T) {
	for _, tt := range []struct {
		arch, name string
		want       bool
	}{{"x86_64", "uprobe", true}, {"x86_64", "uretprobe", true}, {"x86_64", "keyctl", false}, {"x32", "uprobe", false}} {
		f := document.SubsetFinding{EquivCounterexample: document.EquivCounterexample{Arch: tt.arch, Name: tt.name}}
		if got := uprobeNote(f) != ""; got != tt.want {
			t.Errorf("%s %s: note %v, want %v", tt.arch, tt.name, got, tt.want)
		}
	}
}

// TestEstimatePartialMarked: an estimate cut short while measuring the
// command says so first in text and Markdown and in JSON; a whole one
// carries neither the line nor the key.
func TestEstimatePartialMarked(t *testing.T) {
	var e document.Estimate
	readFixture(t, "estimate.json", &e)
	for _, partial := range []bool{false, true} {
		e.Partial = partial
		var txt, md, js bytes.Buffer
		WriteEstimateText(&txt, &e, 3)
		if err := WriteEstimateMarkdown(&md, &e, 3); err != nil {
			t.Fatal(err)
		}
		if err := WriteEstimateJSON(&js, &e); err != nil {
			t.Fatal(err)
		}
		mark := "*** " + EstimatePartialText + " ***"
		if got := strings.HasPrefix(txt.String(), mark); got != partial {
			t.Errorf("partial %v: text starts with the mark: %v\n%s", partial, got, txt.String())
		}
		if got := strings.Contains(md.String(), EstimatePartialText); got != partial {
			t.Errorf("partial %v: Markdown holds the mark: %v", partial, got)
		}
		if got := strings.Contains(js.String(), `"partial": true`); got != partial {
			t.Errorf("partial %v: JSON holds \"partial\": true: %v", partial, got)
		}
	}
}
