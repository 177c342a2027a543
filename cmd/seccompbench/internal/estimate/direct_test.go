package estimate

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/seccompbench/seccompbench/internal/kstack"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/runner"
	"github.com/seccompbench/seccompbench/runner/command"
	"github.com/seccompbench/seccompbench/runner/live"
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/stats"
)

// Fake sample kinds, carried in Sample.Nr for fakeClassify.
const (
	fakeKernel = iota
	fakeFilter
	fakeEntry
)

func fakeClassify(s *kstack.Sample) kstack.Verdict {
	switch {
	case s.User:
		return kstack.Verdict{Class: kstack.ClassUser}
	case s.Nr == fakeFilter:
		return kstack.Verdict{Class: kstack.ClassSeccomp, Part: kstack.PartFilter}
	case s.Nr == fakeEntry:
		return kstack.Verdict{Class: kstack.ClassSeccomp, Part: kstack.PartEntry}
	}
	return kstack.Verdict{Class: kstack.ClassKernel}
}

// fakeSource is a DirectSource on a fake clock: while enabled, each Take
// returns the samples gen gives for the current cell, timed inside the
// child's span (the sampler reads the clock once before and once after
// each child), plus one sample of this process and one outside the span,
// which must both be ignored.
type fakeSource struct {
	clock   uint64
	on      bool
	onAt    uint64
	cur     int // filters of the child running
	gen     func(filters int) []kstack.Sample
	takeErr error
	enabled int // SetEnabled(true) calls
	targets [][]int
	closed  bool
}

func (f *fakeSource) now() uint64 { f.clock += 1000; return f.clock }

func (f *fakeSource) SetEnabled(on bool) error {
	if on {
		f.enabled++
		f.onAt = f.clock
	}
	f.on = on
	return nil
}
func (f *fakeSource) SetTargets(p []int) error { f.targets = append(f.targets, p); return nil }
func (f *fakeSource) Flush()                   {}
func (f *fakeSource) Lost() uint64             { return 0 }
func (f *fakeSource) Close() error             { f.closed = true; return nil }
func (f *fakeSource) Take() ([]kstack.Sample, error) {
	if f.takeErr != nil {
		return nil, f.takeErr
	}
	start := f.onAt + 1000 // the sampler's first clock read after enabling
	var out []kstack.Sample
	for i, s := range f.gen(f.cur) {
		s.Time = start + 1 + uint64(i)
		if s.Tgid == 0 {
			s.Tgid = 4242
		}
		out = append(out, s)
	}
	out = append(out, kstack.Sample{Time: start + 5, Tgid: selfTgid(), Nr: fakeFilter},
		kstack.Sample{Time: start + 5000, Tgid: 4242, Nr: fakeFilter})
	return out, nil
}

func selfTgid() uint32 { return uint32(unix.Getpid()) }

// fakeDirectRun returns trials blocks of children at 0 and n filters, one
// warm-up and one timed run each, calling AroundChild around each as the
// runner does; baseline runs take 100 ms (101 ms in sampled, even
// blocks), stacked ones 150 ms.
func fakeDirectRun(src *fakeSource, trials, n int) func(context.Context, runner.Config) ([]result.Sample, result.RunInfo, error) {
	return func(_ context.Context, cfg runner.Config) ([]result.Sample, result.RunInfo, error) {
		var out []result.Sample
		for b := range trials {
			for _, f := range []int{n, 0} {
				c := result.Cell{Variant: cfg.Variants[0], Filters: f}
				src.cur = f
				after := cfg.AroundChild(b, c)
				after()
				ns := 150e6
				if f == 0 {
					ns = 100e6
					if b%2 == 0 {
						ns = 101e6
					}
				}
				out = append(out, result.Sample{Cell: c, Block: b, NsPerOp: ns,
					Command: &result.CommandSample{CPUNs: []float64{ns / 2}, InstallNs: []float64{1e6}, Runs: 1, Warmup: 1}})
			}
		}
		return out, result.RunInfo{Blocks: trials, Runs: 1}, nil
	}
}

// Per stacked sampled child: 10 samples of the command's processes, 3 in
// filter images and 1 in seccomp's entry; baseline children: 10, none in
// seccomp.
func fakeGen(filters int) []kstack.Sample {
	out := make([]kstack.Sample, 10)
	if filters > 0 {
		out[0].Nr, out[1].Nr, out[2].Nr, out[3].Nr = fakeFilter, fakeFilter, fakeFilter, fakeEntry
	}
	out[9].User = true
	return out
}

// The split by hand: 6 blocks, the even ones (0, 2, 4) sampled: 3
// children per cell, 2 runs each, so 6 runs per cell. Stacked: 12 seccomp
// samples (9 filter, 3 entry) of 30 at 100 Hz (10 ms each): 12 × 10 ms / 6
// = 20 ms per run; baseline 0. The split is of CPU time (half the run
// time here): measured added CPU 75 − 50.25 = 24.75 ms, the per-process
// term's CPU 2 ms, so indirect = 2.75 ms. The loop model's 18 ms
// [17, 19] lies inside the direct interval (Garwood for 12 is [6.20,
// 20.96], so [10.3, 34.9] ms): they agree. Sampling cost: 101 − 100 ms.
func TestDirectSplitFakeSampler(t *testing.T) {
	src := &fakeSource{gen: fakeGen}
	opts := &Options{Command: []string{"find", "/"}, Trials: 6, Confidence: 0.95, Seed: 1, DirectFrequency: 100, AB: command.DesignChildren,
		MeasureCommand: fakeDirectRun(src, 6, 16),
		OpenDirect: func(freq int) (DirectSource, func(*kstack.Sample) kstack.Verdict, error) {
			if freq != 100 {
				t.Errorf("opened at %d Hz, want 100", freq)
			}
			return src, fakeClassify, nil
		}}
	proc := stats.Estimate{Center: 5e6, Lo: 4e6, Hi: 6e6, Confidence: 0.95}
	model := stats.Estimate{Center: 18e6, Lo: 17e6, Hi: 19e6}
	opts.directClock = src.now
	procCPU := stats.Estimate{Center: 2e6, Lo: 1.5e6, Hi: 2.5e6, Confidence: 0.95}
	c, err := measureCommand(context.Background(), opts, nil, result.VariantDefeat, 16, model, proc, procCPU)
	if err != nil {
		t.Fatal(err)
	}
	d := c.Direct
	if d == nil || d.Unavailable != "" {
		t.Fatalf("direct = %+v", d)
	}
	if src.enabled != 6 || !src.closed {
		t.Errorf("sampling enabled %d times (want 6: 3 sampled blocks × 2 cells), closed %v", src.enabled, src.closed)
	}
	x, b := d.Stacked, d.Baseline
	if x.Filters != 16 || x.Runs != 6 || x.Samples != 30 || x.Seccomp != 12 || x.Filter != 9 || x.Entry != 3 {
		t.Errorf("stacked cell = %+v, want 16 filters, 6 runs, 30 samples, 12 seccomp (9 filter, 3 entry)", x)
	}
	if b.Filters != 0 || b.Runs != 6 || b.Samples != 30 || b.Seccomp != 0 {
		t.Errorf("baseline cell = %+v, want 6 runs, 30 samples, 0 seccomp", b)
	}
	near := func(got, want, tol float64) bool { return math.Abs(got-want) <= tol }
	for _, ck := range []struct {
		name      string
		got, want float64
	}{
		{"period", d.PeriodNs, 10e6},
		{"direct", d.DirectNs, 20e6},
		{"stacked seccomp low", x.SeccompCILowNs, 6.2006e6 * 10 / 6},
		{"stacked seccomp high", x.SeccompCIHighNs, 20.9605e6 * 10 / 6},
		{"indirect", d.IndirectNs, 2.75e6},
		{"split total", d.TotalNs, 24.75e6},
		{"split process", d.ProcessNs, 2e6},
		{"sampling cost", d.SamplingCostNs, 1e6},
		{"model", d.ModelNs, 18e6},
	} {
		if !near(ck.got, ck.want, 2e3) {
			t.Errorf("%s = %.0f, want %.0f", ck.name, ck.got, ck.want)
		}
	}
	if !d.ModelAgrees || d.SampledBlocks != 3 || d.UnsampledBlocks != 3 || d.FrequencyHz != 100 {
		t.Errorf("agrees %v, blocks %d/%d, %d Hz; want true, 3/3, 100", d.ModelAgrees, d.SampledBlocks, d.UnsampledBlocks, d.FrequencyHz)
	}
	// The interval of the indirect part is total − direct − process in
	// quadrature: here the direct part's ±10-15 ms dominates.
	want := stats.SplitAdded(stats.Estimate{Center: c.MeasuredCPUAddedNs, Lo: c.MeasuredCPUCILowNs, Hi: c.MeasuredCPUCIHighNs},
		stats.Estimate{Center: d.DirectNs, Lo: d.DirectCILowNs, Hi: d.DirectCIHighNs}, procCPU)
	if !near(d.IndirectCILowNs, want.Indirect.Lo, 1) || !near(d.IndirectCIHighNs, want.Indirect.Hi, 1) || d.IndirectResolved != want.Resolved {
		t.Errorf("indirect [%v, %v] resolved %v, want %+v", d.IndirectCILowNs, d.IndirectCIHighNs, d.IndirectResolved, want)
	}
	// Targets go back to this process after every child.
	if len(src.targets) != 12 || len(src.targets[0]) != 1 || src.targets[0][0] != int(selfTgid()) {
		t.Errorf("targets reset %d times to %v, want 12 times to this process", len(src.targets), src.targets)
	}

	// A model far from the samples disagrees.
	src2 := &fakeSource{gen: fakeGen}
	opts.MeasureCommand = fakeDirectRun(src2, 6, 16)
	opts.OpenDirect = func(int) (DirectSource, func(*kstack.Sample) kstack.Verdict, error) { return src2, fakeClassify, nil }
	opts.directClock = src2.now
	c, err = measureCommand(context.Background(), opts, nil, result.VariantDefeat, 16, stats.Estimate{Center: 100e6, Lo: 95e6, Hi: 105e6}, proc, stats.Estimate{})
	if err != nil || c.Direct.ModelAgrees {
		t.Errorf("model 100 ms [95, 105] agrees with direct [%v, %v] (err %v)", c.Direct.DirectCILowNs, c.Direct.DirectCIHighNs, err)
	}
}

// Without permission to sample, the estimate still measures the command
// and says in one line why there is no split.
func TestDirectNoPermission(t *testing.T) {
	opts := &Options{Command: []string{"find", "/"}, Trials: 4, Confidence: 0.95, Seed: 1, DirectFrequency: 99,
		MeasureCommand: fakeCommandRun([]float64{100e6, 101e6, 99e6, 100e6}, []float64{150e6, 151e6, 149e6, 150e6}, 16),
		OpenDirect: func(int) (DirectSource, func(*kstack.Sample) kstack.Verdict, error) {
			return nil, nil, &live.PermissionError{Op: "perf_event_open(cpu-clock, cpu 0)", Err: unix.EACCES, Need: "grant CAP_PERFMON"}
		}}
	c, err := measureCommand(context.Background(), opts, nil, result.VariantDefeat, 16, stats.Estimate{Center: 1e6, Lo: 0.9e6, Hi: 1.1e6}, stats.Estimate{}, stats.Estimate{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Direct == nil || !strings.Contains(c.Direct.Unavailable, "no permission to sample") || !strings.Contains(c.Direct.Unavailable, "CAP_PERFMON") {
		t.Fatalf("direct = %+v, want unavailable naming the permission", c.Direct)
	}
	if math.Abs(c.MeasuredAddedNs-50e6) > 1e6 {
		t.Errorf("measured added %v, want about 50 ms: the measurement must go on", c.MeasuredAddedNs)
	}
	var buf bytes.Buffer
	report.WriteEstimateCommandText(&buf, c, 0)
	lines := 0
	for _, l := range strings.Split(buf.String(), "\n") {
		if strings.Contains(l, "direct") {
			lines++
			if !strings.Contains(l, "not measured (no permission to sample") {
				t.Errorf("line %q", l)
			}
		}
	}
	if lines != 1 || strings.Contains(buf.String(), "split of added") {
		t.Errorf("want one line about the direct part and no split:\n%s", buf.String())
	}
	// Off: no direct part at all.
	opts.DirectFrequency = 0
	if c, err = measureCommand(context.Background(), opts, nil, result.VariantDefeat, 16, stats.Estimate{}, stats.Estimate{}, stats.Estimate{}); err != nil || c.Direct != nil {
		t.Errorf("--direct-frequency 0: direct %+v, err %v", c.Direct, err)
	}
}

// A sampling error during the runs reports the direct part unavailable
// and keeps the measurement.
func TestDirectSamplingFails(t *testing.T) {
	src := &fakeSource{gen: fakeGen, takeErr: errors.New("read samples: boom")}
	opts := &Options{Command: []string{"find", "/"}, Trials: 2, Confidence: 0.95, Seed: 1, DirectFrequency: 99, directClock: src.now,
		MeasureCommand: fakeDirectRun(src, 2, 4),
		OpenDirect: func(int) (DirectSource, func(*kstack.Sample) kstack.Verdict, error) {
			return src, fakeClassify, nil
		}}
	c, err := measureCommand(context.Background(), opts, nil, result.VariantDefeat, 4, stats.Estimate{}, stats.Estimate{}, stats.Estimate{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Direct == nil || !strings.Contains(c.Direct.Unavailable, "sampling failed: read samples: boom") {
		t.Errorf("direct = %+v", c.Direct)
	}
}

// TestDirectTallyPaired: in a paired design one child at N filters holds
// both sides; its seccomp samples are all the stack's and its unfiltered
// runs count for the baseline with no samples, so the direct time is the
// child's seccomp samples × period over its filtered runs. The sampling
// cost compares the unfiltered runs of sampled and unsampled blocks.
func TestDirectTallyPaired(t *testing.T) {
	src := &fakeSource{gen: fakeGen}
	now := src.now
	d := &directSampler{src: src, classify: fakeClassify, freq: 100, self: selfTgid(), now: now}
	var samples []result.Sample
	for b := range 4 {
		c := result.Cell{Variant: result.VariantDefeat, Filters: 16}
		src.cur = 16
		d.around(b, c)()
		samples = append(samples, result.Sample{Cell: c, Block: b, NsPerOp: 150e6, BaselineSamplesNsPerOp: []float64{100e6 + float64(1-b%2)*1e6},
			Command: &result.CommandSample{Runs: 2, Warmup: 1, BaseWallNs: []float64{1, 1}, CPUNs: []float64{1, 1}}})
	}
	base, x := d.tally(samples, 16)
	// Blocks 0 and 2 sampled: 2 children × 3 runs (warm-up included).
	if x.Runs != 6 || base.Runs != 6 || base.Samples != 0 || base.Seccomp != 0 || x.Seccomp != 8 || x.Samples != 20 {
		t.Errorf("paired tally: baseline %+v, stacked %+v; want 6 runs each, 8 of 20 samples stacked, none baseline", base, x)
	}
	cost, on, off := samplingCost(samples, &Options{Confidence: 0.95, Seed: 1})
	if on != 2 || off != 2 || math.Abs(cost.Delta-1e6) > 1 {
		t.Errorf("sampling cost %+v over %d/%d blocks, want +1 ms over 2/2", cost, on, off)
	}
}
