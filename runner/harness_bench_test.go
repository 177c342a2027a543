package runner

import (
	"context"
	"runtime"
	"sort"
	"testing"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/runner/cpulock"
	"github.com/seccompbench/seccompbench/runner/internal/loop"
	"github.com/seccompbench/seccompbench/runner/internal/sys"
	"github.com/seccompbench/seccompbench/runner/result"
)

// BenchmarkHarnessOverhead compares the harness's 0-filter getpid ns/op
// (fresh re-executed children, pinned measuring thread, median of samples)
// with the same assembly loop run in this process on a pinned thread
// without the harness. The ratio harness/plain is reported as a metric;
// issue 4's bar is ≤ 1.03. Results are recorded in docs/benchmarks.md.
//
//	go test -run '^$' -bench HarnessOverhead -benchtime 1x ./runner/
func BenchmarkHarnessOverhead(b *testing.B) {
	const iters = 20000
	cpu := cpulock.HighestCPU()
	plain := func() float64 {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if cpu >= 0 {
			var set unix.CPUSet
			set.Set(cpu)
			unix.SchedSetaffinity(0, &set)
		}
		loop.Getpid(iters) // warm up
		var xs []float64
		for i := 0; i < 200; i++ {
			t0 := sys.Nanotime()
			loop.Getpid(iters)
			xs = append(xs, float64(sys.Nanotime()-t0)/iters)
		}
		sort.Float64s(xs)
		return xs[len(xs)/2]
	}
	// Never installed (count 0), but a stack needs a valid program.
	p := &filters.Program{Name: "allow", Insns: []bpf.RawInstruction{{Op: 0x06, K: uint32(filters.ActionAllow)}}}
	for i := 0; i < b.N; i++ {
		pl := plain()
		samples, err := Run(context.Background(), Config{Programs: []*filters.Program{p}, Counts: []int{0}, Variants: []result.Variant{result.VariantOn},
			Workload: loops("getpid"), Trials: 40, Iterations: iters, CPU: cpu})
		if err != nil {
			b.Fatal(err)
		}
		var hs []float64
		for _, s := range samples {
			hs = append(hs, s.NsPerOp)
		}
		sort.Float64s(hs)
		h := hs[len(hs)/2]
		b.ReportMetric(pl, "plain-ns/op")
		b.ReportMetric(h, "harness-ns/op")
		b.ReportMetric(h/pl, "ratio")
	}
}
