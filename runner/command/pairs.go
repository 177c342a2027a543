package command

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/seccompbench/seccompbench/runner/internal/sys"
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/stats"
)

// orDefault returns d, DesignChildren for "".
func (d Design) orDefault() Design {
	if d == "" {
		return DesignChildren
	}
	return d
}

// The paired designs (DesignPairs, DesignDuet): the wrapper is forked for
// every run anyway, so one timing child can alternate a wrapper that
// installs nothing (t.base) with one that installs the cell's stack
// (t.stack). Each pair's two runs see the same state of the host and of
// the program's files, which cancels in their difference
// (stats.PairedShift).

// runPairs makes cs.Warmup warm-up pairs (unfiltered run first) and
// cs.Runs timed pairs, the order of each drawn from cs.Seed (pairs) or
// the CPU each side takes (duet), and records both series in t.cr.
func (t *timer) runPairs() error {
	cs, cr := t.cs, t.cr
	rng := rand.New(rand.NewPCG(cs.Seed, cs.Seed^0x7061697273))
	for w := 0; w < cs.Warmup; w++ {
		_, _, _, f, err := t.pair(-1-w, true)
		if err != nil {
			return err
		}
		cr.Warmup++
		if f != nil && (!cs.IgnoreFailure || f.Stage != "run") {
			cr.Failure, cr.Fatal = f, true
			return f.err()
		}
	}
	start := sys.Nanotime()
	for i := 0; i < cs.Runs; i++ {
		if cs.StopNs > 0 && i >= MinRuns && sys.Nanotime()-start >= cs.StopNs {
			break
		}
		baseFirst := rng.IntN(2) == 0
		x, b, perFilter, f, err := t.pair(i, baseFirst)
		if err != nil {
			return err
		}
		if err := t.keep(f); err != nil {
			return err
		}
		cr.Runs = append(cr.Runs, x)
		cr.Base = append(cr.Base, b)
		cr.BaseFirst = append(cr.BaseFirst, baseFirst)
		cr.FilterNs = append(cr.FilterNs, perFilter)
	}
	return nil
}

// pair makes pair i: the stacked run x, the unfiltered run b, the stacked
// run's per-filter seccomp(2) times and the first failure of the two.
// baseFirst runs the unfiltered one first (pairs) or on CPUs[0] (duet).
func (t *timer) pair(i int, baseFirst bool) (x, b commandRun, perFilter []int64, f *runFailure, err error) {
	if Design(t.cs.Design) == DesignDuet {
		return t.duet(i, baseFirst)
	}
	first, second := t.stack, t.base
	if baseFirst {
		first, second = t.base, t.stack
	}
	r1, pf1, f1, err := t.run(first, i)
	if err != nil {
		return x, b, nil, nil, err
	}
	r2, pf2, f2, err := t.run(second, i)
	if err != nil {
		return x, b, nil, nil, err
	}
	x, b, perFilter = r1, r2, pf1
	if baseFirst {
		x, b, perFilter = r2, r1, pf2
	}
	f = f1
	if f == nil {
		f = f2
	}
	return x, b, perFilter, f, nil
}

// duet makes pair i with both runs at once: the unfiltered wrapper pinned
// to CPUs[0] and the stacked one to CPUs[1] when baseFirst, the other way
// round otherwise, each forked from this thread while its affinity is
// that CPU (a forked process inherits the forking thread's mask:
// kernel/fork.c: copy_process, dup_task_struct), the first forked being
// the one on CPUs[0]. The prepare command runs once, before the pair.
func (t *timer) duet(i int, baseFirst bool) (x, b commandRun, perFilter []int64, f *runFailure, err error) {
	cpus := t.cs.CPUs
	if len(cpus) != 2 || cpus[0] == cpus[1] {
		return x, b, nil, nil, fmt.Errorf("duet: need two distinct CPUs, have %v", cpus)
	}
	if f, err := t.prepare(i); f != nil || err != nil {
		return x, b, nil, f, err
	}
	sides := [2]*side{t.stack, t.base}
	if baseFirst {
		sides = [2]*side{t.base, t.stack}
	}
	for _, sd := range sides {
		if err := sd.reset(); err != nil {
			return x, b, nil, nil, err
		}
	}
	t.kmsg.skipToEnd()
	var pids [2]int
	var t0 [2]int64
	if err := t.spawnPinned(sides, cpus, &pids, &t0); err != nil {
		return x, b, nil, nil, err
	}
	var out [2]commandRun
	var pf [2][]int64
	var fs [2]*runFailure
	for range 2 {
		var ws syscall.WaitStatus
		var ru syscall.Rusage
		pid, err := wait4Either(pids, &ws, &ru)
		t1 := sys.Nanotime()
		if serr := t.stop.err(); serr != nil {
			return x, b, nil, nil, serr
		}
		if err != nil {
			return x, b, nil, nil, fmt.Errorf("duet: wait4: %w", err)
		}
		k := 0
		if pid == pids[1] {
			k = 1
		}
		if out[k], pf[k], fs[k], err = t.collect(sides[k], i, t0[k], t1, ws, &ru, pid); err != nil {
			return x, b, nil, nil, err
		}
	}
	if err := sweep(); err != nil {
		return x, b, nil, nil, err
	}
	s := 0 // index of the stacked side
	if baseFirst {
		s = 1
	}
	f = fs[0]
	if f == nil {
		f = fs[1]
	}
	return out[s], out[1-s], pf[s], f, nil
}

// spawnPinned forks the wrappers of sides[k] pinned to cpus[k], in that
// order, recording their pids and fork times; the thread's own affinity
// is restored. A failure to fork the second kills the first.
func (t *timer) spawnPinned(sides [2]*side, cpus []int, pids *[2]int, t0 *[2]int64) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var orig unix.CPUSet
	if err := unix.SchedGetaffinity(0, &orig); err != nil {
		return fmt.Errorf("duet: sched_getaffinity: %w", err)
	}
	defer unix.SchedSetaffinity(0, &orig)
	for k, sd := range sides {
		var set unix.CPUSet
		set.Set(cpus[k])
		if err := unix.SchedSetaffinity(0, &set); err != nil {
			return fmt.Errorf("duet: pin to CPU %d: sched_setaffinity: %w", cpus[k], err)
		}
		t0[k] = sys.Nanotime()
		pid, err := syscall.ForkExec(t.exe, []string{t.exe}, &syscall.ProcAttr{Env: t.wrapEnvv, Files: sd.files,
			Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}})
		if err != nil {
			if k == 1 {
				syscall.Kill(pids[0], syscall.SIGKILL)
				var ws syscall.WaitStatus
				syscall.Wait4(pids[0], &ws, 0, nil)
			}
			return fmt.Errorf("duet: run the wrapper: %w", err)
		}
		pids[k] = pid
	}
	return nil
}

// wait4Either reaps children until it reaps one of pids, retrying on
// EINTR. The others it reaps are what a run left behind, reparented to
// the timing child (its subreaper: stop.go) and exited meanwhile; their
// status and rusage are dropped.
func wait4Either(pids [2]int, ws *syscall.WaitStatus, ru *syscall.Rusage) (int, error) {
	for {
		pid, err := syscall.Wait4(-1, ws, 0, ru)
		if errors.Is(err, syscall.EINTR) || (err == nil && pid != pids[0] && pid != pids[1]) {
			continue
		}
		return pid, err
	}
}

// runsPerPair is the wall time of one timed unit (a run, a pair) in runs:
// 1 for children, 2 for pairs, 1 for a duet, whose two runs overlap.
func (d Design) runsPerPair() float64 {
	if d == DesignPairs {
		return 2
	}
	return 1
}

// runsOK reports whether a child of cs made an acceptable number of
// timed runs: exactly cs.Runs, or, for a time-boxed paired child
// (cs.stopNs), from MinRuns (or cs.Runs if fewer) to cs.Runs.
func runsOK(cs *Spec, n int) bool {
	if cs.stopNs > 0 {
		return n >= min(MinRuns, cs.Runs) && n <= cs.Runs
	}
	return n == cs.Runs
}

// checkPairs returns an error when a paired design's report does not hold
// one unfiltered run and one order for every timed run, or when the
// children design's report holds any.
func checkPairs(d Design, cr *commandChildReport) error {
	want := 0
	if d.Paired() {
		want = len(cr.Runs)
	}
	if len(cr.Base) != want || len(cr.BaseFirst) != want {
		return fmt.Errorf("design %s: %d timed runs with %d unfiltered runs and %d orders, want %d of each", d, len(cr.Runs), len(cr.Base), len(cr.BaseFirst), want)
	}
	return nil
}

// pairedSample adds the unfiltered series of a paired child to s (after
// commandSample): the run times as the Sample's paired baseline
// (BaselineSamplesNsPerOp, and their median as BaselineNsPerOp), the wall
// and CPU times and the orders in s.Command.
func pairedSample(s *result.Sample, cr *commandChildReport) {
	if len(cr.Base) == 0 {
		return
	}
	s.BaselineSamplesNsPerOp = nil
	for _, r := range cr.Base {
		s.BaselineSamplesNsPerOp = append(s.BaselineSamplesNsPerOp, float64(r.CmdNs))
		s.Command.BaseWallNs = append(s.Command.BaseWallNs, float64(r.WallNs))
		s.Command.BaseCPUNs = append(s.Command.BaseCPUNs, float64(r.CPUNs))
	}
	s.Command.BaseFirst = slices.Clone(cr.BaseFirst)
	s.BaselineNsPerOp = stats.Median(s.BaselineSamplesNsPerOp)
}
