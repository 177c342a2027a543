package report

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/report/document"
)

// The split line states the indirect part only when it is resolved, and
// otherwise says why not; NaNs do not reach the JSON.
func TestCommandDirectText(t *testing.T) {
	c := &document.EstimateCommand{Argv: []string{"find", "/"}, Filters: 16, Variant: "defeat", MeasuredAddedNs: 10e6,
		ProcessProbe: "/bin/true", ProcessAddedNs: 1e6, ProcessCILowNs: 0.5e6, ProcessCIHighNs: 1.5e6,
		Direct: &document.CommandDirect{FrequencyHz: 99, PeriodNs: 1e9 / 99, SampledBlocks: 5, UnsampledBlocks: 5,
			Baseline: document.DirectCell{Runs: 50, Samples: 400}, Stacked: document.DirectCell{Filters: 16, Runs: 50, Samples: 500, Seccomp: 20, Entry: 5, Filter: 15},
			DirectNs: 3e6, DirectCILowNs: 2e6, DirectCIHighNs: 4e6, SamplingCostNs: 0.1e6, SamplingCostCILowNs: -0.1e6, SamplingCostCIHighNs: 0.3e6, SamplingCostPct: 0.1,
			ModelNs: 2.5e6, ModelCILowNs: 2.4e6, ModelCIHighNs: 2.6e6, ModelAgrees: true,
			TotalNs: 10e6, TotalCILowNs: 9e6, TotalCIHighNs: 11e6, ProcessNs: 1e6, ProcessCILowNs: 0.5e6, ProcessCIHighNs: 1.5e6,
			IndirectNs: 6e6, IndirectCILowNs: 4e6, IndirectCIHighNs: 8e6, IndirectResolved: true}}
	var buf bytes.Buffer
	WriteEstimateCommandText(&buf, c, 0)
	out := buf.String()
	for _, want := range []string{"direct (sampled) +3.00 ms [+2.00 ms, +4.00 ms] in seccomp: 20 of 500 samples over 50 runs at 16 filters (entry 5, filter images 15)",
		"Minus 0 of 400 over 50 runs at 0", "against the sampled direct time: the intervals overlap\n", "split of CPU     +10.0 ms [+9.00 ms, +11.0 ms] = direct +3.00 ms + per-process +1.00 ms [+500 µs, +1.50 ms] + indirect +6.00 ms [+4.00 ms, +8.00 ms]", "5 blocks sampled against 5 not"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	c.Direct.IndirectResolved, c.Direct.IndirectWhy, c.Direct.IndirectCILowNs = false, "spans-zero", -1e6
	c.Direct.ModelAgrees = false
	buf.Reset()
	WriteEstimateCommandText(&buf, c, 0)
	out = buf.String()
	if !strings.Contains(out, "indirect NOT RESOLVED (+6.00 ms [-1.00 ms, +8.00 ms]: its interval spans zero)") || !strings.Contains(out, "the intervals do NOT overlap") {
		t.Errorf("unresolved split or disagreement not said:\n%s", out)
	}
	c.Direct.SamplingCostNs = math.NaN()
	b, err := json.Marshal(c.Finite())
	if err != nil {
		t.Fatalf("JSON of a NaN sampling cost: %v", err)
	}
	if !strings.Contains(string(b), `"indirect_resolved":false`) || !strings.Contains(string(b), `"direct_ns":3000000`) {
		t.Errorf("JSON lacks the split: %s", b)
	}
}

// TestCommandVerdictUnresolved: a measured interval that holds 0 gets no
// coverage verdict, wall or CPU, however the ratio falls; and a paired
// run's baseline sampling line says why it has no samples of its own.
func TestCommandVerdictUnresolved(t *testing.T) {
	c := &document.EstimateCommand{Argv: []string{"perl", "-e", "1"}, Filters: 35, Variant: "on", Covered: true, CPUCovered: true, Ratio: 25, ErrorPct: 2400,
		MeasuredAddedNs: 9.28e3, MeasuredCILowNs: -435e3, MeasuredCIHighNs: 665e3,
		MeasuredCPUAddedNs: -29e3, MeasuredCPUCILowNs: -200e3, MeasuredCPUCIHighNs: 150e3,
		AB:     &document.CommandAB{Design: "pairs", Children: 10, Pairs: 160},
		Direct: &document.CommandDirect{FrequencyHz: 99, PeriodNs: 1e9 / 99, Baseline: document.DirectCell{Runs: 166}, Stacked: document.DirectCell{Filters: 35, Runs: 166, Samples: 427, Seccomp: 3}}}
	var buf bytes.Buffer
	WriteEstimateCommandText(&buf, c, 0)
	out := buf.String()
	for _, want := range []string{"no verdict: the measurement does not resolve the added time", "No verdict on the CPU time (the measured CPU interval holds 0)",
		"3 of 427 samples of the paired children (both sides' runs), all in their 166 runs at 35 filters",
		"Nothing to subtract for their 166 runs without filters: a process without filters never enters seccomp"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "covers the") {
		t.Errorf("an unresolved measurement is said to be covered:\n%s", out)
	}
}

// The per-process part measured on the probe is said to be a floor for
// a real program, in text and Markdown; a part not predicted says what
// it needs.
func TestEstimatePartsFloor(t *testing.T) {
	e := &document.Estimate{Parts: &document.EstimateParts{
		Direct:     document.EstimatePart{Predicted: true, AddedNs: document.Nullable(2e6), CILowNs: document.Nullable(1.9e6), CIHighNs: document.Nullable(2.1e6), Basis: document.PartLoopModel},
		PerProcess: document.EstimatePart{Predicted: true, AddedNs: document.Nullable(150e3), CILowNs: document.Nullable(120e3), CIHighNs: document.Nullable(180e3), Basis: document.PartProcessProbe},
		Indirect:   document.EstimatePart{Basis: document.PartIndirectOff},
	}}
	bs := estimatePartsBlock(e)
	if len(bs) != 1 {
		t.Fatalf("%d blocks, want 1", len(bs))
	}
	for name, out := range map[string]string{"text": bs[0].text(textOpts{}), "markdown": bs[0].markdown()} {
		for _, want := range []string{"`/bin/true` under the same stack", "a floor: a program's own start can cost several times that", "not predicted: --indirect=false"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q:\n%s", name, want, out)
			}
		}
	}
}

// The loop model and the sampled direct time "overlap" only when the
// samples can tell: with fewer than MinDirectSamples seccomp samples, or
// a sampled interval wider than MaxDirectWidth times its centre, the
// line says there are too few samples to tell.
func TestModelAgreeText(t *testing.T) {
	d := &document.CommandDirect{ModelAgrees: true, Stacked: document.DirectCell{Seccomp: 3}, DirectNs: 51.8e3, DirectCILowNs: 10e3, DirectCIHighNs: 151e3}
	if got := modelAgreeText(d); !strings.HasPrefix(got, "too few samples to tell (3 samples in seccomp") {
		t.Errorf("3 samples: %q", got)
	}
	d.Stacked.Seccomp, d.DirectNs, d.DirectCILowNs, d.DirectCIHighNs = 400, 300e3, 270e3, 330e3
	if got := modelAgreeText(d); got != "the intervals overlap" {
		t.Errorf("400 samples, ±10%%: %q", got)
	}
	d.DirectCILowNs, d.DirectCIHighNs = -100e3, 700e3 // 2.7× its centre wide
	if got := modelAgreeText(d); !strings.HasPrefix(got, "too few samples to tell") {
		t.Errorf("wide interval: %q", got)
	}
	d.ModelAgrees = false
	if got := modelAgreeText(d); got != "the intervals do NOT overlap" {
		t.Errorf("no overlap: %q", got)
	}
}
