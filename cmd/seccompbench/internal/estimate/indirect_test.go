package estimate

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"testing"
	"time"

	"golang.org/x/net/bpf"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/analysis"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/runner"
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/stats"
)

// allowAll is an allow-all filter shaped like an allowlist (every probe
// syscall is cached as installed).
func allowAll(t *testing.T) *filters.Program {
	t.Helper()
	p, err := analysis.CalibrationFilter(cmdutil.NativeArch(), 20)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// probeIndirect is the fake probe's indirect cost at kib KiB, ns per
// iteration: it rises to 600 ns at 32 KiB and falls again.
var probeIndirect = map[int]float64{0: 0, 8: 150, 32: 600, 128: 300, 512: 100}

// fakeProbe answers the probe's runs as the runner would: every child's
// before-install time per iteration is 100 + 400·KiB ns, its after-install
// time that plus, with filters, 300 ns of direct cost (cache defeated;
// 30 ns as installed) and the indirect cost (a tenth of it as
// installed), with a little spread between children; the 0-filter
// children add nothing. It records the configs it was given.
func fakeProbe(cfgs *[]runner.Config) func(context.Context, runner.Config) ([]result.Sample, error) {
	return func(_ context.Context, cfg runner.Config) ([]result.Sample, error) {
		*cfgs = append(*cfgs, cfg)
		kib := cfg.Workload.ProbeKiB
		var out []result.Sample
		for trial := range cfg.Trials {
			jitter := float64(trial%3) - 1
			for _, v := range cfg.Variants {
				for _, n := range cfg.Counts {
					before := 100 + 400*float64(kib) + 5*jitter
					after := before + jitter
					if n > 0 {
						direct, ind := 300.0, probeIndirect[kib]
						if v == result.VariantOn {
							direct, ind = 30, ind/10
						}
						after += direct + ind
					}
					out = append(out, result.Sample{Cell: result.Cell{Variant: v, Filters: n}, NsPerOp: after, BaselineNsPerOp: before})
				}
			}
		}
		return out, nil
	}
}

// TestCalibrateIndirect: the probe runs every size at 0 and n filters,
// both variants when its syscall is cached as installed, with the
// working set in the workload; the points recover the fake's gaps, direct
// cost and indirect costs (ratios indirect/300 defeated, indirect/10/30
// as installed).
func TestCalibrateIndirect(t *testing.T) {
	var cfgs []runner.Config
	opts := &Options{CalTrials: 6, Confidence: 0.95, Seed: 1, CPU: -1, Measure: fakeProbe(&cfgs)}
	cal, err := calibrateIndirect(context.Background(), opts, []*filters.Program{allowAll(t)}, 4)
	if err != nil {
		t.Fatal(err)
	}
	if cal == nil || !cal.haveCached || cal.info.Syscall != "getppid" {
		t.Fatalf("calibration %+v: want getppid, cached as installed", cal)
	}
	if len(cfgs) != len(ProbeSizes) {
		t.Fatalf("%d probe runs, want one per size (%d)", len(cfgs), len(ProbeSizes))
	}
	for i, c := range cfgs {
		if c.Workload.ProbeKiB != ProbeSizes[i] || c.Workload.Name != "probe" || len(c.Variants) != 2 || c.Counts[1] != 4 || c.Iterations == 0 || c.ChildTimeout == 0 {
			t.Errorf("run %d: workload %s %d KiB, variants %v, counts %v, iterations %d, timeout %s", i, c.Workload.Name, c.Workload.ProbeKiB, c.Variants, c.Counts, c.Iterations, c.ChildTimeout)
		}
	}
	for i, p := range cal.info.Uncached {
		kib := ProbeSizes[i]
		if p.KiB != kib || math.Abs(p.GapNs-(100+400*float64(kib))) > 5 {
			t.Errorf("point %d: %d KiB, gap %.1f, want %d KiB, %.0f", i, p.KiB, p.GapNs, kib, 100+400*float64(kib))
		}
		if math.Abs(p.IndirectNs-probeIndirect[kib]) > 2 || math.Abs(p.Ratio-probeIndirect[kib]/300) > 0.01 {
			t.Errorf("%d KiB defeated: indirect %.1f ratio %.3f, want %.0f, %.3f", kib, p.IndirectNs, p.Ratio, probeIndirect[kib], probeIndirect[kib]/300)
		}
		if c := cal.info.Cached[i]; math.Abs(c.Ratio-probeIndirect[kib]/10/30) > 0.1 {
			t.Errorf("%d KiB as installed: ratio %.3f, want %.3f", kib, c.Ratio, probeIndirect[kib]/300)
		}
	}
	// A defeated estimate has no cached calls: the as-installed probe is
	// not run.
	cfgs = nil
	opts.Cache = "defeat"
	if cal, err := calibrateIndirect(context.Background(), opts, []*filters.Program{allowAll(t)}, 4); err != nil || cal.haveCached || len(cfgs[0].Variants) != 1 {
		t.Errorf("defeated estimate: cached curve %v, variants %v, err %v; want the defeated probe only", cal != nil && cal.haveCached, cfgs[0].Variants, err)
	}
	// The prediction at the 32 KiB gap: 2 × the uncached calls' direct
	// cost, 2 × the cached calls'.
	gap := 100 + 400*32.0
	got := cal.predict(directParts{uncached: stats.Estimate{Center: 1000, Lo: 900, Hi: 1100}, cached: stats.Estimate{Center: 100, Lo: 90, Hi: 110}}, gap, "test")
	if math.Abs(got.Center-(2*1000+2*100)) > 20 || cal.info.Range != "inside" {
		t.Errorf("indirect at %v ns: %+v (%s), want about 2200, inside", gap, got, cal.info.Range)
	}
}

// A stack that kills every probe syscall gives no calibration, no error.
func TestCalibrateIndirectNoProbeSyscall(t *testing.T) {
	raw, err := bpf.Assemble([]bpf.Instruction{bpf.RetConstant{Val: uint32(filters.ActionKillProcess)}})
	if err != nil {
		t.Fatal(err)
	}
	k := &filters.Program{Name: "kill-all", Insns: raw}
	var cfgs []runner.Config
	cal, err := calibrateIndirect(context.Background(), &Options{CalTrials: 2, Confidence: 0.95, Measure: fakeProbe(&cfgs)}, []*filters.Program{k}, 2)
	if err != nil || cal != nil || len(cfgs) != 0 {
		t.Errorf("calibration %v, err %v, %d runs: want none", cal, err, len(cfgs))
	}
}

// TestFillParts: without a time between syscalls the indirect part is
// not predicted and says what it needs; the per-process part needs
// --command; with --duration and a calibration the indirect part is the
// curve at duration / calls.
func TestFillParts(t *testing.T) {
	out := &document.Estimate{}
	out.Total.AddedNs, out.Total.CILowNs, out.Total.CIHighNs, out.Total.Calls = 1000, document.Nullable(900.0), document.Nullable(1100.0), 10
	fillParts(out, &Options{Indirect: true}, nil, directParts{})
	p := out.Parts
	if !p.Direct.Predicted || *p.Direct.AddedNs != 1000 || p.Indirect.Predicted || p.Indirect.Basis != document.PartNeedsGap ||
		p.PerProcess.Predicted || p.PerProcess.Basis != document.PartNeedsCommand {
		t.Errorf("parts without duration: %+v", p)
	}
	var cfgs []runner.Config
	opts := &Options{Indirect: true, CalTrials: 4, Confidence: 0.95, Seed: 1, Measure: fakeProbe(&cfgs), Duration: time.Duration(10 * (100 + 400*8))}
	cal, err := calibrateIndirect(context.Background(), opts, []*filters.Program{allowAll(t)}, 2)
	if err != nil {
		t.Fatal(err)
	}
	fillParts(out, opts, cal, directParts{uncached: stats.Estimate{Center: 3000, Lo: 2900, Hi: 3100}})
	if in := out.Parts.Indirect; !in.Predicted || math.Abs(*in.AddedNs-3000*150.0/300) > 20 || out.Indirect == nil {
		t.Errorf("indirect at the 8 KiB gap: %+v, want about 1500", in)
	}
	var b bytes.Buffer
	if err := report.WriteEstimateJSON(&b, out); err != nil {
		t.Fatal(err)
	}
	var doc map[string]map[string]any
	json.Unmarshal(b.Bytes(), &doc)
	for _, k := range []string{"direct", "per_process", "indirect"} {
		if _, ok := doc["parts"][k]; !ok {
			t.Errorf("JSON parts has no %q", k)
		}
	}
	if doc["indirect"]["gap_source"] != "--duration" {
		t.Errorf("JSON indirect.gap_source = %v, want --duration", doc["indirect"]["gap_source"])
	}
}

// TestApplyIndirect, by hand: syscalls 39 ms [36, 42] plus indirect 4 ms
// [3, 5] is 43 ms [38.2, 47.8] of per-call part (±√(3² + 1²) = √10),
// stated with the model error as 43 ± √(10 + (ModelError·43)²) ms, then the
// process term 2 ms [1, 4] in quadrature.
func TestApplyIndirect(t *testing.T) {
	c := &document.EstimateCommand{MeasuredAddedNs: 50e6, MeasuredCILowNs: 45e6, MeasuredCIHighNs: 55e6, MeasuredCPUAddedNs: 30e6, MeasuredCPUCILowNs: 25e6, MeasuredCPUCIHighNs: 35e6}
	applyIndirect(c, stats.Estimate{Center: 39e6, Lo: 36e6, Hi: 42e6}, stats.Estimate{Center: 4e6, Lo: 3e6, Hi: 5e6},
		stats.Estimate{Center: 2e6, Lo: 1e6, Hi: 4e6}, stats.Estimate{}, 1234)
	hw := math.Sqrt(10e12 + math.Pow(ModelError*43e6, 2))
	for _, ck := range []struct {
		name      string
		got, want float64
	}{
		{"predicted", c.PredictedAddedNs, 45e6},
		{"stated low", c.PredictedCILowNs, 45e6 - math.Hypot(hw, 1e6)},
		{"stated high", c.PredictedCIHighNs, 45e6 + math.Hypot(hw, 2e6)},
		{"calibration low", c.CalibrationCILowNs, 45e6 - math.Sqrt(10e12+1e12)},
		{"indirect", c.IndirectAddedNs, 4e6},
		{"gap", c.GapNs, 1234},
		{"ratio", c.Ratio, 0.9},
		{"CPU ratio", c.CPURatio, 43.0 / 30},
	} {
		if math.Abs(ck.got-ck.want) > 1e-6*math.Abs(ck.want) {
			t.Errorf("%s = %v, want %v", ck.name, ck.got, ck.want)
		}
	}
	if !c.Covered || c.CoveredByCalibration {
		t.Errorf("covered %v, by calibration %v: want true, false", c.Covered, c.CoveredByCalibration)
	}
}
