package runner

import (
	"context"
	"fmt"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/analysis"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/stats"
)

// BenchmarkCachePrediction checks the action-cache prediction against
// measured behaviour (issue 3): for each policy it predicts whether getpid
// is cached (analysis.PredictCache), then measures getpid under 0, 1, 16 and
// 32 filters with the cache as installed ("on") and defeated ("defeat"), in
// randomized blocks. A cached syscall shows no per-filter slope in "on"; an
// uncached one shows the same slope as "defeat". It asserts nothing (timing
// on a shared machine is noisy); docs/cache-validation.md records a run.
//
//	go test -run '^$' -bench CachePrediction -benchtime 1x ./runner/
func BenchmarkCachePrediction(b *testing.B) {
	policies := []string{"default", "../testdata/policies/args-workload.yaml"}
	counts := []int{0, 1, 16, 32}
	variants := []result.Variant{result.VariantOn, result.VariantDefeat}
	for _, spec := range policies {
		p, err := formats.Open(spec)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(p.Name, func(b *testing.B) {
			nr, _ := nativeArch.Lookup("getpid")
			pred := analysis.PredictCache(filters.Stack{p}, []*filters.Arch{nativeArch})
			e, _ := pred.Lookup(nativeArch.Name, nr)
			b.Logf("%s: getpid predicted cached=%v %s", p.Name, e.Cached, e.Reason)
			var samples []result.Sample
			for b.Loop() {
				cfg := Config{
					Programs: []*filters.Program{p}, Counts: counts, Variants: variants,
					Workload: Workloads()["getpid"], Trials: 7, Seed: 1, CPU: -1, SpecAllow: true,
				}
				samples, err = Run(context.Background(), cfg)
				if err != nil {
					b.Fatal(err)
				}
			}
			med := map[result.Cell]float64{}
			by := map[result.Cell][]float64{}
			for _, s := range samples {
				k := result.Cell{Variant: s.Variant, Filters: s.Filters}
				by[k] = append(by[k], s.NsPerOp)
			}
			for c, xs := range by {
				med[c] = stats.Median(xs)
			}
			for _, v := range variants {
				row := ""
				for _, n := range counts {
					row += fmt.Sprintf(" %d:%.0f", n, med[result.Cell{Variant: v, Filters: n}])
				}
				slope := (med[result.Cell{Variant: v, Filters: 32}] - med[result.Cell{Variant: v, Filters: 1}]) / 31
				entry := med[result.Cell{Variant: v, Filters: 1}] - med[result.Cell{Variant: v, Filters: 0}]
				b.Logf("%-6s median ns/op by filter count:%s; entry %.0f ns, slope %.1f ns/filter", v, row, entry, slope)
				b.ReportMetric(slope, string(v)+"-ns/filter")
				b.ReportMetric(med[result.Cell{Variant: v, Filters: 32}]-med[result.Cell{Variant: v, Filters: 0}], string(v)+"-ns@32")
			}
			cached := 0.0
			if e.Cached {
				cached = 1
			}
			b.ReportMetric(cached, "predicted-cached")
		})
	}
}
