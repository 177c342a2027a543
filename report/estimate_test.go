package report

import (
	"bytes"
	"strings"
	"testing"
)

// TestEstimateNumberFormats: a value and its CI bounds share unit and
// decimals, an absolute error has no sign, counts of one are singular.
func TestEstimateNumberFormats(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	tests := []struct {
		name, got, want string
	}{
		{"ms with CI", fmtEst(26.05e6, f(24.6e6), f(27.49e6), nsFormatter(26.05e6)), "26.05 ms [24.60 ms, 27.49 ms]"},
		{"µs with CI", fmtEst(25.96e3, f(24.99e3), f(26.9e3), nsFormatter(25.96e3)), "25.96 µs [24.99 µs, 26.90 µs]"},
		{"bound in a larger unit", fmtEst(950e3, f(900e3), f(1.05e6), nsFormatter(950e3)), "950.0 µs [900.0 µs, 1050.0 µs]"},
		{"ns", fmtNs(35.5), "35.5 ns"},
		{"zero", fmtNs(0), "0 ns"},
		{"seconds", fmtNs(2.5e9), "2.50 s"},
		{"percent with CI", fmtEst(0.8, f(0.776), f(0.836), pctFormatter(0.8)), "0.800% [0.776%, 0.836%]"},
		{"negative zero", nsShort(-0.04), "0.0"},
		{"negative zero bound", fmtEst(12, f(-0.2), f(24), nsFormatter(12)), "12.0 ns [-0.2 ns, 24.0 ns]"},
		{"mean |error|", fmtUnsignedPct(f(7.1)), "7.1%"},
		{"signed error", fmtSignedPct(f(7.1)), "+7.1%"},
		{"negative error", fmtSignedPct(f(-26.4)), "-26.4%"},
		{"signed zero", fmtSignedPct(f(-0.01)), "+0.0%"},
		{"one filter", Plural(1, "filter"), "1 filter"},
		{"filters", Plural(int64(32), "filter"), "32 filters"},
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
		if got := fmtCost(tt.c, f(tt.lo), f(tt.hi), nsShort); got != tt.want {
			t.Errorf("fmtCost(%v, %v, %v) = %q, want %q", tt.c, tt.lo, tt.hi, got, tt.want)
		}
	}
}

// TestEstimatePartialMarked: an estimate cut short while measuring the
// command says so first in text and Markdown and in JSON; a whole one
// carries neither the line nor the key.
func TestEstimatePartialMarked(t *testing.T) {
	var e Estimate
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
