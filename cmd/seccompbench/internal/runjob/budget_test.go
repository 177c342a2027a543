package runjob

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/stats"
)

// fakeChild is a paired command child of the deepest count whose 20
// pairs add add ns of wall time and cpu ns of CPU time to a 1 ms run,
// with noise from i.
func fakeChild(variant string, depth, i int, add, cpu float64) result.Sample {
	s := result.Sample{Cell: result.Cell{Variant: result.Variant(variant), Filters: depth}, Command: &result.CommandSample{}}
	for k := range 20 {
		jit := float64((i*7+k*13)%11) * 1000
		s.BaselineSamplesNsPerOp = append(s.BaselineSamplesNsPerOp, 1e6+jit)
		s.SamplesNsPerOp = append(s.SamplesNsPerOp, 1e6+jit+add+float64((i+k)%5)*100)
		s.Command.BaseCPUNs = append(s.Command.BaseCPUNs, 8e5+jit)
		s.Command.CPUNs = append(s.Command.CPUNs, 8e5+jit+cpu+float64((i*3+k)%7)*100)
	}
	return s
}

func TestBudgetDecisionOnFakeRounds(t *testing.T) {
	var samples []result.Sample
	for i := range 10 {
		samples = append(samples, fakeChild("defeat", 16, i, 5000, 4000), fakeChild("defeat", 0, i, 0, 0))
	}
	j := &Job{Counts: []int{0, 16}, Confidence: 0.95}
	info := result.RunInfo{Blocks: 10, Elapsed: 12 * time.Second}

	// 5 µs on a 1 ms run is 0.5 %: within 2 %, over 0.1 %.
	j.Budget = &stats.Budget{Pct: 2, Relative: true}
	v, err := j.budgetResult(samples, info)
	if err != nil || v.Verdict != "within" || v.N != 10 || v.Pairs != 200 || v.Rounds != 10 || v.ElapsedS != 12 || v.Unit != "%" {
		t.Fatalf("2%%: %+v, %v", v, err)
	}
	if v.Estimate < 0.45 || v.Estimate > 0.6 || v.Upper >= 2 {
		t.Errorf("2%%: estimate %.3f upper %.3f", v.Estimate, v.Upper)
	}
	j.Budget = &stats.Budget{Pct: 0.1, Relative: true}
	v, err = j.budgetResult(samples, info)
	var be *cmdutil.BudgetError
	if v.Verdict != "over" || !errors.As(err, &be) || be.Code() != cmdutil.ExitFindings {
		t.Errorf("0.1%%: %+v, %v", v, err)
	}
	// Absolute: CPU adds 4 µs of 0.8 ms (0.5 %), wall 5 µs; at 4.5 µs
	// wall is over and decides.
	j.Budget = &stats.Budget{Ns: 4500}
	if v, _ = j.budgetResult(samples, info); v.Verdict != "over" || v.DecidedBy != "wall" {
		t.Errorf("4.5 µs: %+v", v)
	}
	// Too few children: undecided, exit 4.
	j.Budget = &stats.Budget{Ns: 1e6}
	v, err = j.budgetResult(samples[:6], result.RunInfo{Blocks: 3, Elapsed: time.Second})
	if v.Verdict != "undecided" || !errors.As(err, &be) || be.Code() != cmdutil.ExitUndecided {
		t.Errorf("3 children: %+v, %v", v, err)
	}
	// No budget, no verdict.
	j.Budget = nil
	if v, err = j.budgetResult(samples, info); v != nil || err != nil {
		t.Errorf("no budget: %+v, %v", v, err)
	}
}

// TestLoopBudgetMetrics: a loop child's observation is its added ns/op
// over its own paired baseline, per filter at the deepest count and
// whole at one filter (entry), in % of the baseline for a relative
// budget; unpaired children and other counts are left out.
func TestLoopBudgetMetrics(t *testing.T) {
	var samples []result.Sample
	for i := range 10 {
		jit := float64(i%3) * 2
		for _, c := range []struct {
			n     int
			added float64
		}{{0, 0}, {1, 60}, {4, 120}, {8, 200}} {
			samples = append(samples, result.Sample{Cell: result.Cell{Variant: "defeat", Filters: c.n}, NsPerOp: 100 + jit + c.added, BaselineNsPerOp: 100 + jit})
		}
		samples = append(samples, result.Sample{Cell: result.Cell{Variant: "defeat", Filters: 8}, NsPerOp: 900}) // unpaired
	}
	byName := func(ms []stats.Metric) map[string][]float64 {
		out := map[string][]float64{}
		for _, m := range ms {
			out[m.Name] = m.Xs
		}
		return out
	}
	ms := LoopBudgetMetrics(samples, 8, false)
	if m := byName(ms); len(ms) != 2 || len(m["per_filter"]) != 10 || m["per_filter"][0] != 25 || m["entry"][0] != 60 {
		t.Fatalf("absolute: %+v", ms)
	}
	if m := byName(LoopBudgetMetrics(samples, 8, true)); m["entry"][0] != 60 || m["per_filter"][0] != 25 {
		t.Errorf("relative at baseline 100: %+v", m)
	}
	j := &Job{Counts: []int{0, 1, 4, 8}, Confidence: 0.95, Budget: &stats.Budget{Ns: 50}}
	// entry (60 ns) is over 50 ns though per filter (25 ns) is within.
	if v, _ := j.budgetResult(samples, result.RunInfo{Blocks: 10}); v.Verdict != "over" || v.DecidedBy != "entry" {
		t.Errorf("50 ns: %+v", v)
	}
	j.Budget = &stats.Budget{Ns: 70}
	if v, err := j.budgetResult(samples, result.RunInfo{Blocks: 10}); v.Verdict != "within" || err != nil {
		t.Errorf("70 ns: %+v %v", v, err)
	}
	if ms := LoopBudgetMetrics(samples, 1, false); len(ms) != 1 || ms[0].Name != "per_filter" || ms[0].Xs[0] != 60 {
		t.Errorf("depth 1: %+v", ms)
	}
}

// TestBudgetNamesVariant: run --filters 0,1 --budget 5% judges both cache
// variants; the verdict names the variant that decided and the ones
// judged, in JSON and on its line, and says its figure is against each
// child's paired baseline (it is not the table's overhead, which compares
// the cells' means). It said "+29.17 % … per-filter cost decided", a
// figure of neither variant's table row, and not which.
func TestBudgetNamesVariant(t *testing.T) {
	var samples []result.Sample
	for i := range 10 {
		jit := float64(i%3) * 2
		for _, c := range []struct {
			v     result.Variant
			added float64
		}{{"on", 30}, {"defeat", 55}} {
			samples = append(samples,
				result.Sample{Cell: result.Cell{Variant: c.v, Filters: 0}, NsPerOp: 100 + jit, BaselineNsPerOp: 100 + jit},
				result.Sample{Cell: result.Cell{Variant: c.v, Filters: 1}, NsPerOp: 100 + jit + c.added + float64(i%2), BaselineNsPerOp: 100 + jit})
		}
	}
	j := &Job{Counts: []int{0, 1}, Confidence: 0.95, Budget: &stats.Budget{Pct: 5, Relative: true}}
	v, err := j.budgetResult(samples, result.RunInfo{Blocks: 10})
	if err == nil || v.Verdict != "over" || v.DecidedBy != "per_filter" || v.Variant != "on" || !slices.Equal(v.Variants, []string{"on", "defeat"}) {
		t.Fatalf("verdict %+v, err %v: want over, decided by on's per_filter, on and defeat judged", v, err)
	}
	b, _ := json.Marshal(v)
	if !bytes.Contains(b, []byte(`"variant":"on"`)) || !bytes.Contains(b, []byte(`"variants":["on","defeat"]`)) {
		t.Errorf("JSON %s lacks the variant", b)
	}
	txt := report.BudgetText(v)
	if !strings.Contains(txt, "per-filter cost of variant on, vs each child's paired baseline, decided (variants on and defeat judged)") {
		t.Errorf("line %q does not say which variant decided and what its figure is", txt)
	}
	// One variant judged: named, no list.
	j.Counts = []int{0, 1}
	var on []result.Sample
	for _, s := range samples {
		if s.Variant == "on" {
			on = append(on, s)
		}
	}
	v, _ = j.budgetResult(on, result.RunInfo{Blocks: 10})
	if v.Variant != "on" || v.Variants != nil || strings.Contains(report.BudgetText(v), "judged") {
		t.Errorf("one variant: %+v, %q", v, report.BudgetText(v))
	}
}
