package top

import (
	"context"
	"errors"
	"io/fs"
	"time"

	"github.com/seccompbench/seccompbench/internal/kstack"
	"github.com/seccompbench/seccompbench/report/document"
)

// Window samples for d (until ctx ends, then what was sampled so far) and
// returns the report of that window.
func (w *Watcher) Window(ctx context.Context, d time.Duration) (*document.Top, error) {
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
	if o.Children {
		if err := w.refreshChildren(); err != nil {
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
	cpu0 := w.cpuTimes(w.sampled())
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
		cpu0: cpu0, cpu1: cpu1, task0: task0, task1: task1, onCPU: onCPU, lost: w.s.Lost(), exited: w.exitedTargets(cpu1)}
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

// exitedTargets returns the --pid targets, not reported as exited
// before, that have exited by the window's end: missing from cpu1 (the
// end's CPU times) and Options.ProcCPU failing with fs.ErrNotExist (a
// target unreadable for another reason is alive). It records them in
// w.exited, so that later windows list them no more.
func (w *Watcher) exitedTargets(cpu1 map[int]procCPU) map[int]bool {
	out := map[int]bool{}
	for _, p := range w.opts.Pids {
		if _, alive := cpu1[p]; alive || w.exited[p] {
			continue
		}
		if _, _, err := w.opts.ProcCPU(p); errors.Is(err, fs.ErrNotExist) {
			out[p] = true
			w.exited[p] = true
		}
	}
	return out
}

// taskCPUs reads the exact CPU time of each --pid target and each child
// found so far (--children; Options.TaskCPU);
// nil for other selections or without TaskCPU. A process that cannot be
// read is left out.
func (w *Watcher) taskCPUs() map[int]time.Duration {
	if w.opts.TaskCPU == nil || len(w.opts.Pids) == 0 {
		return nil
	}
	pids := w.sampled()
	out := make(map[int]time.Duration, len(pids))
	for _, p := range pids {
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
