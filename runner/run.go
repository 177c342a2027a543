package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/seccompbench/seccompbench/runner/cpulock"
	"github.com/seccompbench/seccompbench/runner/internal/fixture"
	"github.com/seccompbench/seccompbench/runner/notify"
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/stats"
)

// Run measures every cell of cfg in randomized blocks, one fresh child per
// cell and block, and returns one Sample per child in run order. See
// RunAdaptive, which it calls, for the details and errors.
func Run(ctx context.Context, cfg Config) ([]result.Sample, error) {
	s, _, err := RunAdaptive(ctx, cfg)
	return s, err
}

// RunAdaptive measures every cell of cfg in randomized blocks and says how
// the run ended. All stacks are built (and the kernel limits checked)
// before the first child starts. It runs cfg.Trials blocks, then, while
// cfg.Stop returns false, more blocks up to cfg.MaxTrials or cfg.MaxTime.
// It stops at the first failing child with a *ChildError, and when ctx is
// done with ctx.Err(); the samples gathered so far are returned with the
// error.
//
// Before anything else it removes exec fixtures left by runs that were
// killed and locks its measuring CPUs (see Config.CPU), returning a
// *cpulock.CPUBusyError when they stay held by another run. While children
// run it watches those CPUs for foreign load (RunInfo.ForeignLoad).
func RunAdaptive(ctx context.Context, cfg Config) ([]result.Sample, result.RunInfo, error) {
	var info result.RunInfo
	if len(cfg.Counts) == 0 || len(cfg.Variants) == 0 || cfg.Trials < 1 {
		return nil, info, errors.New("run: need at least one count, one variant and one trial")
	}
	fixture.CleanStale()
	locks, err := lockRunCPUs(ctx, &cfg)
	if err != nil {
		return nil, info, err
	}
	defer locks.Release()
	cfg = withDefaults(cfg)
	cfg.watch = &cpulock.Watch{LockDir: locks.Dir()}
	if err := cfg.Placement.Check(); err != nil {
		return nil, info, fmt.Errorf("run: %w", err)
	}
	stacks, cache, padCaps, err := buildStacks(cfg)
	if err != nil {
		return nil, info, err
	}
	cleanup, err := cfg.ensureExecFixture()
	if err != nil {
		return nil, info, err
	}
	defer cleanup()
	if err := checkSupport(cfg); err != nil {
		return nil, info, err
	}
	m := cfg.measurer()
	prep, err := m.prepare(ctx, &cfg, &info)
	if err != nil {
		return nil, info, err
	}
	if prep.cleanup != nil {
		defer prep.cleanup()
	}
	r := &blockRun{cfg: cfg, m: m, cache: cache, padCaps: padCaps, timeouts: map[result.Cell]time.Duration{}, hardBlocks: prep.hardBlocks}
	for c, st := range stacks {
		r.timeouts[c] = cfg.ChildTimeout
		if cfg.ChildTimeout == 0 {
			r.timeouts[c] = prep.deadline(st)
		}
		info.ChildTimeout = max(info.ChildTimeout, r.timeouts[c])
	}
	info.Iterations = cfg.Iterations
	info.CPUs = cfg.cpus
	if len(padCaps) > 0 {
		info.PadCaps = padCaps
	}
	r.info = info
	return r.run(ctx)
}

// blockRun is one run's randomized blocks after preparation.
type blockRun struct {
	cfg        Config
	m          measurer
	cache      *stacks
	padCaps    map[result.Cell]int
	timeouts   map[result.Cell]time.Duration
	hardBlocks int // MaxTime stops the run only after this many blocks (0: a soft bound)
	info       result.RunInfo
	start      time.Time
	out        []result.Sample
	seq        int
}

// run runs blocks until a stop rule says so (see RunAdaptive).
func (r *blockRun) run(ctx context.Context) ([]result.Sample, result.RunInfo, error) {
	cfg := r.cfg
	maxBlocks := max(cfg.Trials, cfg.MaxTrials)
	r.start = time.Now()
	for b := 0; b < maxBlocks; b++ {
		if reason := r.stopBefore(b); reason != "" {
			r.info.StopReason = reason
			break
		}
		if err := r.block(ctx, b, maxBlocks); err != nil {
			return r.out, r.info, err
		}
		r.info.Blocks = b + 1
	}
	if r.info.StopReason == "" {
		if cfg.Stop != nil && cfg.Stop(r.out) {
			r.info.StopReason = result.StopPrecision
		} else if cfg.Stop != nil && maxBlocks > cfg.Trials {
			r.info.StopReason = result.StopMaxTrials
		} else {
			r.info.StopReason = result.StopTrials
		}
	}
	r.info.Elapsed = time.Since(r.start)
	r.info.ForeignLoad = cfg.watch.Result()
	return r.out, r.info, nil
}

// stopBefore returns why no block b should start, "" to start it.
func (r *blockRun) stopBefore(b int) result.StopReason {
	cfg := r.cfg
	// A hard --max-time (the command workload's) once enough blocks ran.
	if r.hardBlocks > 0 && cfg.MaxTime > 0 && b >= r.hardBlocks && time.Since(r.start) > cfg.MaxTime {
		return result.StopMaxTime
	}
	if b < cfg.Trials {
		return ""
	}
	switch {
	case cfg.Stop == nil:
		return result.StopTrials
	case cfg.Stop(r.out):
		return result.StopPrecision
	case cfg.MaxTime > 0 && time.Since(r.start) > cfg.MaxTime:
		return result.StopMaxTime
	}
	return ""
}

// block runs block b: every cell once, in an order shuffled from the seed
// and the block index, so adding blocks never changes earlier ones. An
// error ends the run: the stop reason and elapsed time are set.
func (r *blockRun) block(ctx context.Context, b, maxBlocks int) error {
	cfg := r.cfg
	perBlock := len(cfg.Counts) * len(cfg.Variants) * len(cfg.Loaders)
	cells := ScheduleLoaders(cfg.Counts, cfg.Variants, cfg.Loaders, 1, cfg.Seed+uint64(b)*0x9e3779b9)[0]
	for _, c := range cells {
		if err := ctx.Err(); err != nil {
			r.info.StopReason, r.info.Elapsed = result.StopCancelled, time.Since(r.start)
			r.info.ForeignLoad = cfg.watch.Result()
			return err
		}
		cc := cfg
		cc.ChildTimeout = r.timeouts[c]
		pad := cfg.Placement.PadFor(cfg.Seed, r.seq)
		if cp, ok := r.padCaps[c]; ok {
			pad = cfg.Placement.capped(cp).PadFor(cfg.Seed, r.seq)
		}
		stack, err := r.cache.get(c, pad)
		if err != nil { // cannot happen: the largest pad fits
			r.info.StopReason, r.info.Elapsed = result.StopFailed, time.Since(r.start)
			return err
		}
		var after func()
		if cfg.AroundChild != nil {
			after = cfg.AroundChild(b, c)
		}
		s, err := r.m.measure(ctx, cc, c, stack)
		if after != nil {
			after()
		}
		s.Pad = pad
		if err != nil {
			r.info.StopReason, r.info.Elapsed = result.StopFailed, time.Since(r.start)
			if ctx.Err() != nil {
				r.info.StopReason = result.StopCancelled
			}
			r.info.ForeignLoad = cfg.watch.Result()
			return err
		}
		s.Block, s.Seq = b, r.seq
		r.seq++
		r.out = append(r.out, s)
		if cfg.Progress != nil {
			total := maxBlocks * perBlock
			if cfg.Stop == nil || cfg.MaxTrials <= cfg.Trials {
				total = cfg.Trials * perBlock
			}
			cfg.Progress(len(r.out), total, c)
		}
	}
	return nil
}

// ensureExecFixture writes the exec workloads' temporary program (when the
// workload execs and none is set yet) and returns the function that
// removes it.
func (cfg *Config) ensureExecFixture() (cleanup func(), err error) {
	if cfg.Workload.PathDirs == 0 || cfg.execPaths != nil {
		return func() {}, nil
	}
	fx, err := fixture.New(cfg.Workload.PathDirs)
	if err != nil {
		return nil, err
	}
	cfg.execPaths = fx.Paths
	return func() { fx.Close() }, nil
}

// Calibrate runs one unfiltered child with a short loop and returns the
// iterations per sample that make one sample last about cfg.SampleDuration
// (at least 100).
func Calibrate(ctx context.Context, cfg Config) (uint64, error) {
	it, _, err := calibrate(ctx, cfg)
	return it, err
}

// calibrate is Calibrate, also returning the measured cost of one loop
// iteration without filters, in ns.
func calibrate(ctx context.Context, cfg Config) (uint64, float64, error) {
	cfg = withDefaults(cfg)
	cleanup, err := cfg.ensureExecFixture()
	if err != nil {
		return 0, 0, err
	}
	defer cleanup()
	cfg.Iterations = 2000
	if cfg.Workload.PathDirs > 0 {
		cfg.Iterations = 20
	}
	cfg.Samples = 3
	cfg.ControlIters = 0
	cfg.Unpaired = true
	cfg.Parallel = 1
	if cfg.ChildTimeout == 0 {
		cfg.ChildTimeout = minChildTimeout
	}
	s, err := runCell(ctx, cfg, result.Cell{Variant: result.VariantOn, Filters: 0}, nil)
	if err != nil {
		return 0, 0, fmt.Errorf("calibrate: %w", err)
	}
	perIter := s.NsPerOp * float64(cfg.Workload.SyscallsPerIter)
	if perIter <= 0 || math.IsNaN(perIter) {
		return 0, 0, fmt.Errorf("calibrate: measured %v ns per iteration", perIter)
	}
	it := uint64(float64(cfg.SampleDuration.Nanoseconds()) / perIter)
	return max(it, 10), perIter, nil
}

// runCell runs cfg.Parallel children at once for cell c with the given
// stack (sock_filter arrays, oldest first) and converts their reports into
// one Sample.
func runCell(ctx context.Context, cfg Config, c result.Cell, stack [][]byte) (result.Sample, error) {
	if cfg.Parallel <= 1 {
		cpu := -1
		if len(cfg.cpus) > 0 {
			cpu = cfg.cpus[0]
		}
		return runCopy(ctx, cfg, c, stack, cpu)
	}
	type res struct {
		s   result.Sample
		err error
	}
	results := make([]res, cfg.Parallel)
	done := make(chan struct{})
	for i := 0; i < cfg.Parallel; i++ {
		cpu := -1
		if len(cfg.cpus) > 0 {
			cpu = cfg.cpus[i%len(cfg.cpus)]
		}
		go func(i, cpu int) {
			s, err := runCopy(ctx, cfg, c, stack, cpu)
			results[i] = res{s, err}
			done <- struct{}{}
		}(i, cpu)
	}
	for range cfg.Parallel {
		<-done
	}
	var out result.Sample
	var sum, base float64
	for i, r := range results {
		if r.err != nil {
			return result.Sample{}, r.err
		}
		if i == 0 {
			out = r.s
			out.Copies = nil
		}
		out.Copies = append(out.Copies, r.s.Copies...)
		sum += r.s.NsPerOp
		base += r.s.BaselineNsPerOp
	}
	out.NsPerOp = sum / float64(cfg.Parallel)
	out.BaselineNsPerOp = base / float64(cfg.Parallel)
	return out, nil
}

// paired reports whether the children take a paired baseline
// (Config.Unpaired): every loop workload but notify, whose supervisor
// answers only the notifying filter's syscalls.
func (cfg Config) paired() bool {
	return !cfg.Unpaired && cfg.Workload.Command == nil && !cfg.Workload.IsNotify()
}

// runCopy runs one child pinned to cpu (-1: not pinned).
func runCopy(ctx context.Context, cfg Config, c result.Cell, stack [][]byte, cpu int) (result.Sample, error) {
	spec := cfg.specFor(c, stack, cpu)
	var err error
	var sup *notify.Supervisor
	var extra []*os.File
	if cfg.Workload.IsNotify() {
		if sup, spec.Notify, err = notify.Start(cfg.Notify, cfg.Workload.Syscall[0]); err != nil {
			return result.Sample{}, err
		}
		extra = append(extra, sup.Child)
	}
	var before cpulock.Stat
	var statErr error
	var selfBefore time.Duration
	if cpu >= 0 && cfg.watch != nil {
		before, statErr = cpulock.ReadStat(cpu)
		selfBefore = cpulock.SelfCPUTime()
	}
	rep, own, err := execChild(ctx, cfg.ChildTimeout, c, spec, extra...)
	if err == nil && cpu >= 0 && cfg.watch != nil && statErr == nil {
		if sup != nil {
			// The supervisor answering the notifications is part of
			// what is measured, and runs in this process: count this
			// process's CPU time as the child's own (an upper bound).
			own += cpulock.SelfCPUTime() - selfBefore
		}
		if after, err := cpulock.ReadStat(cpu); err == nil {
			cfg.watch.Add(cpu, before, after, own)
		}
	}
	installed := len(stack)
	if sup != nil {
		installed++ // the notifying filter
		answers, serr := sup.Finish()
		if err == nil {
			want := uint64(cfg.Warmup+cfg.Samples) * cfg.Iterations
			err = sup.CellError(c, answers, serr, rep.Notify, want)
		}
	}
	if err != nil {
		return result.Sample{}, err
	}
	if err := cfg.checkReport(c, rep, spec.Paired, installed); err != nil {
		return result.Sample{}, err
	}
	return cfg.sample(c, rep), nil
}

// specFor is the spec of one child of cell c that installs stack and
// pins itself to cpu (-1: not pinned).
func (cfg Config) specFor(c result.Cell, stack [][]byte, cpu int) childSpec {
	spec := childSpec{
		Workload:     cfg.Workload.Name,
		Syscall:      cfg.Workload.Syscall,
		Filters:      stack,
		CPU:          cpu,
		Iterations:   cfg.Iterations,
		Samples:      cfg.Samples,
		Warmup:       cfg.Warmup,
		ControlIters: cfg.ControlIters,
		PathArg:      cfg.Workload.PathArg,
		ExecPaths:    cfg.execPaths,
		Loader:       c.Loader,
		Paired:       cfg.paired(),
		ProbeKiB:     cfg.Workload.ProbeKiB,
		ProbeCode:    cfg.Workload.ProbeCode,
	}
	spec.Flags = cfg.seccompFlags()
	if spec.CPU < 0 {
		spec.CPU = -1
	}
	return spec
}

// checkReport fails with a *ChildError when the report rep of a child of
// cell c is inconsistent with cfg: its filter count did not grow by
// installed, it has the wrong number of (paired baseline) samples, some
// exec did not exit(0), or its capabilities do not match c's loader.
func (cfg Config) checkReport(c result.Cell, rep childReport, paired bool, installed int) error {
	if rep.FiltersBefore >= 0 && rep.FiltersAfter >= 0 && rep.FiltersAfter != rep.FiltersBefore+installed {
		return &ChildError{Cell: c, ExitCode: 0,
			Reason: fmt.Sprintf("Seccomp_filters is %d after installing %d filters on top of %d inherited", rep.FiltersAfter, installed, rep.FiltersBefore)}
	}
	if len(rep.SamplesNs) != cfg.Samples {
		return &ChildError{Cell: c, Reason: fmt.Sprintf("reported %d samples, want %d", len(rep.SamplesNs), cfg.Samples)}
	}
	if paired && len(rep.BaselineNs) != cfg.Samples {
		return &ChildError{Cell: c, Reason: fmt.Sprintf("reported %d paired baseline samples, want %d", len(rep.BaselineNs), cfg.Samples)}
	}
	if cfg.Workload.PathDirs > 0 {
		want := uint64(cfg.Warmup+cfg.Samples) * cfg.Iterations
		if paired {
			want *= 2 // the paired baseline execs as often
		}
		if rep.ExecsOK != want {
			return &ChildError{Cell: c, Reason: fmt.Sprintf("only %d of %d execs ran the program to exit(0): a filter may deny clone, execve, exit or wait4", rep.ExecsOK, want)}
		}
	}
	if c.Loader != "" {
		if rep.Caps == nil {
			return &ChildError{Cell: c, Reason: "reported no capabilities", Cause: result.ErrLoaderCaps}
		}
		if err := result.CheckLoaderCaps(c.Loader, *rep.Caps); err != nil {
			return &ChildError{Cell: c, Reason: err.Error(), Cause: result.ErrLoaderCaps}
		}
	}
	return nil
}

// sample converts the checked report rep of a child of cell c into a
// sample in ns per syscall, with one copy.
func (cfg Config) sample(c result.Cell, rep childReport) result.Sample {
	ops := float64(cfg.Iterations) * float64(cfg.Workload.SyscallsPerIter)
	s := result.Sample{Cell: c, InstallNs: rep.InstallNs, FiltersSeen: rep.FiltersAfter, CPU: rep.CPU, PinErr: rep.PinErr}
	if rep.Caps != nil {
		s.Caps, s.CapSysAdmin = *rep.Caps, rep.Caps.SysAdmin()
	}
	for _, ns := range rep.SamplesNs {
		s.SamplesNsPerOp = append(s.SamplesNsPerOp, float64(ns)/ops)
	}
	s.NsPerOp = stats.Median(s.SamplesNsPerOp)
	for _, ns := range rep.BaselineNs {
		s.BaselineSamplesNsPerOp = append(s.BaselineSamplesNsPerOp, float64(ns)/ops)
	}
	if len(s.BaselineSamplesNsPerOp) > 0 {
		s.BaselineNsPerOp = stats.Median(s.BaselineSamplesNsPerOp)
	}
	s.Copies = []result.Copy{{CPU: rep.CPU, NsPerOp: s.NsPerOp, BaselineNsPerOp: s.BaselineNsPerOp}}
	if cfg.ControlIters > 0 {
		s.ControlBeforeNs = float64(rep.ControlBeforeNs) / float64(cfg.ControlIters)
		s.ControlAfterNs = float64(rep.ControlAfterNs) / float64(cfg.ControlIters)
	}
	return s
}
