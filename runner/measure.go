package runner

import (
	"context"
	"runtime"
	"time"

	"golang.org/x/sys/unix"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/runner/command"
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
}

// measurer returns the measurer of cfg's workload.
func (cfg *Config) measurer() measurer {
	if cfg.Workload.Command != nil {
		return commandMeasurer{}
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
type commandMeasurer struct{}

// prepare resolves and calibrates the command (command.Prepare): one
// iteration per child, R runs each.
func (commandMeasurer) prepare(ctx context.Context, cfg *Config, info *result.RunInfo) (prepared, error) {
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

func (commandMeasurer) measure(ctx context.Context, cfg Config, c result.Cell, stack [][]byte) (result.Sample, error) {
	return command.Measure(ctx, cfg.Workload.Command, command.Request{Cell: c, Stack: stack,
		Flags: cfg.seccompFlags(), Timeout: cfg.ChildTimeout, CPUAfter: getrusageAllowed(cfg.Programs, c)})
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
