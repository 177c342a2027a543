package report

import (
	"slices"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/report/document"
)

func TestFacts(t *testing.T) {
	got := facts("a (x; y) b; c [1; 2]; d")
	want := []string{"a (x; y) b", "c [1; 2]", "d"}
	if !slices.Equal(got, want) {
		t.Errorf("facts = %q, want %q", got, want)
	}
}

func TestAsSentence(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"each filter adds 2 ns", "Each filter adds 2 ns."},
		{"per-filter cost ~0 ns.", "Per-filter cost ~0 ns."},
		{"getpid is cached", "getpid is cached."}, // a code word
		{"run.json: its intervals", "run.json: its intervals."},
		{"--target-ci 3 adds blocks", "--target-ci 3 adds blocks."},
	} {
		if got := asSentence(tt.in, "getpid"); got != tt.want {
			t.Errorf("asSentence(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestShortSentences(t *testing.T) {
	short := "label: one; two"
	if got := shortSentences(short); got != short {
		t.Errorf("a short line changed: %q", got)
	}
	long := "label: " + strings.Repeat("a ", 90) + "end; the second fact (x; y); getpid third"
	got := shortSentences(long, "getpid")
	want := "label: " + strings.Repeat("a ", 90) + "end. The second fact (x; y). getpid third."
	if got != want {
		t.Errorf("shortSentences =\n%q\nwant\n%q", got, want)
	}
	if got := shortSentencesAfter(strings.Repeat("x", 195), "one; two"); got != "one. Two." {
		t.Errorf("the label does not count: %q", got)
	}
}

// TestMeaningLayout: up to MaxInlineFacts sentences run on one line, more
// are a list in text, Markdown and HTML.
func TestMeaningLayout(t *testing.T) {
	m := document.Meaning{Sentences: []string{"One.", "Two.", "Three."}, Text: "One. Two. Three."}
	if inline, items := meaningLayout(m); inline != m.Text || items != nil {
		t.Errorf("three facts: %q, %q", inline, items)
	}
	m.Sentences = append(m.Sentences, "Four.")
	if inline, items := meaningLayout(m); inline != "" || len(items) != 4 {
		t.Errorf("four facts: %q, %q", inline, items)
	}
	html := string(mdToHTML("- **on** (x):\n  - One.\n  - Two.\n- **defeat** (y): Three.\n"))
	want := "<ul>\n<li><strong>on</strong> (x):\n<ul>\n<li>One.</li>\n<li>Two.</li>\n</ul>\n</li>\n<li><strong>defeat</strong> (y): Three.</li>\n</ul>\n"
	if html != want {
		t.Errorf("nested list:\n%s\nwant\n%s", html, want)
	}
	d := fixtureDoc(t, 0)
	d.Meaning = []document.Meaning{{Variant: "on", Sentences: m.Sentences, Text: "One. Two. Three. Four."}}
	var b strings.Builder
	tableNotes(&errWriter{w: &b}, d)
	if !strings.Contains(b.String(), "on:\n  - One.\n  - Two.\n  - Three.\n  - Four.\n") {
		t.Errorf("text meaning is no list:\n%s", b.String())
	}
}
