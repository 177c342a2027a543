package report

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/stats"
)

// cachedDoc is a document whose every workload syscall the emulator
// predicts cached under variant "on", on kernel release kernel, with fit
// (nil: no fit).
func cachedDoc(kernel string, fit *document.Fit) *document.Document {
	d := &document.Document{
		Config:      document.Config{Variants: []string{"on"}, Workload: "getpid", Confidence: 0.95},
		Environment: result.Environment{Kernel: kernel},
		Cache:       []document.CacheVariant{{Variant: "on", Syscalls: []document.CacheSyscall{{Name: "getpid", Cached: true}}}},
	}
	if fit != nil {
		d.Fits = []document.Fit{*fit}
	}
	return d
}

// TestNoSentenceWithoutMeasurement: a fit or a control comparison with an
// undefined interval yields no conclusion ("~0", "within", "no mitigation
// slowdown"), and the action cache is said to skip the filters only when a
// measured per-filter cost on a kernel with the cache stands behind it;
// the fleet's "cached" label likewise.
func TestNoSentenceWithoutMeasurement(t *testing.T) {
	nan := math.NaN()
	negligible := &document.Fit{Variant: "on", PerFilterNs: 0.1, PerFilterCILowNs: -0.4, PerFilterCIHighNs: 0.6, BaselineNs: 65, R2: 0.1, N: 70,
		EntryNs: nan, EntryCILowNs: nan, EntryCIHighNs: nan, PerFilterRel: nan}
	noCI := &document.Fit{Variant: "on", PerFilterNs: 0.1, PerFilterCILowNs: nan, PerFilterCIHighNs: nan, BaselineNs: 65, R2: nan, N: 4,
		EntryNs: nan, EntryCILowNs: nan, EntryCIHighNs: nan, PerFilterRel: nan}
	tests := []struct {
		name      string
		d         *document.Document
		want      []string
		never     []string
		wantFleet string
	}{
		{"measured negligible on 6.18", cachedDoc("6.18.44", negligible),
			[]string{"the kernel's action cache skips the filters", "Per-filter cost ~0"}, nil, "cached"},
		{"no interval", cachedDoc("6.18.44", noCI),
			[]string{"no interval", "cannot confirm it"}, []string{"skips the filters", "~0", "within ±"}, "cached, unconfirmed"},
		{"no fit", cachedDoc("6.18.44", nil),
			[]string{"cannot confirm it", "Too few filter counts"}, []string{"skips the filters"}, ""},
		{"kernel 5.10", cachedDoc("5.10.0-28-amd64", negligible),
			[]string{"has no action cache"}, []string{"skips the filters"}, "no cache (kernel < 5.11)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms := Explain(tt.d)
			if len(ms) != 1 {
				t.Fatalf("Explain gave %d sentences, want 1: %+v", len(ms), ms)
			}
			got := ms[0].Text
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("sentence lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tt.never {
				if strings.Contains(got, w) {
					t.Errorf("sentence says %q without a measurement behind it:\n%s", w, got)
				}
			}
			if len(tt.d.Fits) > 0 {
				if c := fleetCache(tt.d, &tt.d.Fits[0]); c != tt.wantFleet {
					t.Errorf("fleet cache label %q, want %q", c, tt.wantFleet)
				}
			}
		})
	}
	t.Run("control without interval", func(t *testing.T) {
		for _, c := range []document.Control{
			{Variant: "on", BeforeNs: 0.3, AfterNs: 0.3, SlowdownPct: 0.5, SlowdownPctLow: nan, SlowdownPctHigh: nan},
			{Variant: "on", BeforeNs: nan, AfterNs: nan, SlowdownPct: nan, SlowdownPctLow: nan, SlowdownPctHigh: nan},
		} {
			v := controlConclusion(c, "", 20).Text()
			if strings.Contains(v, "no mitigation slowdown") || strings.Contains(v, "a mitigation's cost") {
				t.Errorf("control %+v: verdict %q concludes without an interval", c, v)
			}
		}
	})
}

// TestBuildKeepsUndefined: Build passes NaN through to Explain and the
// control verdict instead of 0, and the JSON has null there.
func TestBuildKeepsUndefined(t *testing.T) {
	nan := math.NaN()
	res := stats.Result{Fits: []stats.Fit{{Variant: "on", PerFilter: 0.3, PerFilterLo: nan, PerFilterHi: nan, Entry: nan, EntryLo: nan, EntryHi: nan, Baseline: 65, R2: nan, N: 3}}}
	doc := Build(document.Input{
		Config:  document.Config{Variants: []string{"on"}, Workload: "getpid", Confidence: 0.95},
		Result:  res,
		Control: []document.Control{{Variant: "on", BeforeNs: 0.3, AfterNs: 0.3, SlowdownPct: 0, SlowdownPctLow: nan, SlowdownPctHigh: nan}},
	})
	if s := doc.Meaning[0].Text; strings.Contains(s, "~0") || !strings.Contains(s, "no interval") {
		t.Errorf("meaning concludes on an undefined interval: %s", s)
	}
	if v := doc.Control[0].Verdict; v != "control_no_interval" {
		t.Errorf("control verdict concludes on an undefined interval: %s", v)
	}
	var b bytes.Buffer
	if err := WriteJSON(&b, doc); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"per_filter_ci_low_ns": null`, `"slowdown_pct_ci_low": null`, `"schema_version": 3`, `"code": "per_filter_no_interval"`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("JSON lacks %s", want)
		}
	}
}
