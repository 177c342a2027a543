// Package runner measures seccomp filter stacks on the running kernel. It is
// the only package that executes children, calls prctl(2) and seccomp(2),
// pins CPUs and reads clocks.
//
// Every measured configuration runs in a fresh child process (filters cannot
// be removed once installed): the parent re-executes its own binary with
// SECCOMPBENCH_CHILD set, sends a spec on stdin and reads a report on
// stdout. Requires Linux with CONFIG_SECCOMP_FILTER (3.5+); the action cache
// the results discuss exists from Linux 5.11.
package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/seccompbench/seccompbench/filters"
)

// Variant names how the filters of a cell are installed.
type Variant string

const (
	// VariantOn installs the filters as compiled: the kernel's action cache
	// (Linux 5.11+) may skip them for constant-allowed syscalls.
	VariantOn Variant = "on"
	// VariantDefeat prepends `ld [instruction_pointer]` to every filter
	// (filters.Program.DefeatCache): same verdicts, nothing cached.
	VariantDefeat Variant = "defeat"
)

// Workload is a timed syscall loop. Op names what one op is; the loops
// report nanoseconds per syscall, so an iteration of mix counts 5 ops.
type Workload struct {
	// Name is the CLI name: "mix", "getpid", "close" or "syscall".
	Name string
	// Op describes one op for the report, e.g. "one syscall of the mix loop".
	Op string
	// SyscallsPerIter is the number of syscalls (ops) per loop iteration.
	SyscallsPerIter int
	// Syscalls are the syscall names the loop makes, for cache and preflight
	// checks.
	Syscalls []string
	// Syscall holds nr, a0, a1, a2 for the "syscall" workload.
	Syscall [4]int64
	// PathArg, if set, replaces a1 of the "syscall" workload by a pointer to
	// this NUL-terminated string.
	PathArg string
	// PathDirs is the number of PATH directories the exec workloads search;
	// the program is only in the last (1 for "exec").
	PathDirs int
}

// ExecWorkload returns UnixBench's exec mode: per op, one vfork-style
// clone, an execve of a minimal static program that calls exit(0), and
// wait4. The program is written to a temporary directory at run time and
// removed afterwards; it inherits the filter stack.
func ExecWorkload() Workload {
	return Workload{Name: "exec", SyscallsPerIter: 1, PathDirs: 1,
		Syscalls: []string{"clone", "execve", "exit", "wait4"},
		Op:       "one clone(CLONE_VM|CLONE_VFORK) + execve of a 129-byte static program that calls exit(0) + wait4"}
}

// ExecvpeMissWorkload returns the path-search workload: per op, one clone,
// then execve attempts through k directories of which only the last holds
// the program (k-1 ENOENT misses, as execvpe walks PATH), exit, wait4.
func ExecvpeMissWorkload(k int) Workload {
	return Workload{Name: "execvpe-miss", SyscallsPerIter: 1, PathDirs: k,
		Syscalls: []string{"clone", "execve", "exit", "wait4"},
		Op:       fmt.Sprintf("one clone + %d execve attempts along a %d-directory PATH (%d ENOENT misses) + exit + wait4", k, k, k-1)}
}

// safeSyscall is a syscall the "syscall" workload may loop on: it has no
// side effect with the given arguments.
type safeSyscall struct {
	nr      int64
	args    [3]int64
	path    string // if set, a1 points to it
	comment string
}

// safeSyscalls are the x86_64 syscalls `--syscall` accepts, with default
// arguments that make them fail fast or do nothing
// (arch/x86/entry/syscalls/syscall_64.tbl).
var safeSyscalls = map[string]safeSyscall{
	"getpid":      {nr: 39, comment: "getpid()"},
	"getppid":     {nr: 110, comment: "getppid()"},
	"getuid":      {nr: 102, comment: "getuid()"},
	"gettid":      {nr: 186, comment: "gettid()"},
	"umask":       {nr: 95, args: [3]int64{0o22}, comment: "umask(a0), default 022"},
	"sched_yield": {nr: 24, comment: "sched_yield()"},
	"read":        {nr: 0, args: [3]int64{-1}, comment: "read(a0, NULL, 0), default fd -1: EBADF"},
	"write":       {nr: 1, args: [3]int64{-1}, comment: "write(a0, NULL, 0), default fd -1: EBADF"},
	"close":       {nr: 3, args: [3]int64{-1}, comment: "close(a0), default fd -1: EBADF"},
	"fstat":       {nr: 5, args: [3]int64{-1}, comment: "fstat(a0, NULL), default fd -1: EBADF"},
	"lseek":       {nr: 8, args: [3]int64{-1}, comment: "lseek(a0, 0, 0), default fd -1: EBADF"},
	"dup":         {nr: 32, args: [3]int64{-1}, comment: "dup(a0), default fd -1: EBADF"},
	"openat":      {nr: 257, args: [3]int64{-100, 0, 0}, path: "/nonexistent/seccompbench", comment: "openat(AT_FDCWD, \"/nonexistent/seccompbench\", a2): ENOENT"},
}

// SafeSyscalls returns the names `--syscall` accepts, sorted, each with a
// description of its arguments.
func SafeSyscalls() []string {
	var out []string
	for n, s := range safeSyscalls {
		out = append(out, n+": "+s.comment)
	}
	sort.Strings(out)
	return out
}

// SyscallWorkload returns a loop on one syscall from the safe list,
// spec "NAME" or "NAME:a0[,a1[,a2]]" with integer arguments overriding the
// defaults (openat's path argument cannot be overridden).
func SyscallWorkload(spec string) (Workload, error) {
	name, argStr, hasArgs := strings.Cut(spec, ":")
	sc, ok := safeSyscalls[name]
	if !ok {
		var names []string
		for n := range safeSyscalls {
			names = append(names, n)
		}
		sort.Strings(names)
		return Workload{}, fmt.Errorf("syscall %q is not on the safe list: use one of %s", name, strings.Join(names, ", "))
	}
	args := sc.args
	if hasArgs {
		parts := strings.Split(argStr, ",")
		if len(parts) > 3 {
			return Workload{}, fmt.Errorf("syscall %q: at most 3 arguments, got %d", spec, len(parts))
		}
		for i, p := range parts {
			if sc.path != "" && i == 1 {
				return Workload{}, fmt.Errorf("syscall %q: argument 1 of %s is a fixed path and cannot be set", spec, name)
			}
			v, err := strconv.ParseInt(strings.TrimSpace(p), 0, 64)
			if err != nil {
				return Workload{}, fmt.Errorf("syscall %q: argument %d %q is not an integer", spec, i, p)
			}
			args[i] = v
		}
	}
	return Workload{Name: "syscall", SyscallsPerIter: 1, Syscalls: []string{name},
		Syscall: [4]int64{sc.nr, args[0], args[1], args[2]}, PathArg: sc.path,
		Op: fmt.Sprintf("one %s syscall: %s, args %d,%d,%d", name, sc.comment, args[0], args[1], args[2])}, nil
}

// Workloads returns the built-in workloads by name, modeled on UnixBench
// syscall.c's modes.
func Workloads() map[string]Workload {
	return map[string]Workload{
		"mix": {Name: "mix", SyscallsPerIter: 5, Syscalls: []string{"dup", "close", "getpid", "getuid", "umask"},
			Op: "one syscall of the UnixBench mix loop: close(dup(fd)), getpid(), getuid(), umask(022)"},
		"getpid": {Name: "getpid", SyscallsPerIter: 1, Syscalls: []string{"getpid"},
			Op: "one getpid() syscall"},
		"close": {Name: "close", SyscallsPerIter: 2, Syscalls: []string{"dup", "close"},
			Op: "one syscall of close(dup(fd))"},
	}
}

// LookupWorkload returns the named workload or an error listing the valid
// names. "exec" and "execvpe-miss" (8 directories) are accepted too.
func LookupWorkload(name string) (Workload, error) {
	switch name {
	case "exec":
		return ExecWorkload(), nil
	case "execvpe-miss":
		return ExecvpeMissWorkload(8), nil
	}
	w, ok := Workloads()[name]
	if !ok {
		names := make([]string, 0, len(Workloads()))
		for n := range Workloads() {
			names = append(names, n)
		}
		sort.Strings(names)
		return Workload{}, fmt.Errorf("unknown workload %q: use one of %s, exec, execvpe-miss", name, strings.Join(names, ", "))
	}
	return w, nil
}

// Cell is one configuration: a variant at a filter count.
type Cell struct {
	Variant Variant
	Filters int
}

func (c Cell) String() string { return fmt.Sprintf("variant=%s filters=%d", c.Variant, c.Filters) }

// Config describes a measurement run.
type Config struct {
	// Programs are the policies' filters, cycled to build each stack
	// (filters.BuildStack).
	Programs []*filters.Program
	// Counts are the filter counts to measure, e.g. 0,1,2,4,8,16,32.
	Counts []int
	// Variants are measured at every count.
	Variants []Variant
	// Workload is the timed loop.
	Workload Workload
	// Trials is the number of randomized blocks: each holds every cell once.
	Trials int
	// Seed seeds the block shuffles.
	Seed uint64
	// CPU pins the measuring thread; -1 picks one (HighestCPU), -2 disables
	// pinning.
	CPU int
	// Iterations per timed sample; 0 calibrates to SampleDuration.
	Iterations uint64
	// SampleDuration is the calibration target for one sample (default 2ms).
	SampleDuration time.Duration
	// Samples is the number of timed samples per child (default 5); the
	// child's value is their median.
	Samples int
	// Warmup is the number of untimed samples before them (default 1).
	Warmup int
	// ControlIters is the control loop's iterations per timing (0: none).
	ControlIters uint64
	// SpecAllow passes SECCOMP_FILTER_FLAG_SPEC_ALLOW (Linux 4.17) so that
	// installing filters does not enable the speculative store bypass
	// mitigation.
	SpecAllow bool
	// ChildTimeout kills a child that has not reported by then. 0 derives
	// it per cell from calibration (DeriveChildTimeout): 10 s plus ten
	// times the child's expected work, so only a hung child reaches it.
	ChildTimeout time.Duration
	// Progress, if set, is called after each child with the number done and
	// the total.
	Progress func(done, total int, c Cell)

	// Parallel runs this many copies of the workload at once per cell, each
	// in its own child pinned to its own CPU where there are enough
	// (default 1). A Sample's NsPerOp is then the mean over copies.
	Parallel int
	// MaxTrials, when above Trials, lets Run add blocks beyond Trials while
	// Stop returns false, up to MaxTrials.
	MaxTrials int
	// MaxTime stops adding blocks beyond Trials once this much time has
	// passed since Run started (0: no limit).
	MaxTime time.Duration
	// Stop is asked after each block from Trials on whether the samples so
	// far are precise enough; true stops the run.
	Stop func([]Sample) bool

	execPaths []string // set by Run and Calibrate for the exec workloads
	cpus      []int    // CPUs of the parallel copies
}

// Copy is one parallel copy's result within a Sample.
type Copy struct {
	// CPU is the CPU the copy's measuring thread was pinned to (-1: none).
	CPU int
	// NsPerOp is the copy's median sample, in ns per op.
	NsPerOp float64
}

// Stop reasons reported in RunInfo.
const (
	StopTrials    = "trials"      // the fixed number of blocks ran
	StopPrecision = "precision"   // Stop reported the target reached
	StopMaxTrials = "max-trials"  // MaxTrials blocks ran without reaching the target
	StopMaxTime   = "max-time"    // MaxTime passed without reaching the target
	StopCancelled = "interrupted" // the context was cancelled (SIGINT, SIGTERM)
	StopFailed    = "failed"      // a child failed
)

// RunInfo says how a run ended.
type RunInfo struct {
	// Blocks is the number of complete randomized blocks.
	Blocks int
	// StopReason is one of StopTrials, StopPrecision, StopMaxTrials,
	// StopMaxTime, StopCancelled or StopFailed.
	StopReason string
	// Elapsed is the wall time of the run, calibration excluded.
	Elapsed time.Duration
	// Iterations is the loop iterations per sample used.
	Iterations uint64
	// CPUs are the CPUs the copies were pinned to (empty: not pinned).
	CPUs []int
	// ChildTimeout is the longest deadline any cell's children got
	// (Config.ChildTimeout, or derived by DeriveChildTimeout).
	ChildTimeout time.Duration
}

// Sample is one child's result: the unit of replication.
type Sample struct {
	Cell
	// Block is the randomized block index, Seq the child's position in the
	// whole run (0-based), both for drift analysis.
	Block, Seq int
	// NsPerOp is the median over the child's samples of elapsed/ops, in
	// nanoseconds per op.
	NsPerOp float64
	// SamplesNsPerOp are the child's individual samples, in ns per op.
	SamplesNsPerOp []float64
	// InstallNs is the duration of each seccomp(2) call, in ns.
	InstallNs []int64
	// ControlBeforeNs and ControlAfterNs time the control loop before and
	// after installing, in ns per control iteration (0 if not run).
	ControlBeforeNs, ControlAfterNs float64
	// FiltersSeen is Seccomp_filters of the measuring thread after
	// installing (-1 if the kernel does not report it).
	FiltersSeen int
	// CPU is the CPU the measuring thread was pinned to, -1 if none.
	CPU int
	// Copies holds each parallel copy's result (one entry when Parallel
	// is 1).
	Copies []Copy
	// PinErr says why the measuring thread could not be pinned (e.g. no
	// permission, CPU offline); "" when pinned or pinning was off.
	PinErr string
}

// ErrChild is wrapped by every *ChildError.
var ErrChild = errors.New("measuring child failed")

// ChildError reports a child that died, hung, failed to install its filters
// or reported a wrong filter count. It names the cell.
type ChildError struct {
	Cell   Cell
	Reason string
	// Signal is the signal that killed the child, 0 if none.
	Signal syscall.Signal
	// ExitCode is the child's exit status, -1 if killed.
	ExitCode int
	// Errno is the errno of a failed seccomp(2) call, 0 if none.
	Errno syscall.Errno
	// Stderr is the tail of the child's standard error.
	Stderr string
	// Cause, if not nil, is a sentinel the failure belongs to, e.g.
	// ErrNotSupported for a kernel without a needed feature.
	Cause error
}

func (e *ChildError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "child for %s: %s", e.Cell, e.Reason)
	if e.Signal != 0 {
		fmt.Fprintf(&b, " (killed by signal %s)", e.Signal)
		if e.Signal == syscall.SIGSYS {
			b.WriteString(": a filter returned SECCOMP_RET_KILL_PROCESS or SECCOMP_RET_TRAP for a syscall the harness made")
		}
	}
	if s := strings.TrimSpace(e.Stderr); s != "" {
		fmt.Fprintf(&b, "\nchild stderr:\n%s", s)
	}
	return b.String()
}

// Unwrap returns ErrChild, the errno and the cause, if any.
func (e *ChildError) Unwrap() []error {
	errs := []error{ErrChild}
	if e.Errno != 0 {
		errs = append(errs, e.Errno)
	}
	if e.Cause != nil {
		errs = append(errs, e.Cause)
	}
	return errs
}

// HighestCPU returns the highest-numbered CPU this process may run on, the
// choice tools/testing/selftests/seccomp/seccomp_benchmark.c makes
// ("avoid CPUs that might be busier"), or -1 if it cannot tell.
func HighestCPU() int {
	var set cpuSet
	if err := set.current(); err != nil {
		return -1
	}
	for cpu := set.size() - 1; cpu >= 0; cpu-- {
		if set.isSet(cpu) {
			return cpu
		}
	}
	return -1
}

// Schedule returns the run order: trials blocks, each holding every cell
// once in an order shuffled by a PCG seeded with seed. Randomized blocks
// make machine drift hit all counts alike.
func Schedule(counts []int, variants []Variant, trials int, seed uint64) [][]Cell {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	blocks := make([][]Cell, trials)
	for b := range blocks {
		var cells []Cell
		for _, v := range variants {
			for _, n := range counts {
				cells = append(cells, Cell{Variant: v, Filters: n})
			}
		}
		rng.Shuffle(len(cells), func(i, j int) { cells[i], cells[j] = cells[j], cells[i] })
		blocks[b] = cells
	}
	return blocks
}

// StackFor returns the stack a cell installs: BuildStack of the programs at
// the cell's count, each program passed through DefeatCache for
// VariantDefeat. It returns the *filters.LimitError of BuildStack.
func StackFor(progs []*filters.Program, c Cell) (filters.Stack, error) {
	return filters.BuildStack(VariantPrograms(progs, c.Variant), c.Filters)
}

// VariantPrograms returns the programs as variant v installs them: as
// compiled for VariantOn, each passed through DefeatCache for
// VariantDefeat (one instruction longer).
func VariantPrograms(progs []*filters.Program, v Variant) []*filters.Program {
	if v != VariantDefeat {
		return progs
	}
	ps := make([]*filters.Program, len(progs))
	for i, p := range progs {
		ps[i] = p.DefeatCache()
	}
	return ps
}

// seccompFlagSpecAllow is SECCOMP_FILTER_FLAG_SPEC_ALLOW
// (include/uapi/linux/seccomp.h, Linux 4.17).
const seccompFlagSpecAllow = 1 << 2

// Run measures every cell of cfg in randomized blocks, one fresh child per
// cell and block, and returns one Sample per child in run order. See
// RunAdaptive, which it calls, for the details and errors.
func Run(ctx context.Context, cfg Config) ([]Sample, error) {
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
func RunAdaptive(ctx context.Context, cfg Config) ([]Sample, RunInfo, error) {
	var info RunInfo
	cfg = withDefaults(cfg)
	if len(cfg.Counts) == 0 || len(cfg.Variants) == 0 || cfg.Trials < 1 {
		return nil, info, errors.New("run: need at least one count, one variant and one trial")
	}
	stacks := map[Cell][][]byte{}
	for _, v := range cfg.Variants {
		for _, n := range cfg.Counts {
			c := Cell{Variant: v, Filters: n}
			s, err := StackFor(cfg.Programs, c)
			if err != nil {
				return nil, info, fmt.Errorf("build stack for %s: %w", c, err)
			}
			var raw [][]byte
			for _, p := range s {
				raw = append(raw, p.Bytes())
			}
			stacks[c] = raw
		}
	}
	cleanup, err := cfg.ensureExecFixture()
	if err != nil {
		return nil, info, err
	}
	defer cleanup()
	if err := checkSupport(cfg); err != nil {
		return nil, info, err
	}
	var perIter float64
	if cfg.Iterations == 0 || cfg.ChildTimeout == 0 {
		it, p, err := calibrate(ctx, cfg)
		if err != nil {
			return nil, info, err
		}
		if cfg.Iterations == 0 {
			cfg.Iterations = it
		}
		perIter = p
	}
	if perIter > 0 {
		// Refuse work no one would wait for before starting it: with
		// no filters at all, a child would time for this long.
		c := withDefaults(cfg)
		if ns := float64(c.Warmup+c.Samples) * float64(c.Iterations) * perIter; ns > float64(MaxChildWork) {
			return nil, info, fmt.Errorf("%w: %d iterations x %d samples (+%d warm-up) at %.1f ns per iteration is about %.3g s per child, over %v; lower --iterations or --samples (0 iterations calibrates to ~2 ms per sample)",
				ErrTooMuchWork, c.Iterations, c.Samples, c.Warmup, perIter, ns/1e9, MaxChildWork)
		}
	}
	timeouts := map[Cell]time.Duration{}
	for c, st := range stacks {
		timeouts[c] = cfg.ChildTimeout
		if cfg.ChildTimeout == 0 {
			timeouts[c] = DeriveChildTimeout(cfg, st, perIter)
		}
		info.ChildTimeout = max(info.ChildTimeout, timeouts[c])
	}
	info.Iterations = cfg.Iterations
	info.CPUs = cfg.cpus
	maxBlocks := max(cfg.Trials, cfg.MaxTrials)
	perBlock := len(cfg.Counts) * len(cfg.Variants)
	start := time.Now()
	var out []Sample
	seq := 0
	for b := 0; b < maxBlocks; b++ {
		if b >= cfg.Trials {
			if cfg.Stop == nil {
				info.StopReason = StopTrials
				break
			}
			if cfg.Stop(out) {
				info.StopReason = StopPrecision
				break
			}
			if cfg.MaxTime > 0 && time.Since(start) > cfg.MaxTime {
				info.StopReason = StopMaxTime
				break
			}
		}
		// Each block gets its own shuffle, derived from the seed and the
		// block index, so adding blocks never changes earlier ones.
		cells := Schedule(cfg.Counts, cfg.Variants, 1, cfg.Seed+uint64(b)*0x9e3779b9)[0]
		for _, c := range cells {
			if err := ctx.Err(); err != nil {
				info.StopReason, info.Elapsed = StopCancelled, time.Since(start)
				return out, info, err
			}
			cc := cfg
			cc.ChildTimeout = timeouts[c]
			s, err := runCell(ctx, cc, c, stacks[c])
			if err != nil {
				info.StopReason, info.Elapsed = StopFailed, time.Since(start)
				if ctx.Err() != nil {
					info.StopReason = StopCancelled
				}
				return out, info, err
			}
			s.Block, s.Seq = b, seq
			seq++
			out = append(out, s)
			if cfg.Progress != nil {
				total := maxBlocks * perBlock
				if cfg.Stop == nil || cfg.MaxTrials <= cfg.Trials {
					total = cfg.Trials * perBlock
				}
				cfg.Progress(len(out), total, c)
			}
		}
		info.Blocks = b + 1
	}
	if info.StopReason == "" {
		if cfg.Stop != nil && cfg.Stop(out) {
			info.StopReason = StopPrecision
		} else if cfg.Stop != nil && maxBlocks > cfg.Trials {
			info.StopReason = StopMaxTrials
		} else {
			info.StopReason = StopTrials
		}
	}
	info.Elapsed = time.Since(start)
	return out, info, nil
}

// ensureExecFixture writes the exec workloads' temporary program (when the
// workload execs and none is set yet) and returns the function that
// removes it.
func (cfg *Config) ensureExecFixture() (cleanup func(), err error) {
	if cfg.Workload.PathDirs == 0 || cfg.execPaths != nil {
		return func() {}, nil
	}
	fx, err := newExecFixture(cfg.Workload.PathDirs)
	if err != nil {
		return nil, err
	}
	cfg.execPaths = fx.paths
	return func() { fx.Close() }, nil
}

func withDefaults(cfg Config) Config {
	if cfg.SampleDuration == 0 {
		cfg.SampleDuration = 2 * time.Millisecond
	}
	if cfg.Samples == 0 {
		cfg.Samples = 5
	}
	if cfg.Warmup == 0 {
		cfg.Warmup = 1
	}
	if cfg.CPU == -1 {
		cfg.CPU = HighestCPU()
	}
	if cfg.Parallel < 1 {
		cfg.Parallel = 1
	}
	if cfg.cpus == nil && cfg.CPU >= 0 {
		cfg.cpus = []int{cfg.CPU}
		if cfg.Parallel > 1 {
			cfg.cpus = CopyCPUs(cfg.CPU, cfg.Parallel)
		}
	}
	if cfg.Workload.SyscallsPerIter == 0 {
		cfg.Workload = Workloads()["mix"]
	}
	return cfg
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
	cfg.Parallel = 1
	if cfg.ChildTimeout == 0 {
		cfg.ChildTimeout = minChildTimeout
	}
	s, err := runCell(ctx, cfg, Cell{Variant: VariantOn, Filters: 0}, nil)
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

// MaxChildWork bounds the timed work of one child: RunAdaptive refuses a
// configuration whose calibrated loops, without any filter, would take
// longer (error wrapping ErrTooMuchWork), instead of running a child for
// hours. Defaults take about 10 ms.
const MaxChildWork = 5 * time.Minute

// ErrTooMuchWork is returned (wrapped) by RunAdaptive when Iterations and
// Samples ask a child for more than MaxChildWork of timed loops.
var ErrTooMuchWork = errors.New("too much work per child")

// minChildTimeout is the least time a child gets to report: process
// start-up, reading the spec and installing the filters take milliseconds,
// but a loaded machine may stall them for seconds.
const minChildTimeout = 10 * time.Second

// Upper bounds used by DeriveChildTimeout for what filters add per syscall:
// interpreted classic BPF runs well under 5 ns per instruction, and each
// filter's dispatch well under 100 ns (DESIGN.md: ~20 ns per filter
// measured on x86_64 with retpolines).
const (
	maxNsPerInsn   = 5
	maxNsPerFilter = 100
)

// DeriveChildTimeout returns the deadline of a child of cfg that installs
// stack (sock_filter arrays), given the calibrated cost of one loop
// iteration without filters, perIterNs in ns. The expected work is
// (Warmup + Samples) x Iterations iterations, each costing perIterNs plus,
// per syscall, an upper bound of what the stack can add (every instruction
// of every filter executed: classic BPF only jumps forward), plus the
// control loop twice at 5 ns per iteration. The deadline is
// minChildTimeout (10 s) plus ten times that work, so a slow cell is never
// mistaken for a hung one.
func DeriveChildTimeout(cfg Config, stack [][]byte, perIterNs float64) time.Duration {
	cfg = withDefaults(cfg)
	var extra float64
	for _, f := range stack {
		extra += float64(len(f)/8)*maxNsPerInsn + maxNsPerFilter
	}
	iters := float64(cfg.Warmup+cfg.Samples) * float64(cfg.Iterations)
	work := iters*(perIterNs+float64(cfg.Workload.SyscallsPerIter)*extra) + 2*float64(cfg.ControlIters)*5
	if !(work < float64(math.MaxInt64)/20) { // would overflow: no deadline
		return time.Duration(math.MaxInt64)
	}
	return minChildTimeout + time.Duration(10*work)
}

// runCell runs cfg.Parallel children at once for cell c with the given
// stack (sock_filter arrays, oldest first) and converts their reports into
// one Sample.
func runCell(ctx context.Context, cfg Config, c Cell, stack [][]byte) (Sample, error) {
	if cfg.Parallel <= 1 {
		cpu := -1
		if len(cfg.cpus) > 0 {
			cpu = cfg.cpus[0]
		}
		return runCopy(ctx, cfg, c, stack, cpu)
	}
	type res struct {
		s   Sample
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
	var out Sample
	var sum float64
	for i, r := range results {
		if r.err != nil {
			return Sample{}, r.err
		}
		if i == 0 {
			out = r.s
			out.Copies = nil
		}
		out.Copies = append(out.Copies, r.s.Copies...)
		sum += r.s.NsPerOp
	}
	out.NsPerOp = sum / float64(cfg.Parallel)
	return out, nil
}

// CopyCPUs returns the CPUs for n parallel copies: first, then the other
// allowed CPUs from the highest down, wrapping around when n exceeds the
// allowed CPUs.
func CopyCPUs(first, n int) []int {
	var set cpuSet
	cpus := []int{first}
	if err := set.current(); err == nil {
		for cpu := set.size() - 1; cpu >= 0; cpu-- {
			if set.isSet(cpu) && cpu != first {
				cpus = append(cpus, cpu)
			}
		}
	}
	out := make([]int, n)
	for i := range out {
		out[i] = cpus[i%len(cpus)]
	}
	return out
}

// runCopy runs one child pinned to cpu (-1: not pinned).
func runCopy(ctx context.Context, cfg Config, c Cell, stack [][]byte, cpu int) (Sample, error) {
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
	}
	if cfg.SpecAllow {
		spec.Flags |= seccompFlagSpecAllow
	}
	if spec.CPU < 0 {
		spec.CPU = -1
	}
	rep, err := execChild(ctx, cfg.ChildTimeout, c, spec)
	if err != nil {
		return Sample{}, err
	}
	if rep.FiltersBefore >= 0 && rep.FiltersAfter >= 0 && rep.FiltersAfter != rep.FiltersBefore+len(stack) {
		return Sample{}, &ChildError{Cell: c, ExitCode: 0,
			Reason: fmt.Sprintf("Seccomp_filters is %d after installing %d filters on top of %d inherited", rep.FiltersAfter, len(stack), rep.FiltersBefore)}
	}
	if len(rep.SamplesNs) != cfg.Samples {
		return Sample{}, &ChildError{Cell: c, Reason: fmt.Sprintf("reported %d samples, want %d", len(rep.SamplesNs), cfg.Samples)}
	}
	if cfg.Workload.PathDirs > 0 {
		want := uint64(cfg.Warmup+cfg.Samples) * cfg.Iterations
		if rep.ExecsOK != want {
			return Sample{}, &ChildError{Cell: c, Reason: fmt.Sprintf("only %d of %d execs ran the program to exit(0): a filter may deny clone, execve, exit or wait4", rep.ExecsOK, want)}
		}
	}
	ops := float64(cfg.Iterations) * float64(cfg.Workload.SyscallsPerIter)
	s := Sample{Cell: c, InstallNs: rep.InstallNs, FiltersSeen: rep.FiltersAfter, CPU: rep.CPU, PinErr: rep.PinErr}
	for _, ns := range rep.SamplesNs {
		s.SamplesNsPerOp = append(s.SamplesNsPerOp, float64(ns)/ops)
	}
	s.NsPerOp = median(s.SamplesNsPerOp)
	s.Copies = []Copy{{CPU: rep.CPU, NsPerOp: s.NsPerOp}}
	if cfg.ControlIters > 0 {
		s.ControlBeforeNs = float64(rep.ControlBeforeNs) / float64(cfg.ControlIters)
		s.ControlAfterNs = float64(rep.ControlAfterNs) / float64(cfg.ControlIters)
	}
	return s, nil
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// execChild starts one child, feeds it spec and decodes its report. The
// child dies with the parent (PR_SET_PDEATHSIG) and is killed at timeout.
func execChild(ctx context.Context, timeout time.Duration, c Cell, spec childSpec) (childReport, error) {
	var rep childReport
	in, err := json.Marshal(spec)
	if err != nil {
		return rep, fmt.Errorf("encode child spec: %w", err)
	}
	exe, err := os.Executable()
	if err != nil {
		return rep, fmt.Errorf("find own executable for re-exec: %w", err)
	}
	if timeout <= 0 {
		timeout = minChildTimeout
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, exe)
	cmd.Env = childEnviron()
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &limitedBuffer{max: 8 << 10, buf: &stderr}
	// Its own process group: a Ctrl-C on the terminal reaches only the
	// parent, which then kills the child's whole group (the exec
	// workloads' programs too) and reports the interruption, instead of
	// children dying first and looking like failures.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		return cmd.Process.Kill()
	}
	cmd.WaitDelay = time.Second
	runErr := cmd.Run()
	if ctx.Err() != nil {
		return rep, ctx.Err()
	}
	decErr := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &rep)
	if runErr != nil {
		ce := &ChildError{Cell: c, ExitCode: -1, Stderr: stderr.String()}
		if cctx.Err() == context.DeadlineExceeded {
			ce.Reason = fmt.Sprintf("no report within %s; killed (hung child: a filter may block a syscall the harness needs)", timeout)
			return rep, ce
		}
		var ee *exec.ExitError
		if errors.As(runErr, &ee) {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok {
				if ws.Signaled() {
					ce.Signal = ws.Signal()
				} else {
					ce.ExitCode = ws.ExitStatus()
				}
			}
		}
		switch {
		case decErr == nil && rep.Err != "":
			ce.Reason = rep.Err
			ce.Errno = syscall.Errno(rep.InstallErrno)
			if ce.Errno != 0 {
				hint, notSup := installHint(ce.Errno, rep.FailedFilter, spec.Flags, rep.FiltersBefore, syscall.Errno(rep.ProbeErrno))
				if hint != "" {
					ce.Reason += ": " + hint
				}
				if notSup {
					ce.Cause = ErrNotSupported
				}
			}
		case ce.Signal != 0:
			ce.Reason = "died"
		default:
			ce.Reason = fmt.Sprintf("exited with status %d", ce.ExitCode)
		}
		return rep, ce
	}
	if decErr != nil {
		return rep, &ChildError{Cell: c, Reason: fmt.Sprintf("decode report: %v", decErr), Stderr: stderr.String()}
	}
	return rep, nil
}

// childEnviron is the parent's environment plus the child marker and the
// runtime settings of the DESIGN.md recipe: no asynchronous preemption, no
// GC.
func childEnviron() []string {
	env := []string{childEnv + "=" + childProtocol}
	godebug := "asyncpreemptoff=1,updatemaxprocs=0"
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case childEnv, "GOGC", "GOMAXPROCS":
			continue
		case "GODEBUG":
			if v != "" {
				godebug = v + "," + godebug
			}
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GODEBUG="+godebug, "GOGC=off")
}

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	max int
	buf *bytes.Buffer
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.buf.Len(); room > 0 {
		l.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}
