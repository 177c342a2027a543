package prose

import (
	"slices"
	"strings"
	"testing"
)

func TestSentences(t *testing.T) {
	tests := []struct {
		name string
		f    Format
		in   string
		want []string
	}{
		{"numbers and names do not split", Text,
			"each filter adds 1.5 ns/op [1.2, 3.4] (e.g. in run.json). The next one.\n",
			[]string{"each filter adds 1.5 ns/op [1.2, 3.4] (e.g. in run.json).", "The next one."}},
		{"wrapped text continues, tables drop", Text,
			"per-filter: on: 1.0 ns\n  [0.9, 1.1]\nverdict: small\n\nvariant  filters  ns/op\non       1        3.0\n",
			[]string{"per-filter: on: 1.0 ns [0.9, 1.1]", "verdict: small"}},
		{"markdown", Markdown,
			"# Title\n\n- **[cache](x.md#cache)**: `getpid` is cached. Second.\n| a | b |\n|---|---|\n\n```\ncode. Code.\n```\nplain\nwrapped.\n",
			[]string{"Title", "cache: getpid is cached.", "Second.", "plain wrapped."}},
		{"html", HTML,
			"<html><head><style>p{}</style></head><body><h2>What it means</h2><ul><li><strong>on</strong>: one. Two &amp; three.</li></ul><table><tr><td>x. Y.</td></tr></table><p>last</p></body></html>",
			[]string{"What it means", "on: one.", "Two & three.", "last"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Sentences(tt.in, tt.f)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Sentences =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestLong(t *testing.T) {
	long := strings.Repeat("word ", 41) + "end."
	got := Long("Short one. "+long+" Short two.", Text)
	if len(got) != 1 || got[0] != long {
		t.Errorf("Long = %q, want the %d-character sentence", got, len(long))
	}
	if got := Long(strings.Repeat("a  b  c  ", 40), Text); got != nil {
		t.Errorf("a table row counted as a sentence: %q", got)
	}
}
