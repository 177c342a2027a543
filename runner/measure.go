package runner

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"time"

	"golang.org/x/sys/unix"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/runner/command"
	"github.com/seccompbench/seccompbench/runner/container"
	"github.com/seccompbench/seccompbench/runner/cpulock"
	"github.com/seccompbench/seccompbench/runner/result"
)

// measurer runs the children of one kind of workload: the timed loops of
// the workload table (loopMeasurer, with the measuring child of this
// package) or a whole command (commandMeasurer, over runner/command).
// RunAdaptive picks one from the workload and asks it for every cell.
type measurer interface {
	// prepare runs once, after the stacks are built and before the first
	// block: it calibrates, may change cfg (Iterations, the resolved
	// command) and fills what info says about it.
	prepare(ctx context.Context, cfg *Config, info *result.RunInfo) (prepared, error)
	// measure runs the children of cell c with stack (sock_filter
	// arrays, oldest first) and returns their Sample.
	measure(ctx context.Context, cfg Config, c result.Cell, stack [][]byte) (result.Sample, error)
}

// prepared is what a measurer's preparation gives the block loop.
type prepared struct {
	// deadline is the timeout of a child that installs stack, when
	// Config.ChildTimeout is 0.
	deadline func(stack [][]byte) time.Duration
	// hardBlocks, when above 0, makes Config.MaxTime a hard bound once
	// that many blocks ran (the command workload's).
	hardBlocks int
	// cleanup, if not nil, runs when the run ends.
	cleanup func()
}

// measurer returns the measurer of cfg's workload.
func (cfg *Config) measurer() measurer {
	if cfg.Workload.Container != nil {
		return &containerMeasurer{}
	}
	if cfg.Workload.Command != nil {
		return &commandMeasurer{}
	}
	return loopMeasurer{}
}

// loopMeasurer measures the timed loops.
type loopMeasurer struct{}

// prepare calibrates the iterations per sample (when not given) and the
// cost of one unfiltered iteration, refuses more than MaxChildWork per
// child, and derives the children's deadlines from them.
func (loopMeasurer) prepare(ctx context.Context, cfg *Config, _ *result.RunInfo) (prepared, error) {
	var perIter float64
	if cfg.Iterations == 0 || cfg.ChildTimeout == 0 {
		it, p, err := calibrate(ctx, *cfg)
		if err != nil {
			return prepared{}, err
		}
		if cfg.Iterations == 0 {
			cfg.Iterations = it
		}
		perIter = p
	}
	if err := checkChildWork(*cfg, perIter); err != nil {
		return prepared{}, err
	}
	c := *cfg
	return prepared{deadline: func(stack [][]byte) time.Duration { return DeriveChildTimeout(c, stack, perIter) }}, nil
}

func (loopMeasurer) measure(ctx context.Context, cfg Config, c result.Cell, stack [][]byte) (result.Sample, error) {
	return runCell(ctx, cfg, c, stack)
}

// commandMeasurer measures the command workload through runner/command.
// children counts the children it started: each paired child draws its
// pair orders from cfg.Seed and that count.
type commandMeasurer struct {
	children uint64
}

// prepare resolves and calibrates the command (command.Prepare): one
// iteration per child, R runs each.
func (*commandMeasurer) prepare(ctx context.Context, cfg *Config, info *result.RunInfo) (prepared, error) {
	spec, runNs, err := command.Prepare(ctx, *cfg.Workload.Command, command.Setup{
		Parallel: cfg.Parallel, Cells: len(cfg.Counts) * len(cfg.Variants), MaxTime: cfg.MaxTime,
		ChildTimeout: cfg.ChildTimeout, Flags: cfg.seccompFlags()})
	if err != nil {
		return prepared{}, err
	}
	cfg.Workload.Command = spec
	cfg.Iterations = 1
	info.Runs, info.RunNs = spec.Runs, runNs
	return prepared{
		deadline:   func([][]byte) time.Duration { return command.Timeout(spec, spec.Runs, runNs) },
		hardBlocks: command.MinBlocks,
	}, nil
}

func (m *commandMeasurer) measure(ctx context.Context, cfg Config, c result.Cell, stack [][]byte) (result.Sample, error) {
	m.children++
	// The command's runs are not pinned (the duet's are, to two of
	// them): the foreign load is watched on every CPU this process may
	// use, and this process's own CPU time (a sampler reading its ring
	// buffer, --direct-frequency) counts as the child's.
	cpus := cpulock.AllowedCPUs()
	before, statErr := cpulock.ReadStats(cpus)
	self := cpulock.SelfCPUTime()
	var own time.Duration
	s, err := command.Measure(ctx, cfg.Workload.Command, command.Request{Cell: c, Stack: stack,
		Flags: cfg.seccompFlags(), Timeout: cfg.ChildTimeout, CPUAfter: getrusageAllowed(cfg.Programs, c),
		Seed: cfg.Seed*0x9e3779b97f4a7c15 + m.children, CPUs: duetCPUs(cfg), OwnCPU: &own})
	if err == nil && statErr == nil && cfg.watch != nil && len(cpus) > 0 {
		if after, err := cpulock.ReadStats(cpus); err == nil {
			cfg.watch.AddAll(cpus, before, after, own+cpulock.SelfCPUTime()-self)
		}
	}
	return s, err
}

// duetCPUs are the two CPUs of the command workload's duet design: the
// run's locked CPUs (lockRunCPUs locks two for it), else the two highest
// this process may run on; nil for the other designs or with fewer than
// two.
func duetCPUs(cfg Config) []int {
	if cfg.Workload.Command.Design != command.DesignDuet {
		return nil
	}
	if len(cfg.cpus) >= 2 && cfg.cpus[0] != cfg.cpus[1] {
		return cfg.cpus[:2]
	}
	if all := cpulock.AllowedCPUs(); len(all) >= 2 {
		return all[len(all)-2:]
	}
	return nil
}

// containerMeasurer measures the command workload's runtime path through
// runner/container: every run is a container the runtime starts.
type containerMeasurer struct {
	p *container.Prepared
}

// prepare writes the bundles, reads the runtime's version and calibrates
// R as command.Prepare does, from one warm-up and three timed runs of the
// bundle without seccomp.
func (m *containerMeasurer) prepare(ctx context.Context, cfg *Config, info *result.RunInfo) (prepared, error) {
	cs := *cfg.Workload.Command
	if err := cs.Check(); err != nil {
		return prepared{}, err
	}
	p, err := container.Prepare(ctx, *cfg.Workload.Container, cs.Argv, "")
	if err != nil {
		return prepared{}, err
	}
	fail := func(err error) (prepared, error) {
		p.Close()
		return prepared{}, err
	}
	m.p = p
	info.Container = &result.ContainerInfo{Runtime: p.Name, Path: p.Path, Version: p.VersionText,
		Profile: p.Profile, Bundle: cfg.Workload.Container.Bundle}
	cal := container.Request{Cell: result.Cell{Variant: result.VariantOn}, Warmup: 1, Runs: 3, Timeout: cfg.ChildTimeout,
		IgnoreFailure: cs.IgnoreFailure, ShowOutput: cs.ShowOutput}
	if cs.Runs > 0 {
		cal.Warmup, cal.Runs = 0, 1
	}
	s, err := p.Measure(ctx, cal)
	if err != nil {
		return fail(fmt.Errorf("calibrate: %w", err))
	}
	runNs := s.NsPerOp
	if !(runNs > 0) {
		return fail(fmt.Errorf("calibrate: measured %v ns per run", runNs))
	}
	if cs.TargetChild <= 0 {
		cs.TargetChild = command.DefaultTargetChild
	}
	if cs.Runs == 0 {
		r := int(math.Round(float64(cs.TargetChild) / runNs))
		r = min(max(r, command.MinRuns), command.MaxRuns)
		if cfg.MaxTime > 0 {
			cells := float64(len(cfg.Counts) * len(cfg.Variants))
			fit := int(float64(cfg.MaxTime)/(command.MinBlocks*cells*runNs)) - cs.Warmup
			r = min(r, max(fit, 1))
		}
		cs.Runs = r
	}
	cfg.Workload.Command = &cs
	cfg.Iterations = 1
	info.Runs, info.RunNs = cs.Runs, runNs
	return prepared{
		deadline:   func([][]byte) time.Duration { return command.Timeout(&cs, cs.Runs, runNs) },
		hardBlocks: command.MinBlocks,
		cleanup:    func() { p.Close() },
	}, nil
}

func (m *containerMeasurer) measure(ctx context.Context, cfg Config, c result.Cell, _ [][]byte) (result.Sample, error) {
	cs := cfg.Workload.Command
	return m.p.Measure(ctx, container.Request{Cell: c, Warmup: cs.Warmup, Runs: cs.Runs, Timeout: cfg.ChildTimeout,
		IgnoreFailure: cs.IgnoreFailure, ShowOutput: cs.ShowOutput})
}

// seccompFlags are the SECCOMP_FILTER_FLAG_* values every child passes.
func (cfg *Config) seccompFlags() uint {
	if cfg.SpecAllow {
		return seccompFlagSpecAllow
	}
	return 0
}

// getrusageAllowed reports whether the stack of cell c allows
// getrusage(RUSAGE_SELF) on this architecture, by emulating it
// (filters.EmulateStack; the action cache does not change verdicts). The
// command workload's wrapper then reads its CPU time after installing.
func getrusageAllowed(progs []*filters.Program, c result.Cell) bool {
	if c.Filters == 0 {
		return true
	}
	arch, err := filters.LookupArch(runtime.GOARCH)
	if err != nil {
		return false
	}
	st, err := StackFor(progs, c)
	if err != nil {
		return false
	}
	r, err := filters.EmulateStack(st, arch.Data(unix.SYS_GETRUSAGE, unix.RUSAGE_SELF))
	return err == nil && r.Action == filters.ActionAllow
}
