package estimate

import (
	"errors"
	"fmt"
	"math"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/seccompbench/seccompbench/internal/kstack"
	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/runner/live"
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/stats"
)

// DirectSource is what the direct-time sampler needs of a sampling
// session: live.Session, or a fake in tests.
type DirectSource interface {
	// SetEnabled starts or stops taking samples.
	SetEnabled(on bool) error
	// SetTargets replaces the processes sampled (and followed into
	// their children).
	SetTargets(pids []int) error
	// Flush and Take hand over the samples taken so far.
	Flush()
	Take() ([]kstack.Sample, error)
	// Lost counts samples dropped by a full buffer.
	Lost() uint64
	Close() error
}

// DirectOpener opens a DirectSource sampling this process and every
// process it forks from then on at freq Hz per CPU, paused, and returns
// the function that classifies a sample. Errors say why sampling is not
// possible (a *live.PermissionError, live.ErrNotSupported).
type DirectOpener func(freq int) (DirectSource, func(*kstack.Sample) kstack.Verdict, error)

// openLiveDirect is the DirectOpener of runner/live: a cpu-clock session
// on every CPU whose targets follow forks (live.Options.Follow), and a
// classifier over /proc/kallsyms. The command's processes are not known
// when the measurement starts (the timing child forks a wrapper per run,
// the wrapper execs the command, which may fork more), so the session
// targets this process and follows its descendants: a sched_process_fork
// program adds each child of a target as it is created. The alternatives
// need more: a cgroup per measurement moves processes on the host, and
// inherited per-task perf events add one event per CPU to every fork
// the command makes.
func openLiveDirect(freq int) (DirectSource, func(*kstack.Sample) kstack.Verdict, error) {
	if err := live.CheckPermissions(); err != nil {
		return nil, nil, err
	}
	ks, err := live.ReadKallsyms()
	if err != nil {
		return nil, nil, err
	}
	syms, err := kstack.ParseKallsyms(ks)
	if err != nil {
		return nil, nil, fmt.Errorf("kernel symbols: %w (run as root or grant CAP_SYSLOG)", err)
	}
	s, err := live.Open(live.Options{Pids: []int{os.Getpid()}, Follow: true, Paused: true, Frequency: freq})
	if err != nil {
		return nil, nil, err
	}
	return s, kstack.NewClassifier(syms).Classify, nil
}

// directWindow is one child of the measurement: its block and cell,
// whether it was sampled, and its CLOCK_MONOTONIC span [start, end) in ns.
type directWindow struct {
	block      int
	cell       result.Cell
	sampled    bool
	start, end uint64
}

// directSampler samples the command's processes during the measurement's
// children, every other block (even blocks sampled, odd ones not, so the
// cost of sampling is measured on the same cells), and attributes each
// sample to the child whose span holds its time. Its around method is
// runner.Config.AroundChild.
type directSampler struct {
	src      DirectSource
	classify func(*kstack.Sample) kstack.Verdict
	freq     int
	self     uint32
	now      func() uint64
	windows  []directWindow
	samples  []kstack.Sample
	err      error
}

// monotonicNs is CLOCK_MONOTONIC in ns, the clock of bpf_ktime_get_ns.
func monotonicNs() uint64 {
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return uint64(ts.Nano())
}

// note keeps the first error.
func (d *directSampler) note(err error) {
	if err != nil && d.err == nil {
		d.err = err
	}
}

// around starts sampling before a child of an even block and returns the
// function that stops it, collects the samples and resets the targets to
// this process (the child's processes are gone; their IDs may be reused).
func (d *directSampler) around(b int, c result.Cell) func() {
	w := directWindow{block: b, cell: c, sampled: b%2 == 0}
	if w.sampled {
		d.note(d.src.SetEnabled(true))
	}
	w.start = d.now()
	return func() {
		w.end = d.now()
		if w.sampled {
			d.note(d.src.SetEnabled(false))
			d.src.Flush()
			got, err := d.src.Take()
			d.note(err)
			d.samples = append(d.samples, got...)
		}
		d.note(d.src.SetTargets([]int{int(d.self)}))
		d.windows = append(d.windows, w)
	}
}

// window returns the sampled child whose span holds t, or nil.
func (d *directSampler) window(t uint64) *directWindow {
	for i := range d.windows {
		w := &d.windows[i]
		if w.sampled && w.start <= t && t < w.end {
			return w
		}
	}
	return nil
}

// tally counts the samples of the command's processes (every process but
// this one) per cell: the baseline (0 filters) and the stacked cell, with
// the runs of their sampled children (warm-up runs included: they were
// sampled too) taken from the measurement's samples. In the paired
// designs (pairs, duet) a child holds both sides: its samples all count
// for the stacked cell (Samples then includes the unfiltered runs'), and
// its unfiltered runs for the baseline's Runs.
func (d *directSampler) tally(samples []result.Sample, n int) (base, stacked document.DirectCell) {
	base.Filters, stacked.Filters = 0, n
	cell := func(c result.Cell) *document.DirectCell {
		if c.Filters == 0 {
			return &base
		}
		return &stacked
	}
	type key struct{ block, filters int }
	sampled := map[key]bool{}
	for _, w := range d.windows {
		if w.sampled {
			sampled[key{w.block, w.cell.Filters}] = true
		}
	}
	for _, s := range samples {
		if sampled[key{s.Block, s.Filters}] && s.Command != nil {
			cell(s.Cell).Runs += s.Command.Warmup + s.Command.Runs
			if pairedSample(s) {
				// A paired child ran as many unfiltered runs as
				// filtered ones. They cannot spend time in seccomp: a
				// task without filters never enters it
				// (kernel/seccomp.c: __secure_computing runs only with
				// SYSCALL_WORK_SECCOMP, set when a filter is attached),
				// so every seccomp sample of the child is the stack's
				// and the baseline side counts runs with no samples.
				base.Runs += s.Command.Warmup + s.Command.Runs
			}
		}
	}
	for i := range d.samples {
		smp := &d.samples[i]
		w := d.window(smp.Time)
		if smp.Tgid == d.self || w == nil {
			continue
		}
		dc := cell(w.cell)
		dc.Samples++
		v := d.classify(smp)
		if v.Class != kstack.ClassSeccomp {
			continue
		}
		dc.Seccomp++
		if v.Part == kstack.PartFilter {
			dc.Filter++
		} else {
			dc.Entry++
		}
	}
	return base, stacked
}

// pairedSample reports that s is a child of a paired design (pairs,
// duet), which holds its own unfiltered runs.
func pairedSample(s result.Sample) bool {
	return s.Command != nil && len(s.Command.BaseWallNs) > 0
}

// samplingCost compares the baseline runs of sampled blocks with those of
// unsampled ones (the 0-filter children, or a paired child's unfiltered
// runs): what sampling added to a baseline run, with
// its bootstrap interval (NaN with fewer than two of either), and the
// numbers of sampled and unsampled blocks.
func samplingCost(samples []result.Sample, opts *Options) (stats.Diff, int, int) {
	var on, off []float64
	blocks := map[int]bool{}
	for _, s := range samples {
		blocks[s.Block] = true
		x := s.NsPerOp
		switch {
		case pairedSample(s):
			x = stats.Median(s.BaselineSamplesNsPerOp)
		case s.Filters != 0:
			continue
		}
		if s.Block%2 == 0 {
			on = append(on, x)
		} else {
			off = append(off, x)
		}
	}
	nOn := 0
	for b := range blocks {
		if b%2 == 0 {
			nOn++
		}
	}
	return stats.RobustDiff(off, on, opts.Confidence, opts.Seed), nOn, len(blocks) - nOn
}

// directResult turns the samples into the report's direct part. meas is
// the measured added CPU time (user+sys) per run, proc the per-process
// term's CPU time (zero when not measured), model the loop model's per-syscall prediction for one run
// (calibration interval). It never fails: what cannot be computed is
// said in Unavailable.
func (d *directSampler) directResult(samples []result.Sample, n int, meas, proc, model stats.Estimate, opts *Options) *document.CommandDirect {
	if d.err != nil {
		return &document.CommandDirect{Unavailable: "sampling failed: " + d.err.Error()}
	}
	period := float64(time.Second) / float64(d.freq)
	out := &document.CommandDirect{FrequencyHz: d.freq, PeriodNs: period, LostSamples: d.src.Lost()}
	out.Baseline, out.Stacked = d.tally(samples, n)
	b, x := &out.Baseline, &out.Stacked
	dt, err := stats.EstimateDirect(x.Seccomp, x.Runs, b.Seccomp, b.Runs, period, opts.Confidence)
	if err != nil {
		return &document.CommandDirect{Unavailable: err.Error()}
	}
	b.SeccompNs, b.SeccompCILowNs, b.SeccompCIHighNs = dt.Baseline.Center, dt.Baseline.Lo, dt.Baseline.Hi
	x.SeccompNs, x.SeccompCILowNs, x.SeccompCIHighNs = dt.Stacked.Center, dt.Stacked.Lo, dt.Stacked.Hi
	out.DirectNs, out.DirectCILowNs, out.DirectCIHighNs = dt.Direct.Center, dt.Direct.Lo, dt.Direct.Hi
	cost, on, off := samplingCost(samples, opts)
	out.SampledBlocks, out.UnsampledBlocks = on, off
	out.SamplingCostNs, out.SamplingCostCILowNs, out.SamplingCostCIHighNs, out.SamplingCostPct = cost.Delta, cost.Lo, cost.Hi, cost.Pct
	if math.IsNaN(cost.Lo) {
		out.SamplingCostNs, out.SamplingCostPct = math.NaN(), math.NaN()
	}
	out.ModelNs, out.ModelCILowNs, out.ModelCIHighNs = model.Center, model.Lo, model.Hi
	out.ModelAgrees = model.Lo <= dt.Direct.Hi && dt.Direct.Lo <= model.Hi
	sp := stats.SplitAdded(meas, dt.Direct, proc)
	out.TotalNs, out.TotalCILowNs, out.TotalCIHighNs = meas.Center, meas.Lo, meas.Hi
	out.ProcessNs, out.ProcessCILowNs, out.ProcessCIHighNs = proc.Center, proc.Lo, proc.Hi
	out.IndirectNs, out.IndirectCILowNs, out.IndirectCIHighNs = sp.Indirect.Center, sp.Indirect.Lo, sp.Indirect.Hi
	out.IndirectResolved, out.IndirectWhy = sp.Resolved, sp.Why
	return out
}

// startDirect opens the direct-time sampler at opts.DirectFrequency Hz;
// nil and a one-line reason when sampling is not possible, nil and ""
// when it is off (--direct-frequency 0).
func startDirect(opts *Options) (*directSampler, string) {
	if opts.DirectFrequency <= 0 {
		return nil, ""
	}
	open := opts.OpenDirect
	if open == nil {
		open = openLiveDirect
	}
	src, classify, err := open(opts.DirectFrequency)
	if err != nil {
		var pe *live.PermissionError
		if errors.As(err, &pe) {
			return nil, fmt.Sprintf("no permission to sample: %s refused; %s", pe.Op, pe.Need)
		}
		return nil, err.Error()
	}
	now := opts.directClock
	if now == nil {
		now = monotonicNs
	}
	return &directSampler{src: src, classify: classify, freq: opts.DirectFrequency, self: uint32(os.Getpid()), now: now}, ""
}
