package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/internal/golden"
	"github.com/seccompbench/seccompbench/report/document"
)

// Each conclusion sentence is printed only when its interval supports it.
func TestControlConclusion(t *testing.T) {
	for _, tt := range []struct {
		name              string
		center, low, high float64
		want, mustNotSay  string
	}{
		{"within noise band", -1, -2, 3, "no mitigation slowdown detected", "inconclusive"},
		{"issue 17: CI [-59 %, +81 %]", 11, -59, 81, "inconclusive: the interval is too wide", "no mitigation slowdown"},
		{"above the noise band", 50, 40, 60, "a mitigation's cost", "inconclusive"},
		{"slowdown reaching into the band", 9, 1.3, 17, "reaches into the ±15 %", "mitigation's cost"},
		{"faster after installing", -40, -50, -30, "cannot answer", "no mitigation slowdown"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := controlConclusion(document.Control{SlowdownPct: tt.center, SlowdownPctLow: tt.low, SlowdownPctHigh: tt.high}, "Vulnerable", 6).Text()
			if !strings.Contains(got, tt.want) || strings.Contains(got, tt.mustNotSay) {
				t.Errorf("got %q, want it to say %q and not %q", got, tt.want, tt.mustNotSay)
			}
		})
	}
}

func TestPerFilterAndEntryConclusion(t *testing.T) {
	for _, tt := range []struct {
		name       string
		fit        document.Fit
		want       []string
		mustNotSay string
	}{
		{"cached, ~0", document.Fit{PerFilterNs: 0.3, PerFilterCILowNs: -0.2, PerFilterCIHighNs: 0.8, BaselineNs: 1000, N: 40, R2: 0.2},
			[]string{"per-filter cost ~0 ns"}, "inconclusive"},
		{"each filter adds", document.Fit{PerFilterNs: 20, PerFilterCILowNs: 19, PerFilterCIHighNs: 21, EntryNs: 200, EntryCILowNs: 190, EntryCIHighNs: 210, BaselineNs: 1000, N: 40, R2: 0.9},
			[]string{"each filter adds 20.0 ns", "turning filtering on costs 200 ns"}, "cannot answer"},
		{"wide interval", document.Fit{PerFilterNs: -4.65, PerFilterCILowNs: -80.48, PerFilterCIHighNs: 71.19, BaselineNs: 1985, N: 30, R2: 0.01},
			[]string{"inconclusive", "would have to shrink", "--trials", "quieter CPU"}, "~0"},
		{"issue 17: negative entry, R² 0.005", document.Fit{PerFilterNs: 3, PerFilterCILowNs: 1, PerFilterCIHighNs: 5, EntryNs: -70, EntryCILowNs: -120, EntryCIHighNs: -20, BaselineNs: 900, N: 40, R2: 0.005},
			[]string{"entry term came out negative", "cannot answer what turning filtering on costs", "explains 0.5 %"}, "costs -70"},
		{"negative per-filter", document.Fit{PerFilterNs: -9, PerFilterCILowNs: -12, PerFilterCIHighNs: -6, BaselineNs: 900, N: 40},
			[]string{"came out negative", "cannot answer what a filter costs"}, "adds"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e, _ := entryConclusion(tt.fit, 0.95, 6)
			// Each fact is a sentence of its own, capitalised.
			got := strings.Join(renderClauses([]Clause{perFilterConclusion(tt.fit, 0.95, 6), e}), " ")
			for _, w := range tt.want {
				if !strings.Contains(strings.ToLower(got), strings.ToLower(w)) {
					t.Errorf("got %q, want it to say %q", got, w)
				}
			}
			if strings.Contains(got, tt.mustNotSay) {
				t.Errorf("got %q, must not say %q", got, tt.mustNotSay)
			}
		})
	}
}

// inconclusiveDoc is fixtureDoc as a noisy machine measures it: wide
// intervals everywhere, a negative entry and negative "on" overheads, the
// issue's control-loop CI.
func inconclusiveDoc(t *testing.T) *document.Document {
	d := fixtureDoc(t, 0)
	for i := range d.Fits {
		f := &d.Fits[i]
		f.PerFilterCILowNs, f.PerFilterCIHighNs = f.PerFilterNs-40, f.PerFilterNs+40
		f.EntryNs, f.EntryCILowNs, f.EntryCIHighNs, f.R2 = -70, -120, -20, 0.005
	}
	for i := range d.Results {
		r := &d.Results[i]
		if r.Variant == "on" && r.Filters == 4 {
			r.OverheadNs, r.OverheadCILowNs, r.OverheadCIHighNs, r.OverheadPct = -150, -200, -100, -15
		}
	}
	d.Control = []document.Control{{Variant: "defeat", BeforeNs: 1, AfterNs: 1.11, SlowdownPct: 11, SlowdownPctLow: -59, SlowdownPctHigh: 81}}
	d.Meaning = Explain(d)
	return d
}

// Golden tests for both wordings: a run whose intervals support its
// conclusions, and one whose intervals do not.
func TestWordingGolden(t *testing.T) {
	for _, tt := range []struct {
		name string
		doc  func(*testing.T) *document.Document
	}{
		{"wording-conclusive", func(t *testing.T) *document.Document { return fixtureDoc(t, 0) }},
		{"wording-inconclusive", inconclusiveDoc},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := tt.doc(t)
			var txt, md bytes.Buffer
			if err := WriteText(&txt, d, TextOptions{Explain: true}); err != nil {
				t.Fatal(err)
			}
			if err := WriteMarkdown(&md, d); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, tt.name+".txt", txt.Bytes())
			golden.Check(t, tt.name+".md", md.Bytes())
		})
	}
	d := inconclusiveDoc(t)
	var txt bytes.Buffer
	WriteText(&txt, d, TextOptions{Explain: true})
	for _, overclaim := range []string{"no mitigation slowdown detected", "per-filter cost ~0", "costs -70", "the kernel's action cache skips the filters"} {
		if strings.Contains(txt.String(), overclaim) {
			t.Errorf("inconclusive report says %q", overclaim)
		}
	}
	if got := NegativeCells(d); len(got) != 1 || !strings.Contains(got[0], "4 filters -15.0 %") {
		t.Errorf("NegativeCells = %q, want the on cell at 4 filters", got)
	}
}
