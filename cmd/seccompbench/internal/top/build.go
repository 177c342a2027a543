package top

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/internal/kstack"
	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/runner/live"
	"github.com/seccompbench/seccompbench/stats"
)

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
	// exited are the --pid targets that exited by the window's end,
	// reported as exited in this window only (Watcher.exitedTargets).
	exited map[int]bool
}

// build turns one window's raw data into the report.
func (w *Watcher) build(in windowInput) *document.Top {
	o := w.opts
	batch := batchFor(o.Batch, time.Duration(in.end-in.start))
	tallies := kstack.TallySamples(w.cls, in.samples, kstack.TallyOptions{Start: in.start, End: in.end, BatchNs: uint64(batch), CounterOn: in.on})
	period := float64(time.Second) / float64(o.Frequency)
	var onNs uint64
	for _, iv := range in.on {
		onNs += iv.End - iv.Start
	}
	window := in.end - in.start
	t := &document.Top{SchemaVersion: document.TopSchemaVersion, Kind: "top", Start: in.startWall.UTC().Format(time.RFC3339),
		WindowNs: int64(window), Processes: []document.TopProcess{}, Warnings: []string{},
		Method: document.TopMethod{SamplingHz: o.Frequency, PeriodNs: int64(period), CPUs: w.s.CPUs(), BatchNs: int64(batch),
			Confidence: o.Confidence, CountDuty: float64(onNs) / math.Max(1, float64(window)), CountOnNs: int64(onNs), LostSamples: in.lost,
			MinSyscallSamples: MinSyscallSamples, MinCountedCalls: MinCountedCalls, CounterNsPerCall: document.Nullable(w.counterNs)}}
	if w.counterErr != nil {
		t.Warnings = append(t.Warnings, fmt.Sprintf("the counter's cost per call could not be measured (%v): calls are scaled with its samples alone, which miss most of it, so they may be low", w.counterErr))
	}
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
	t.Processes = append(t.Processes, w.unsampledTargets(tallies, in, period)...)
	if counted > 0 {
		share := float64(counter) / float64(counted)
		t.Method.CounterShare = document.Nullable(share)
		t.Method.CounterOverhead = document.Nullable(share * t.Method.CountDuty)
	}
	if in.lost > 0 {
		t.Warnings = append(t.Warnings, fmt.Sprintf("%d samples were lost (ring buffer full): shares are still unbiased, CPU times from samples are low", in.lost))
	}
	sortProcesses(t.Processes)
	if o.Children {
		t.Children = &document.TopChildren{AtStart: w.atStart, Since: w.found - w.atStart}
	}
	return t
}

// process builds one process's report entry.
func (w *Watcher) process(tl *kstack.Tally, in windowInput, calls map[int32]uint64, period float64) document.TopProcess {
	o := w.opts
	pid := int(tl.Tgid)
	p := document.TopProcess{Pid: pid, Samples: tl.Samples, SeccompSamples: tl.Seccomp, FilterSamples: tl.Filter, InferredSamples: tl.Inferred,
		SampledCPUNs: float64(tl.Samples) * period, FilterHashes: []document.TopFilter{}, Syscalls: []document.TopSyscall{}, Warnings: []string{}}
	c0, ok0 := in.cpu0[pid]
	c1, ok1 := in.cpu1[pid]
	if target, child := w.childOf(pid); child {
		p.Child = true
		if target > 0 {
			p.ChildOf = &target
		}
	}
	p.Comm = c1.comm
	if p.Comm == "" {
		p.Comm = c0.comm
	}
	if p.Comm == "" {
		p.Comm = tl.Comm
	}
	if _, target := w.comms[pid]; target {
		w.comms[pid] = p.Comm
	}
	if in.exited[pid] {
		p.Exited = true
		p.Warnings = append(p.Warnings, "the process exited in this window; it is not listed again")
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
	p.SeccompShare, p.SeccompShareCILow, p.SeccompShareCIHigh = document.Nullable(sh.Center), document.Nullable(sh.Lo), document.Nullable(sh.Hi)
	if !math.IsNaN(sh.Center) {
		p.SeccompNs = sh.Center * p.CPUNs
	}
	p.Warnings = append(p.Warnings, sh.Warnings...)
	var counted uint64
	for _, c := range calls {
		counted += c
	}
	scale, by, scaleErr, warns := callScale(tl, in, pid, counted, w.counterNs, period, o.Confidence)
	p.CallsScaledBy = by
	p.Warnings = append(p.Warnings, warns...)
	native := filters.ArchX86_64
	for nr, n := range tl.SeccompByNr {
		s := syscallRow(nr, n, tl.Samples, p.CPUNs, calls[int32(nr)], scale, scaleErr, o.Confidence)
		s.Name = syscallName(native, nr)
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

// MinSyscallSamples is the number of seccomp samples a syscall's row
// needs before its per-call cost is given: 20 samples put the exact
// Poisson interval at about −40 % / +55 % at 95 %. Below it a row keeps
// its seccomp time and intervals, and its per-call cost is null and
// marked document.TopFewSamples: a per-call figure from one or two samples
// is mostly noise, and since only syscalls that drew a sample are
// listed, such figures come out high on average.
const MinSyscallSamples = 20

// MinCountedCalls is the number of calls the counter must have seen for
// a syscall's per-call cost to be given (document.TopFewCalls below it).
const MinCountedCalls = 20

// syscallRow is one syscall's row: n of the process's total samples
// were seccomp samples of it, cpuNs is the process's CPU time in the
// window (ns), counted the calls the counter saw (0: none), scale what
// scales them to the window (NaN: they cannot be) and scaleErr the
// scale's relative error at confidence (callScale).
func syscallRow(nr int64, n, total int, cpuNs float64, counted uint64, scale, scaleErr, confidence float64) document.TopSyscall {
	per := cpuNs / float64(total)
	s := document.TopSyscall{Nr: int(nr), Samples: n, CountedCalls: counted, SeccompNs: float64(n) * per}
	ci := stats.ScaleEstimate(stats.PoissonCount(n, confidence), per)
	s.SeccompNsCILow, s.SeccompNsCIHigh = document.Nullable(ci.Lo), document.Nullable(ci.Hi)
	switch {
	case counted == 0 || math.IsNaN(scale):
		s.Unresolved = document.TopNotCounted
	case n < MinSyscallSamples:
		s.Unresolved = document.TopFewSamples
	case counted < MinCountedCalls:
		s.Unresolved = document.TopFewCalls
	default:
		s.Resolved = true
	}
	if s.Unresolved == document.TopNotCounted {
		return s
	}
	est := float64(counted) * scale
	s.Calls = &est
	center := s.SeccompNs / est
	if s.Resolved {
		s.SeccompNsPerCall = document.Nullable(center)
	}
	// The calls' interval: the counted calls' Poisson error (z/√counted,
	// relative) and the scale's, combined on the log scale; the per-call
	// interval adds the time's Poisson interval the same way.
	z := stats.ZQuantile(confidence)
	ec := math.Hypot(z/math.Sqrt(float64(counted)), scaleErr)
	s.CallsCILow, s.CallsCIHigh = document.Nullable(est*math.Exp(-ec)), document.Nullable(est*math.Exp(ec))
	if ci.Lo > 0 {
		s.SeccompNsPerCallCILow = document.Nullable(center * math.Exp(-math.Hypot(math.Log(s.SeccompNs/ci.Lo), ec)))
	}
	s.SeccompNsPerCallCIHigh = document.Nullable(center * math.Exp(math.Hypot(math.Log(ci.Hi/s.SeccompNs), ec)))
	return s
}

// sortProcesses orders the rows by seccomp time, largest first, then
// the rows without samples (idle or exited --pid targets), each group by
// pid: a live view keeps its idle rows in one place.
func sortProcesses(ps []document.TopProcess) {
	slices.SortStableFunc(ps, func(a, b document.TopProcess) int {
		if c := cmp.Compare(b.SeccompNs, a.SeccompNs); c != 0 {
			return c
		}
		if c := cmp.Compare(min(b.Samples, 1), min(a.Samples, 1)); c != 0 {
			return c
		}
		return cmp.Compare(a.Pid, b.Pid)
	})
}

// unsampledTargets returns the rows of the --pid targets without a
// sample in the window (each target once): the idle ones, and those that
// exited in or before it, unless reported as exited in an earlier window.
func (w *Watcher) unsampledTargets(tallies []*kstack.Tally, in windowInput, period float64) []document.TopProcess {
	done := map[int]bool{}
	for _, tl := range tallies {
		done[int(tl.Tgid)] = true
	}
	var out []document.TopProcess
	for _, pid := range w.opts.Pids {
		if done[pid] || (w.exited[pid] && !in.exited[pid]) {
			continue
		}
		done[pid] = true
		out = append(out, w.unsampledTarget(pid, in, period))
	}
	return out
}

// unsampledTarget is the row of a --pid target without samples: exited
// (no CPU time, no filters: its /proc is gone), or idle, with its CPU
// time from /proc, its filters, and a warning saying why it has no share.
func (w *Watcher) unsampledTarget(pid int, in windowInput, period float64) document.TopProcess {
	p := document.TopProcess{Pid: pid, FilterHashes: []document.TopFilter{}, Syscalls: []document.TopSyscall{}, Warnings: []string{}}
	c0, ok0 := in.cpu0[pid]
	c1, ok1 := in.cpu1[pid]
	p.Comm = cmp.Or(c1.comm, c0.comm, w.comms[pid])
	w.comms[pid] = p.Comm
	if in.exited[pid] {
		p.Exited = true
		p.Warnings = append(p.Warnings, "the process has exited, with no samples in this window; it is not listed again")
		return p
	}
	p.Idle = true
	switch {
	case !ok0 || !ok1:
		p.Warnings = append(p.Warnings, "no samples in this window, and its CPU time could not be read from /proc")
	case c1.cpu > c0.cpu:
		p.CPUNs = float64(c1.cpu - c0.cpu)
		p.Warnings = append(p.Warnings, fmt.Sprintf("no samples in this window: /proc counts %s of CPU for it (in clock ticks); one sample per %s of CPU on average",
			fmtNs(p.CPUNs), fmtNs(period)))
	default:
		p.Warnings = append(p.Warnings, "no samples in this window: the process did not run")
	}
	w.filters(&p)
	return p
}

// fmtNs writes a duration in ns as time.Duration does, rounded to the
// µs (e.g. "10ms", "10.101ms").
func fmtNs(ns float64) string {
	return time.Duration(ns).Round(time.Microsecond).String()
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
