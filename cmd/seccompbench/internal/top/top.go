// Package top is the pipeline of `seccompbench top`: it opens a live
// sampling session (runner/live), switches the syscall counter on and off
// over the window, classifies the samples (internal/kstack), estimates
// each process's seccomp share (stats.BatchShare), reads its filters, and
// predicts what a merged stack would save. It computes; the command picks
// a renderer in report.
package top

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"sort"
	"time"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/internal/kstack"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/runner/inspect"
	"github.com/seccompbench/seccompbench/runner/live"
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/stats"
)

// Sampler is what a window needs of a live session (live.Session, or a
// fake in tests).
type Sampler interface {
	Take() ([]kstack.Sample, error)
	Flush()
	CountOn() error
	CountOff() error
	TakeCounts() ([]live.CallCount, error)
	Lost() uint64
	SetTargets(pids []int) error
	// CPUs is the number of CPUs sampled.
	CPUs() int
	Close() error
}

// Options say what to watch and how.
type Options struct {
	// Pids, Cgroup and All select the processes (exactly one is set).
	Pids   []int
	Cgroup string
	All    bool
	// Frequency is the sampling rate per CPU, in Hz.
	Frequency int
	// Batch is the batch length of the share intervals; 0 picks a twentieth
	// of each window, at least 50 ms (batchFor).
	Batch time.Duration
	// CountDuty is the share of each CountCycle the syscall counter is
	// attached, a fraction in (0, 1]; 0 never counts.
	CountDuty  float64
	CountCycle time.Duration
	// Confidence is the level of every interval.
	Confidence float64
	// Predict adds the merge predictions (needs the stack dumped).
	Predict bool
	// Seed seeds the placement of the counter's on-times in each cycle.
	Seed uint64

	// Kernel access; tests replace them. Check runs first and says which
	// permission is missing.
	Check     func() error
	Open      func(live.Options) (Sampler, error)
	Monotonic func() uint64
	Now       func() time.Time
	Sleep     func(ctx context.Context, d time.Duration) error
	Kallsyms  func() ([]byte, error)
	ProcCPU   func(pid int) (string, time.Duration, error)
	// TaskCPU returns a process's CPU time to the ns (live.TaskCPU); with
	// --pid it scales the counted calls by CPU time (see process).
	TaskCPU    func(pid int) (time.Duration, error)
	Status     func(pid int) (result.ProcStatus, error)
	Dump       func(pid int) ([][]byte, error)
	CgroupPids func(dir string) ([]int, error)
	ListPids   func() ([]int, error)
}

// Validate checks the sampling options given on the command line; errors are
// *cmdutil.FlagError (exit code 2) naming the flag.
func (o *Options) Validate() error {
	if o.Batch < 0 {
		return cmdutil.FlagErrorf("--batch: %v is negative", o.Batch)
	}
	if o.Frequency < 1 || o.Frequency > 10000 {
		return cmdutil.FlagErrorf("--frequency: %d Hz is not in 1..10000", o.Frequency)
	}
	if o.CountDuty < 0 || o.CountDuty > 1 {
		return cmdutil.FlagErrorf("--count-duty: %v is not a fraction in [0, 1]", o.CountDuty)
	}
	if !(o.Confidence > 0 && o.Confidence < 1) {
		return cmdutil.FlagErrorf("--confidence: %v is not a fraction in (0, 1)", o.Confidence)
	}
	return nil
}

// DefaultCountDuty is the default share of each second the syscall
// counter is attached. On a syscall-bound loop it cost about 2 % of the
// loop's time over the window at 5 % duty and 0.4 % at 2 % (docs/top.md,
// "Overhead"): the sys_exit tracepoint slows every syscall by far more
// than the samples landing in the counter show.
const DefaultCountDuty = 0.02

// DefaultOptions returns the options of the real kernel.
func DefaultOptions() Options {
	return Options{
		Frequency:  live.DefaultFrequency,
		Batch:      0,
		CountDuty:  DefaultCountDuty,
		CountCycle: time.Second,
		Confidence: 0.95,
		Predict:    true,
		Seed:       1,
		Check:      live.CheckPermissions,
		Open: func(o live.Options) (Sampler, error) {
			s, err := live.Open(o)
			if err != nil {
				return nil, err
			}
			return s, nil
		},
		Monotonic:  live.Monotonic,
		Now:        time.Now,
		Sleep:      sleepCtx,
		Kallsyms:   live.ReadKallsyms,
		ProcCPU:    live.ProcCPU,
		TaskCPU:    live.TaskCPU,
		Status:     inspect.ReadProcStatus,
		Dump:       inspect.DumpFilters,
		CgroupPids: live.CgroupPids,
		ListPids:   inspect.ListPids,
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Watcher runs windows over one open session.
type Watcher struct {
	opts *Options
	s    Sampler
	cls  *kstack.Classifier
	rng  *rand.Rand
	// stacks caches dumped stacks per pid (a process's filters only
	// grow; the count in /proc/PID/status says when to dump again).
	stacks map[int]dumped
}

type dumped struct {
	stack filters.Stack
	err   error
}

// Open checks the selection, reads the kernel symbols and opens the
// sampling session. Close the Watcher to detach everything.
func Open(opts *Options) (*Watcher, error) {
	if opts.Check != nil {
		if err := opts.Check(); err != nil {
			return nil, err
		}
	}
	ks, err := opts.Kallsyms()
	if err != nil {
		return nil, err
	}
	syms, err := kstack.ParseKallsyms(ks)
	if err != nil {
		if errors.Is(err, kstack.ErrHiddenAddresses) {
			return nil, fmt.Errorf("%w: /proc/kallsyms shows no addresses to this process; run as root or grant CAP_SYSLOG (kernel/kallsyms.c: kallsyms_show_value also shows them with kernel.kptr_restrict 0 and kernel.perf_event_paranoid <= 1)", err)
		}
		return nil, err
	}
	pids, err := opts.targets()
	if err != nil {
		return nil, err
	}
	// A --pid that names no process would sample nothing and report
	// "no samples": say so before attaching anything.
	for _, p := range opts.Pids {
		if _, _, err := opts.ProcCPU(p); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("--pid %d: no such process", p)
		}
	}
	s, err := opts.Open(live.Options{Pids: pids, All: opts.All, Frequency: opts.Frequency})
	if err != nil {
		return nil, err
	}
	return &Watcher{opts: opts, s: s, cls: kstack.NewClassifier(syms), rng: rand.New(rand.NewPCG(opts.Seed, 0x70b)), stacks: map[int]dumped{}}, nil
}

// Close detaches the counter and the sampler.
func (w *Watcher) Close() error { return w.s.Close() }

// targets returns the pids to sample now (nil with All).
func (o *Options) targets() ([]int, error) {
	switch {
	case o.All:
		return nil, nil
	case o.Cgroup != "":
		return o.CgroupPids(o.Cgroup)
	}
	return o.Pids, nil
}

// Window samples for d (until ctx ends, then what was sampled so far) and
// returns the report of that window.
func (w *Watcher) Window(ctx context.Context, d time.Duration) (*report.Top, error) {
	o := w.opts
	if o.Cgroup != "" {
		pids, err := o.targets()
		if err != nil {
			return nil, err
		}
		if err := w.s.SetTargets(pids); err != nil {
			return nil, err
		}
	}
	// Drop what an earlier window left.
	w.s.Flush()
	if _, err := w.s.Take(); err != nil {
		return nil, err
	}
	if _, err := w.s.TakeCounts(); err != nil {
		return nil, err
	}
	startWall := o.Now()
	cpu0 := w.cpuTimes(o.Pids)
	onCPU := map[int]time.Duration{}
	task0 := w.taskCPUs()
	start := o.Monotonic()
	on, runErr := w.cycle(ctx, d, onCPU)
	end := o.Monotonic()
	task1 := w.taskCPUs()
	cpu1 := w.cpuTimes(nil)
	w.s.Flush()
	samples, err := w.s.Take()
	if err != nil {
		return nil, err
	}
	counts, err := w.s.TakeCounts()
	if err != nil {
		return nil, err
	}
	if runErr != nil && !errors.Is(runErr, context.Canceled) && !errors.Is(runErr, context.DeadlineExceeded) {
		return nil, runErr
	}
	in := windowInput{start: start, end: end, startWall: startWall, on: on, samples: samples, counts: counts,
		cpu0: cpu0, cpu1: cpu1, task0: task0, task1: task1, onCPU: onCPU, lost: w.s.Lost()}
	return w.build(in), nil
}

// cycle runs the window: in each CountCycle the counter is attached for
// CountDuty of it, at a random offset. It returns the on-intervals and
// adds each --pid target's CPU time while attached to onCPU.
func (w *Watcher) cycle(ctx context.Context, d time.Duration, onCPU map[int]time.Duration) ([]kstack.Interval, error) {
	o := w.opts
	var on []kstack.Interval
	deadline := o.Monotonic() + uint64(d)
	for {
		now := o.Monotonic()
		if now >= deadline {
			return on, nil
		}
		cyc := min(o.CountCycle, time.Duration(deadline-now))
		onFor := time.Duration(float64(cyc) * o.CountDuty)
		if o.CountDuty <= 0 || onFor <= 0 {
			if err := o.Sleep(ctx, cyc); err != nil {
				return on, err
			}
			continue
		}
		off := time.Duration(w.rng.Int64N(int64(cyc-onFor) + 1))
		if err := o.Sleep(ctx, off); err != nil {
			return on, err
		}
		if err := w.s.CountOn(); err != nil {
			return on, err
		}
		// The targets' CPU time while counting, read inside the
		// attached interval: detaching waits for an RCU grace period,
		// during which nothing is counted.
		a := w.taskCPUs()
		t0 := o.Monotonic()
		err := o.Sleep(ctx, onFor)
		t1 := o.Monotonic()
		b := w.taskCPUs()
		if cerr := w.s.CountOff(); cerr != nil && err == nil {
			err = cerr
		}
		for pid, ca := range a {
			if cb, ok := b[pid]; ok && cb >= ca {
				onCPU[pid] += cb - ca
			}
		}
		on = append(on, kstack.Interval{Start: t0, End: t1})
		if err != nil {
			return on, err
		}
		if err := o.Sleep(ctx, cyc-onFor-off); err != nil {
			return on, err
		}
	}
}

// cpuTimes reads the CPU time of pids (or of every process read before,
// when pids is nil: the caller passes nil at the window's end and the
// samples decide which processes are reported).
func (w *Watcher) cpuTimes(pids []int) map[int]procCPU {
	out := map[int]procCPU{}
	if pids == nil {
		var err error
		if pids, err = w.opts.ListPids(); err != nil {
			return out
		}
	}
	for _, p := range pids {
		comm, cpu, err := w.opts.ProcCPU(p)
		if err == nil {
			out[p] = procCPU{comm: comm, cpu: cpu}
		}
	}
	return out
}

// taskCPUs reads the exact CPU time of each --pid target (Options.TaskCPU);
// nil for other selections or without TaskCPU. A process that cannot be
// read is left out.
func (w *Watcher) taskCPUs() map[int]time.Duration {
	if w.opts.TaskCPU == nil || len(w.opts.Pids) == 0 {
		return nil
	}
	out := make(map[int]time.Duration, len(w.opts.Pids))
	for _, p := range w.opts.Pids {
		if c, err := w.opts.TaskCPU(p); err == nil {
			out[p] = c
		}
	}
	return out
}

type procCPU struct {
	comm string
	cpu  time.Duration
}

type windowInput struct {
	start, end uint64
	startWall  time.Time
	on         []kstack.Interval
	samples    []kstack.Sample
	counts     []live.CallCount
	cpu0, cpu1 map[int]procCPU
	// task0 and task1 are the --pid targets' exact CPU times at the
	// window's start and end, onCPU their CPU time while counting (nil
	// or missing: scale calls by samples).
	task0, task1, onCPU map[int]time.Duration
	lost                uint64
}

// build turns one window's raw data into the report.
func (w *Watcher) build(in windowInput) *report.Top {
	o := w.opts
	batch := batchFor(o.Batch, time.Duration(in.end-in.start))
	tallies := kstack.TallySamples(w.cls, in.samples, kstack.TallyOptions{Start: in.start, End: in.end, BatchNs: uint64(batch), CounterOn: in.on})
	period := float64(time.Second) / float64(o.Frequency)
	var onNs uint64
	for _, iv := range in.on {
		onNs += iv.End - iv.Start
	}
	window := in.end - in.start
	t := &report.Top{SchemaVersion: report.TopSchemaVersion, Kind: "top", Start: in.startWall.UTC().Format(time.RFC3339),
		WindowNs: int64(window), Processes: []report.TopProcess{}, Warnings: []string{},
		Method: report.TopMethod{SamplingHz: o.Frequency, PeriodNs: int64(period), CPUs: w.s.CPUs(), BatchNs: int64(batch),
			Confidence: o.Confidence, CountDuty: float64(onNs) / math.Max(1, float64(window)), CountOnNs: int64(onNs), LostSamples: in.lost}}
	callsBy := map[uint32]map[int32]uint64{}
	for _, c := range in.counts {
		if callsBy[c.Tgid] == nil {
			callsBy[c.Tgid] = map[int32]uint64{}
		}
		callsBy[c.Tgid][c.Nr] += c.Calls
	}
	var counted, counter int
	for _, tl := range tallies {
		counted += tl.CountedSamples
		counter += tl.CounterSamples
		t.Processes = append(t.Processes, w.process(tl, in, callsBy[tl.Tgid], period))
	}
	if counted > 0 {
		share := float64(counter) / float64(counted)
		t.Method.CounterShare = report.Nullable(share)
		t.Method.CounterOverhead = report.Nullable(share * t.Method.CountDuty)
	}
	if in.lost > 0 {
		t.Warnings = append(t.Warnings, fmt.Sprintf("%d samples were lost (ring buffer full): shares are still unbiased, CPU times from samples are low", in.lost))
	}
	sort.SliceStable(t.Processes, func(i, j int) bool { return t.Processes[i].SeccompNs > t.Processes[j].SeccompNs })
	return t
}

// maxCounterShareError is the relative error of the calls' scale, at
// --confidence,
// from the binomial error of the counter's own share of the time while
// counting, above which a --pid process's call counts get a warning.
const maxCounterShareError = 0.10

// minCountedSamples is the number of a process's samples taken while the
// counter was attached below which the call counts get a warning: 100
// samples give the scale an error of about ±20 % at 95 % confidence.
const minCountedSamples = 100

// batchFor returns the batch length for a window: set, or a twentieth of
// the window (BatchShare wants at least 10 batches) but at least 50 ms, so
// that a batch holds about 50 samples of a busy thread at 997 Hz.
func batchFor(set, window time.Duration) time.Duration {
	if set > 0 {
		return set
	}
	return max(window/20, 50*time.Millisecond)
}

// process builds one process's report entry.
func (w *Watcher) process(tl *kstack.Tally, in windowInput, calls map[int32]uint64, period float64) report.TopProcess {
	o := w.opts
	pid := int(tl.Tgid)
	p := report.TopProcess{Pid: pid, Samples: tl.Samples, SeccompSamples: tl.Seccomp, FilterSamples: tl.Filter, InferredSamples: tl.Inferred,
		SampledCPUNs: float64(tl.Samples) * period, FilterHashes: []report.TopFilter{}, Syscalls: []report.TopSyscall{}, Warnings: []string{}}
	c0, ok0 := in.cpu0[pid]
	c1, ok1 := in.cpu1[pid]
	p.Comm = c1.comm
	if p.Comm == "" {
		p.Comm = c0.comm
	}
	if p.Comm == "" {
		p.Comm = tl.Comm
	}
	if ok0 && ok1 {
		p.CPUNs = float64(c1.cpu - c0.cpu)
	} else {
		p.CPUNs = p.SampledCPUNs
		p.Warnings = append(p.Warnings, "CPU time from samples (the process started or ended in the window)")
	}
	bs := make([]stats.Batch, len(tl.Batches))
	for i, b := range tl.Batches {
		bs[i] = stats.Batch{Hits: float64(b.Hits), Total: float64(b.Total)}
	}
	sh := stats.BatchShare(bs, o.Confidence)
	p.SeccompShare, p.SeccompShareCILow, p.SeccompShareCIHigh = report.Nullable(sh.Center), report.Nullable(sh.Lo), report.Nullable(sh.Hi)
	if !math.IsNaN(sh.Center) {
		p.SeccompNs = sh.Center * p.CPUNs
	}
	p.Warnings = append(p.Warnings, sh.Warnings...)
	scale, by, warns := callScale(tl, in, pid, len(calls) > 0, period, o.Confidence)
	p.CallsScaledBy = by
	p.Warnings = append(p.Warnings, warns...)
	native := filters.ArchX86_64
	for nr, n := range tl.SeccompByNr {
		s := report.TopSyscall{Nr: int(nr), Name: syscallName(native, nr), Samples: n, SeccompNs: float64(n) / float64(tl.Samples) * p.CPUNs}
		if c, ok := calls[int32(nr)]; ok && c > 0 && !math.IsNaN(scale) {
			est := float64(c) * scale
			s.Calls = &est
			s.SeccompNsPerCall = report.Nullable(s.SeccompNs / est)
		}
		p.Syscalls = append(p.Syscalls, s)
	}
	sort.Slice(p.Syscalls, func(i, j int) bool {
		if p.Syscalls[i].Samples != p.Syscalls[j].Samples {
			return p.Syscalls[i].Samples > p.Syscalls[j].Samples
		}
		return p.Syscalls[i].Nr < p.Syscalls[j].Nr
	})
	w.filters(&p)
	return p
}

// callScale is how process pid's calls, counted while the counter was
// on, scale to the window (NaN when they cannot: no calls counted), what
// the scale came from ("cpu_time", "samples", ""), and the warnings on
// its error at confidence. period is the sampling period in ns.
func callScale(tl *kstack.Tally, in windowInput, pid int, counted bool, period, confidence float64) (float64, string, []string) {
	var by string
	var warns []string
	// Calls counted while the counter was on, scaled to the window by the
	// process's CPU time outside the counter: calls track the work the
	// process does, and the counter's own time (its samples × the
	// period, spent only while on) slows it while on. With --pid the CPU
	// times are exact (schedstat, read inside each attached interval);
	// otherwise they are the process's samples, whose ratio carries
	// Poisson error.
	scale := math.NaN()
	if onCPU, ok := in.onCPU[pid]; ok && onCPU > 0 && counted {
		t0, ok0 := in.task0[pid]
		t1, ok1 := in.task1[pid]
		ctr := float64(tl.CounterSamples) * period
		if busyOn := float64(onCPU) - ctr; ok0 && ok1 && t1 > t0 && busyOn > 0 {
			scale = (float64(t1-t0) - ctr) / busyOn
			by = "cpu_time"
			// The CPU times are exact, but the counter's own share f of
			// the time while counting comes from its samples: n samples
			// while on give f a binomial error, and the scale moves by
			// 1/(1−f).
			if n := tl.CountedSamples; n > 0 {
				f := float64(tl.CounterSamples) / float64(n)
				// With no counter sample, f's error is taken as that of
				// one sample in n+1, not 0.
				fe := math.Max(f, 1/float64(n+1))
				if e := stats.ZQuantile(confidence) * math.Sqrt(fe*(1-fe)/float64(n)) / (1 - f); e > maxCounterShareError {
					warns = append(warns, fmt.Sprintf("calls scaled by exact CPU time less the counter's own share, %.0f%% from %d samples taken while counting (about ±%.0f%% on calls and ns per call): raise --count-duty or --duration",
						100*f, n, 100*e))
				}
			}
		}
	}
	if busyOn := tl.CountedSamples - tl.CounterSamples; math.IsNaN(scale) && busyOn > 0 && counted {
		by = "samples"
		scale = float64(tl.Samples-tl.CounterSamples) / float64(busyOn)
		if busyOn < minCountedSamples && counted {
			// The scale is a ratio of sample counts: its relative error is
			// about 1/sqrt(busyOn) (Poisson), before correlation; shown at
			// --confidence.
			warns = append(warns, fmt.Sprintf("calls scaled from %d samples taken while counting (about ±%.0f%% on calls and ns per call): raise --count-duty or --duration",
				busyOn, 100*stats.ZQuantile(confidence)/math.Sqrt(float64(busyOn))))
		}
	}
	return scale, by, warns
}

// syscallName names an orig_ax value of the x86_64 entry: the x86_64
// table, "x32:NAME" with the x32 bit (__X32_SYSCALL_BIT, 0x40000000),
// "nr N" when the table has no name (a 32-bit process's numbers are
// i386's and read wrong: orig_ax alone does not say which table).
func syscallName(a *filters.Arch, nr int64) string {
	if nr < 0 {
		return fmt.Sprintf("nr %d", nr)
	}
	if nr&0x40000000 != 0 {
		if n := filters.ArchX32.SyscallName(int(nr &^ 0x40000000)); n != "" {
			return "x32:" + n
		}
	}
	if n := a.SyscallName(int(nr)); n != "" {
		return n
	}
	return fmt.Sprintf("nr %d", nr)
}
