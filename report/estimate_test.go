package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/report/internal/text"
)

// TestEstimateNumberFormats: a value and its CI bounds share unit and
// decimals, an absolute error has no sign, counts of one are singular.
func TestEstimateNumberFormats(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	tests := []struct {
		name, got, want string
	}{
		{"ms with CI", text.Est(26.05e6, f(24.6e6), f(27.49e6), text.NsFormatter(26.05e6)), "26.05 ms [24.60 ms, 27.49 ms]"},
		{"µs with CI", text.Est(25.96e3, f(24.99e3), f(26.9e3), text.NsFormatter(25.96e3)), "25.96 µs [24.99 µs, 26.90 µs]"},
		{"bound in a larger unit", text.Est(950e3, f(900e3), f(1.05e6), text.NsFormatter(950e3)), "950.0 µs [900.0 µs, 1050.0 µs]"},
		{"ns", text.Ns(35.5), "35.5 ns"},
		{"zero", text.Ns(0), "0 ns"},
		{"seconds", text.Ns(2.5e9), "2.50 s"},
		{"percent with CI", text.Est(0.8, f(0.776), f(0.836), text.PctFormatter(0.8)), "0.800% [0.776%, 0.836%]"},
		{"negative zero", text.NsShort(-0.04), "0.0"},
		{"negative zero bound", text.Est(12, f(-0.2), f(24), text.NsFormatter(12)), "12.0 ns [-0.2 ns, 24.0 ns]"},
		{"mean |error|", text.UnsignedPct(f(7.1)), "7.1%"},
		{"signed error", text.SignedPct(f(7.1)), "+7.1%"},
		{"negative error", text.SignedPct(f(-26.4)), "-26.4%"},
		{"signed zero", text.SignedPct(f(-0.01)), "+0.0%"},
		{"one filter", text.Plural(1, "filter"), "1 filter"},
		{"filters", text.Plural(int64(32), "filter"), "32 filters"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}

// TestFmtCost: a cost's interval reaching below 0 shows from 0 and says
// it is not resolved; one above 0 prints as is.
func TestFmtCost(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	tests := []struct {
		c, lo, hi float64
		want      string
	}{
		{16.2, -0.05, 32.51, "16.2 [0, 32.5] (not resolved from 0: the interval reaches -0.1)"},
		{16.2, 1.5, 32.51, "16.2 [1.5, 32.5]"},
	}
	for _, tt := range tests {
		if got := text.Cost(tt.c, f(tt.lo), f(tt.hi), text.NsShort); got != tt.want {
			t.Errorf("fmtCost(%v, %v, %v) = %q, want %q", tt.c, tt.lo, tt.hi, got, tt.want)
		}
	}
}

// A long policy name is shortened in the middle, but a parenthesized note
// at its end stays whole.
func TestElidePolicyName(t *testing.T) {
	name := "/usr/lib/systemd/system/systemd-logind.service (systemd unit: stack of 29 filters)"
	got := text.ElidePolicyName(name, 30)
	if !strings.HasSuffix(got, " (systemd unit: stack of 29 filters)") || !strings.Contains(got, "…") || !strings.HasSuffix(strings.TrimSuffix(got, " (systemd unit: stack of 29 filters)"), "systemd-logind.service") {
		t.Errorf("elidePolicyName = %q", got)
	}
	if got := text.ElidePolicyName("short.json", 30); got != "short.json" {
		t.Errorf("short name changed: %q", got)
	}
	if got := text.ElidePolicyName("/a/very/long/path/to/a/policy/file/profile.json", 20); !strings.HasSuffix(got, "profile.json") || len([]rune(got)) > 20 {
		t.Errorf("plain path: %q", got)
	}
}

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
