package top

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seccompbench/seccompbench/internal/kstack"
	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/runner/live"
	"github.com/seccompbench/seccompbench/runner/result"
)

const fakeKallsyms = `ffffffff81000000 T _stext
ffffffff81100000 T do_syscall_64
ffffffff81200000 t syscall_trace_enter
ffffffff81300000 t __seccomp_filter
ffffffff81300900 t __x64_sys_getppid
ffffffff81500000 t __bpf_trace_sys_exit
ffffffff81700000 T _etext
`

// fakeSampler plays a process (tgid 7) that spends a quarter of its samples
// in seccomp for getppid; while the counter is on, one sample in ten is in
// the counter and the counter sees 1000 getppid calls per on-interval.
type fakeSampler struct {
	clock   *fakeClock
	on      bool
	samples []kstack.Sample
	counts  []live.CallCount
	closed  bool
	balance int
	// added and pruned record AddTargets' pids and PruneTargets' calls.
	added  []int
	pruned int
	// extra are more thread groups with one user-mode sample per ms.
	extra []uint32
	// quiet stops tgid 7's samples and calls (an idle process).
	quiet bool
}

func (f *fakeSampler) Take() ([]kstack.Sample, error) { s := f.samples; f.samples = nil; return s, nil }
func (f *fakeSampler) Flush()                         {}
func (f *fakeSampler) CountOn() error                 { f.on = true; f.balance++; return nil }
func (f *fakeSampler) CountOff() error {
	f.on = false
	f.balance--
	if !f.quiet {
		f.counts = append(f.counts, live.CallCount{Tgid: 7, Nr: 110, Calls: 1000})
	}
	return nil
}
func (f *fakeSampler) TakeCounts() ([]live.CallCount, error) {
	c := f.counts
	f.counts = nil
	return c, nil
}
func (f *fakeSampler) Lost() uint64           { return 0 }
func (f *fakeSampler) SetTargets([]int) error { return nil }
func (f *fakeSampler) AddTargets(p []int) error {
	f.added = append(f.added, p...)
	return nil
}
func (f *fakeSampler) PruneTargets() (int, error) { f.pruned++; return 0, nil }
func (f *fakeSampler) CPUs() int                  { return 1 }
func (f *fakeSampler) Close() error               { f.closed = true; return nil }

// tick adds the samples of d of time at 1 ms per sample.
func (f *fakeSampler) tick(from uint64, d time.Duration) {
	for t := from; t < from+uint64(d); t += uint64(time.Millisecond) {
		if !f.quiet {
			n := len(f.samples)
			s := kstack.Sample{Time: t, Tgid: 7, Tid: 7, Nr: 110, AX: -38}
			switch {
			case f.on && n%10 == 0:
				s.Stack = kstack.Addrs{0xffffffff81500010}
			case n%4 == 0:
				s.Stack = kstack.Addrs{0xffffffff81300010, 0xffffffff81200010}
			default:
				s.User, s.Nr = true, -1
			}
			f.samples = append(f.samples, s)
		}
		for _, x := range f.extra {
			f.samples = append(f.samples, kstack.Sample{Time: t, Tgid: x, Tid: x, User: true, Nr: -1})
		}
	}
}

type fakeClock struct {
	now     uint64
	sampler *fakeSampler
}

func (c *fakeClock) mono() uint64 { return c.now }
func (c *fakeClock) sleep(ctx context.Context, d time.Duration) error {
	if d > 0 {
		c.sampler.tick(c.now, d)
		c.now += uint64(d)
	}
	return ctx.Err()
}

func fakeOptions(t *testing.T) (*Options, *fakeSampler) {
	clk := &fakeClock{now: 1e9}
	f := &fakeSampler{clock: clk}
	clk.sampler = f
	o := DefaultOptions()
	o.Frequency = 1000
	o.CountDuty = 0.1 // the fake stream's counter windows
	o.Pids = []int{7}
	o.Check = func() error { return nil }
	o.Open = func(live.Options) (Sampler, error) { return f, nil }
	o.Monotonic = clk.mono
	o.Sleep = clk.sleep
	o.Now = func() time.Time { return time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC) }
	o.Kallsyms = func() ([]byte, error) { return []byte(fakeKallsyms), nil }
	cpu := 0 * time.Second
	o.ProcCPU = func(pid int) (string, time.Duration, error) {
		defer func() { cpu += 5 * time.Second }() // second read: 5 s later
		return "loop", cpu, nil
	}
	o.TaskCPU = nil // calls scaled by samples unless a test sets it
	o.ListPids = func() ([]int, error) { return []int{7}, nil }
	o.Status = func(pid int) (result.ProcStatus, error) {
		return result.ProcStatus{Pid: pid, SeccompMode: result.SeccompModeFilter, SeccompFilters: 2}, nil
	}
	// ld [4] (arch); ret ALLOW: struct sock_filter, little-endian.
	allow := []byte{0x20, 0, 0, 0, 4, 0, 0, 0, 0x06, 0, 0, 0, 0, 0, 0xff, 0x7f}
	o.Dump = func(pid int) ([][]byte, error) { return [][]byte{allow, allow}, nil }
	return &o, f
}

func TestWindow(t *testing.T) {
	o, f := fakeOptions(t)
	w, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	got, err := w.Window(context.Background(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil || !f.closed || f.balance != 0 {
		t.Errorf("close %v, closed %v, counter on/off balance %d", err, f.closed, f.balance)
	}
	if got.Kind != "top" || got.SchemaVersion != document.TopSchemaVersion || len(got.Processes) != 1 {
		t.Fatalf("got %+v", got)
	}
	m := got.Method
	if math.Abs(m.CountDuty-0.1) > 1e-9 || m.CountOnNs != int64(500*time.Millisecond) {
		t.Errorf("duty %v, on %d ns; want 0.1, 500 ms", m.CountDuty, m.CountOnNs)
	}
	if m.CounterShare == nil || math.Abs(*m.CounterShare-0.1) > 0.02 {
		t.Errorf("counter share %v, want ~0.1", m.CounterShare)
	}
	p := got.Processes[0]
	if p.Pid != 7 || p.Comm != "loop" || p.CPUNs != 5e9 || p.Samples < 5000 || p.Samples > 5015 {
		t.Errorf("process %d %q cpu %v samples %d", p.Pid, p.Comm, p.CPUNs, p.Samples)
	}
	share := float64(p.SeccompSamples) / float64(p.Samples)
	if p.SeccompShare == nil || *p.SeccompShare != share || !(*p.SeccompShareCILow <= share && share <= *p.SeccompShareCIHigh) {
		t.Errorf("share %v [%v, %v], want %v inside", p.SeccompShare, p.SeccompShareCILow, p.SeccompShareCIHigh, share)
	}
	if math.Abs(p.SeccompNs-share*5e9) > 1 {
		t.Errorf("seccomp %v ns, want share × cpu = %v", p.SeccompNs, share*5e9)
	}
	if len(p.Syscalls) != 1 || p.Syscalls[0].Name != "getppid" || p.Syscalls[0].Calls == nil {
		t.Fatalf("syscalls %+v", p.Syscalls)
	}
	// 5 on-intervals × 1000 calls, scaled by non-counter samples: ~4950
	// of ~5000 overall, ~450 of the ~500 while on → × 11 (the fake clock
	// adds a sample at some segment edges).
	if c := *p.Syscalls[0].Calls; math.Abs(c/(5000*4950.0/450)-1) > 0.005 {
		t.Errorf("calls %v, want %v", c, 5000*4950.0/450)
	}
	if p.CallsScaledBy != "samples" {
		t.Errorf("calls scaled by %q, want samples (no TaskCPU)", p.CallsScaledBy)
	}
	if p.Filters == nil || *p.Filters != 2 || len(p.FilterHashes) != 2 || p.FilterHashes[0].SHA256 != p.FilterHashes[1].SHA256 {
		t.Errorf("filters %v, hashes %+v", p.Filters, p.FilterHashes)
	}
	if p.Prediction == nil || len(p.Prediction.Rows) != 2 || p.Prediction.Model.Method != document.TopModelScaled || p.Prediction.Model.PerFilterNs != ReferenceModel.PerFilter.Center {
		t.Fatalf("prediction %+v", p.Prediction)
	}
	// Both filters allow getppid without looking at anything but the arch:
	// cached before and after, so nothing to save.
	for _, r := range p.Prediction.Rows {
		if r.SavedNs != 0 {
			t.Errorf("%s saves %v ns of a cached syscall", r.Name, r.SavedNs)
		}
	}
}

// window5s opens a Watcher with o, takes one 5 s window and closes it.
func window5s(t *testing.T, o *Options) *document.Top {
	t.Helper()
	w, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	got, err := w.Window(context.Background(), 5*time.Second)
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestWindowFewCountedSamples: a duty that leaves under minCountedSamples
// samples while counting warns about the calls' error; the default
// fake's 450 do not.
func TestWindowFewCountedSamples(t *testing.T) {
	for _, tt := range []struct {
		duty float64
		warn bool
	}{{0.1, false}, {0.01, true}} {
		o, _ := fakeOptions(t)
		o.CountDuty = tt.duty
		got := window5s(t, o)
		warned := slices.ContainsFunc(got.Processes[0].Warnings, func(s string) bool { return strings.Contains(s, "samples taken while counting") })
		if warned != tt.warn {
			t.Errorf("duty %v: warnings %q, want the counting warning %v", tt.duty, got.Processes[0].Warnings, tt.warn)
		}
	}
}

// TestWindowCountingErrorAtConfidence: the counting warning's error is
// taken at --confidence: at 0.99 it is 2.576/1.96 times the 0.95 one.
func TestWindowCountingErrorAtConfidence(t *testing.T) {
	errAt := func(conf float64) float64 {
		o, _ := fakeOptions(t)
		o.CountDuty, o.Confidence = 0.01, conf
		for _, w := range window5s(t, o).Processes[0].Warnings {
			if _, rest, ok := strings.Cut(w, "about ±"); ok {
				var pct float64
				if _, err := fmt.Sscanf(rest, "%g%%", &pct); err == nil {
					return pct
				}
			}
		}
		t.Fatalf("confidence %v: no counting warning with an error", conf)
		return 0
	}
	e95, e99 := errAt(0.95), errAt(0.99)
	if ratio := e99 / e95; math.Abs(ratio-2.5758/1.96) > 0.05 {
		t.Errorf("error ±%v%% at 0.99, ±%v%% at 0.95: ratio %.3f, want %.3f", e99, e95, ratio, 2.5758/1.96)
	}
}

// TestWindowCallsByCPUTime: with --pid and exact CPU times the calls are
// scaled by CPU time outside the counter (the window's over the time while
// counting, less the counter's own samples), not by sample counts. The
// fake process is busy all the time (its CPU time is the clock), so the
// scale is (5 s − C)/(0.5 s − C) with C the ~50 ms of counter samples.
// A selection other than --pid keeps the sample scale.
func TestWindowCallsByCPUTime(t *testing.T) {
	o, f := fakeOptions(t)
	o.TaskCPU = func(pid int) (time.Duration, error) { return time.Duration(f.clock.now), nil }
	p := window5s(t, o).Processes[0]
	if p.CallsScaledBy != "cpu_time" || len(p.Syscalls) != 1 || p.Syscalls[0].Calls == nil {
		t.Fatalf("scaled by %q, syscalls %+v; want cpu_time and counted getppid", p.CallsScaledBy, p.Syscalls)
	}
	ctr := 50 // one in ten of the ~500 samples while on (fakeSampler.tick)
	c := float64(ctr) * float64(time.Millisecond)
	want := 5000 * (5e9 - c) / (5e8 - c)
	if got := *p.Syscalls[0].Calls; math.Abs(got/want-1) > 0.01 {
		t.Errorf("calls %v, want %v (5000 counted × (5 s − C)/(0.5 s − C))", got, want)
	}
	if slices.ContainsFunc(p.Warnings, func(s string) bool { return strings.Contains(s, "samples taken while counting") }) {
		t.Errorf("warnings %q: the sample-count warning does not apply to CPU-time scaling", p.Warnings)
	}

	// A short duty leaves the counter's own share resting on few samples:
	// 25 while counting (f ≈ 0.1) give the scale about ±13 %, which is
	// said.
	o, f = fakeOptions(t)
	o.CountDuty = 0.005
	o.TaskCPU = func(pid int) (time.Duration, error) { return time.Duration(f.clock.now), nil }
	p = window5s(t, o).Processes[0]
	if p.CallsScaledBy != "cpu_time" || !slices.ContainsFunc(p.Warnings, func(s string) bool { return strings.Contains(s, "less the counter's own share") }) {
		t.Errorf("duty 0.005: scaled by %q, warnings %q; want cpu_time and the counter-share warning", p.CallsScaledBy, p.Warnings)
	}

	o, _ = fakeOptions(t)
	o.Pids, o.All = nil, true
	o.TaskCPU = func(int) (time.Duration, error) { t.Error("TaskCPU read without --pid"); return 0, nil }
	got := window5s(t, o)
	if len(got.Processes) != 1 || got.Processes[0].CallsScaledBy != "samples" {
		t.Errorf("--all: processes %+v, want one scaled by samples", got.Processes)
	}
}

// TestOpenNoSuchPid: a --pid that names no process is an error before
// anything is attached, not a report of "no samples".
func TestOpenNoSuchPid(t *testing.T) {
	o, _ := fakeOptions(t)
	o.ProcCPU = func(pid int) (string, time.Duration, error) {
		return "", 0, fmt.Errorf("read CPU time of pid %d: %w", pid, fs.ErrNotExist)
	}
	opened := false
	o.Open = func(live.Options) (Sampler, error) { opened = true; return nil, nil }
	if _, err := Open(o); err == nil || !strings.Contains(err.Error(), "--pid 7: no such process") || opened {
		t.Errorf("err %v, opened %v; want \"--pid 7: no such process\" before attaching", err, opened)
	}
}

func TestOpenRefused(t *testing.T) {
	o, _ := fakeOptions(t)
	o.Check = func() error { return &live.PermissionError{Op: "x", Err: os.ErrPermission, Need: "CAP_PERFMON"} }
	opened := false
	o.Open = func(live.Options) (Sampler, error) { opened = true; return nil, nil }
	if _, err := Open(o); err == nil || opened {
		t.Errorf("err %v, opened %v: the check must stop Open before anything is attached", err, opened)
	}
}

// signalErr stands for interrupt.SignalError: the cause a signal gives the
// command's context.
type signalErr struct{}

func (signalErr) Error() string { return "interrupted by SIGINT" }
func (signalErr) Unwrap() error { return context.Canceled }

// TestReportInterrupted: a signal during a --duration window or during
// the live view ends Report with the context's cause (so the command exits
// 128+N, docs/limits.md), and the live view drew what it had; nothing
// stays attached.
func TestReportInterrupted(t *testing.T) {
	for _, v := range []View{{Duration: 5 * time.Second, Format: "table", MaxSyscalls: 8}, {Refresh: time.Second, Format: "table", MaxSyscalls: 8}} {
		o, f := fakeOptions(t)
		ctx, cancel := context.WithCancelCause(context.Background())
		// The fake clock cancels once 2.5 s of sampling have passed.
		sleep := o.Sleep
		o.Sleep = func(c context.Context, d time.Duration) error {
			if f.clock.now >= 1e9+uint64(2500*time.Millisecond) {
				cancel(signalErr{})
			}
			return sleep(c, d)
		}
		var out, errOut strings.Builder
		err := Report(ctx, o, v, &out, &errOut)
		if !errors.Is(err, signalErr{}) || !errors.Is(err, context.Canceled) {
			t.Errorf("view %+v: err %v, want the signal's cause", v, err)
		}
		if !f.closed || f.balance != 0 {
			t.Errorf("view %+v: closed %v, counter balance %d: something stayed attached", v, f.closed, f.balance)
		}
		if v.Duration > 0 && !strings.Contains(out.String(), "loop") {
			t.Errorf("--duration: the partial window was not written: %q", out.String())
		}
	}
}
