package report

import (
	"testing"
	"time"

	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/stats"
)

// fixtureCounts are the filter counts of the fixture run.
var fixtureCounts = []int{0, 1, 2, 4, 8, 16, 32}

// fixtureNs is the synthetic ns/op of one child: a 1000 ns baseline; "on"
// adds 0.5 ns per filter (cached), "defeat" adds a 200 ns entry step and
// 20 ns per filter; a deterministic ±8 ns wobble per block and count, and
// shift (ns) on top.
func fixtureNs(v result.Variant, n, block int, shift float64) float64 {
	y := 1000.0 + shift + float64((block*7+n*3)%5-2)*4
	if n == 0 {
		return y
	}
	if v == result.VariantDefeat {
		return y + 200 + 20*float64(n)
	}
	return y + 0.5*float64(n)
}

// fixtureSamples are the children of a 6-block run in a fixed interleaved
// order. shift is added to every "defeat" child with at least one filter
// (0 for the plain fixture).
func fixtureSamples(shift float64) []result.Sample {
	var out []result.Sample
	seq := 0
	for b := 0; b < 6; b++ {
		for _, v := range []result.Variant{result.VariantOn, result.VariantDefeat} {
			for i := range fixtureCounts {
				n := fixtureCounts[(i+b)%len(fixtureCounts)]
				s := 0.0
				if v == result.VariantDefeat && n > 0 {
					s = shift
				}
				install := make([]int64, n)
				for k := range install {
					install[k] = 2000
				}
				out = append(out, result.Sample{
					Cell: result.Cell{Variant: v, Filters: n}, Block: b, Seq: seq,
					NsPerOp: fixtureNs(v, n, b, s), InstallNs: install, CPU: 1, FiltersSeen: n,
				})
				seq++
			}
		}
	}
	return out
}

// fixtureDoc builds a fixed document through Build, from fixtureSamples
// analyzed by stats.Analyze.
func fixtureDoc(t testing.TB, shift float64) *document.Document {
	t.Helper()
	samples := fixtureSamples(shift)
	obs := make([]stats.Observation, len(samples))
	for i, s := range samples {
		obs[i] = stats.Observation{Variant: string(s.Variant), Filters: s.Filters, Block: s.Block, Seq: s.Seq, NsPerOp: s.NsPerOp}
	}
	res, err := stats.Analyze(obs, stats.Options{Confidence: 0.95, Seed: 1, Variants: []string{"on", "defeat"}})
	if err != nil {
		t.Fatalf("analyze fixture: %v", err)
	}
	return Build(document.Input{
		Tool:    document.Tool{Name: "seccompbench", Version: "v0.0.0-test"},
		Command: "seccompbench run --trials 6 --filters 0,1,2,4,8,16,32 --workload getpid",
		Created: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC),
		Environment: result.Environment{
			Kernel: "6.18.0-test", CPUModel: "Test CPU @ 2.00GHz", CPUs: 2, BPFJitEnable: "1",
			Vulnerabilities: map[string]string{"spec_store_bypass": "Mitigation: Speculative Store Bypass disabled via prctl", "spectre_v2": "Mitigation: Retpolines"},
			GoVersion:       "go1.26.8", ParentSeccompFilters: 0, ParentSeccompMode: 0, Clocksource: "tsc",
		},
		Config: document.Config{
			Policies:     []document.Policy{{Path: "default", SHA256: "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", Instructions: 120, CompileUs: 250}},
			FilterCounts: fixtureCounts, Workload: "getpid", Op: "one getpid() syscall", Cache: "both",
			Variants: []string{"on", "defeat"}, Trials: 6, Iterations: 20000, SamplesPerChild: 5, Seed: 1, Confidence: 0.95, CPU: 1,
		},
		Samples: samples,
		Result:  res,
		Cache: []document.CacheVariant{
			{Variant: "on", Syscalls: []document.CacheSyscall{{Name: "getpid", Nr: 39, Cached: true, Action: "allow"}}},
			{Variant: "defeat", Syscalls: []document.CacheSyscall{{Name: "getpid", Nr: 39, Cached: false, Action: "allow", Instructions: 1600,
				Reason: "filter 0 instruction 0 loads instruction_pointer"}}},
		},
		Setup:   &document.Setup{PerFilterNs: 2000, PerFilterCILowNs: 1900, PerFilterCIHiNs: 2100, StackNs: 64000, StackFilter: 32},
		Control: []document.Control{{Variant: "defeat", BeforeNs: 1.0, AfterNs: 1.001, SlowdownPct: 0.1, SlowdownPctLow: -0.5, SlowdownPctHigh: 0.7}},
		Run:     &document.RunInfo{Blocks: 6, StopReason: "trials", ElapsedS: 12.5, Parallel: 1, CPUs: []int{1}},
		Drift:   []document.Drift{{Variant: "on", SlopeNsPerChild: 0.01, SlopeCILow: -0.02, SlopeCIHigh: 0.04, OverRunNs: 0.8, P: 0.5}},
	})
}
