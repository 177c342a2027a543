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
	"time"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/filters"
	filteropt "github.com/seccompbench/seccompbench/filters/optimize"
	"github.com/seccompbench/seccompbench/internal/kstack"
	"github.com/seccompbench/seccompbench/runner/inspect"
	"github.com/seccompbench/seccompbench/runner/live"
	"github.com/seccompbench/seccompbench/runner/result"
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
	// AddTargets adds processes to the targets; PruneTargets drops those
	// that have ended and says how many (--children: live.Session).
	AddTargets(pids []int) error
	PruneTargets() (int, error)
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
	// Children (--children, only with Pids) also samples the targets'
	// descendants: those alive at Open, found by walking /proc once
	// (descendants), and every process they fork from then on (the
	// session's Follow: a sched_process_fork raw tracepoint, needing the
	// kernel's BTF; Open fails naming it when missing).
	Children bool

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
	// Ppid returns a process's parent process ID (live.ProcPpid); with
	// Children it links processes to the targets they descend from.
	Ppid func(pid int) (int, error)
}

// Validate checks the sampling options given on the command line; errors are
// *cmdutil.FlagError (exit code 2) naming the flag.
func (o *Options) Validate() error {
	if o.Children && (len(o.Pids) == 0 || o.Cgroup != "" || o.All) {
		return cmdutil.FlagErrorf("--children: only with --pid (--cgroup and --all already take in every process they select, children included)")
	}
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
// loop's time over the window at 5 % duty and 0.4 % at 2 % (docs/validation/2026-12-02-top-overhead.md): the sys_exit tracepoint slows every syscall by far more
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
		Ppid:       live.ProcPpid,
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
	// children holds, with Options.Children, every descendant of the
	// targets found so far (by a /proc walk or in the samples) and the
	// target it descends from (0: unknown, its parent chain no longer
	// reaches one), the living ones as of the last walk; found counts
	// every child found, atStart those the walk in Open found.
	children       map[int]int
	found, atStart int
	// comms holds each --pid target's last known name (an exited one's
	// row has no /proc to read it from); exited the targets reported as
	// exited, listed no more.
	comms  map[int]string
	exited map[int]bool
	// counterNs is the syscall counter's measured cost per counted call,
	// in ns (NaN: not measured; counterErr says why when it failed).
	counterNs  float64
	counterErr error
	// merged holds each stack's unweighted merge (mergedFor), by its
	// filters' hashes.
	merged map[string]*filteropt.Result
}

// counterCoster is a Sampler that can measure what its counter adds per
// counted call (live.Session.CounterCost).
type counterCoster interface {
	CounterCost(rounds, calls int) (float64, error)
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
	comms := map[int]string{}
	for _, p := range opts.Pids {
		comm, _, err := opts.ProcCPU(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("--pid %d: no such process", p)
		}
		comms[p] = comm
	}
	w := &Watcher{opts: opts, cls: kstack.NewClassifier(syms), rng: rand.New(rand.NewPCG(opts.Seed, 0x70b)), stacks: map[int]dumped{},
		comms: comms, exited: map[int]bool{}, counterNs: math.NaN()}
	if opts.Children {
		w.children = map[int]int{}
		if err := w.findChildren(); err != nil {
			return nil, err
		}
		w.atStart = w.found
		pids = w.sampled()
	}
	s, err := opts.Open(live.Options{Pids: pids, All: opts.All, Frequency: opts.Frequency, Follow: opts.Children})
	if errors.Is(err, live.ErrFollow) {
		return nil, fmt.Errorf("--children: %w", err)
	}
	if err != nil {
		return nil, err
	}
	w.s = s
	if cc, ok := s.(counterCoster); ok && opts.CountDuty > 0 {
		ns, err := cc.CounterCost(live.CounterCostRounds, live.CounterCostCalls)
		if err != nil {
			w.counterErr = err
		} else {
			w.counterNs = ns
		}
	}
	return w, nil
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
