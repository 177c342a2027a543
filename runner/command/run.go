package command

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/seccompbench/seccompbench/runner/internal/child"
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/stats"
)

// calibrationTimeout is the deadline of the command workload's calibration
// child when Setup.ChildTimeout is not set: the command's duration is not
// known yet.
const calibrationTimeout = 10 * time.Minute

// Setup is what Prepare needs from the run besides the spec.
type Setup struct {
	// Parallel is the run's parallel copies; the command workload runs
	// one.
	Parallel int
	// Cells is the number of cells per block.
	Cells int
	// MaxTime bounds the run (0: none): a calibrated R is lowered so
	// that MinBlocks blocks fit in it.
	MaxTime time.Duration
	// ChildTimeout is the deadline of the calibration child (0:
	// calibrationTimeout).
	ChildTimeout time.Duration
	// Flags are the SECCOMP_FILTER_FLAG_* values of every seccomp(2).
	Flags uint
}

// Prepare readies spec before the first child: it returns a copy (the
// caller's stays unchanged) with Argv[0] resolved in the command's PATH,
// Env filled and R set, and the measured wall time of one run in ns. It
// calibrates: one child without filters makes one warm-up run and up to
// three timed ones, which checks that the command exits 0 and measures
// one run's whole cost; R (Runs, when 0) is then TargetChild over that
// (over twice that for DesignPairs), within [MinRuns, MaxRuns] and
// lowered so that MinBlocks blocks fit in MaxTime. Given Runs whose work exceeds child.MaxWork is an error wrapping
// child.ErrTooMuchWork.
func Prepare(ctx context.Context, spec Spec, su Setup) (*Spec, float64, error) {
	cs := spec
	if su.Parallel > 1 {
		return nil, 0, errors.New("command workload: parallel copies are not supported: run one copy")
	}
	if len(cs.Argv) == 0 {
		return nil, 0, errors.New("command workload: no command")
	}
	if cs.Env == nil {
		cs.Env = os.Environ()
	}
	path, err := child.LookPathIn(cs.Argv[0], cs.Env)
	if err != nil {
		return nil, 0, fmt.Errorf("command workload: %w", err)
	}
	cs.path = path
	if cs.TargetChild <= 0 {
		cs.TargetChild = DefaultTargetChild
	}
	cal := cs
	cal.Design = DesignChildren
	cal.Warmup = 1
	cal.Runs = 3
	if cs.Runs > 0 {
		cal.Warmup, cal.Runs = 0, 1
	}
	timeout := su.ChildTimeout
	if timeout == 0 {
		timeout = calibrationTimeout
	}
	req := Request{Cell: result.Cell{Variant: result.VariantOn, Filters: 0}, Flags: su.Flags, Timeout: timeout, CPUAfter: true}
	s, err := Measure(ctx, &cal, req)
	if err != nil {
		return nil, 0, fmt.Errorf("calibrate: %w", err)
	}
	runNs := stats.Median(s.Command.WallNs)
	if !(runNs > 0) {
		return nil, 0, fmt.Errorf("calibrate: measured %v ns per run", runNs)
	}
	if cs.Runs == 0 {
		perRun := runNs * cs.Design.runsPerPair()
		r := int(math.Round(float64(cs.TargetChild) / perRun))
		r = min(max(r, MinRuns), MaxRuns)
		if su.MaxTime > 0 {
			cells := float64(su.Cells)
			fit := int(float64(su.MaxTime)/(MinBlocks*cells*perRun)) - cs.Warmup
			r = min(r, max(fit, 1))
		}
		cs.Runs = r
		if cs.Design.Paired() {
			// R comes from unfiltered runs; the stacked ones are slower
			// by the install and the added time, so the child stops at
			// its time instead, and R is only the cap.
			cs.stopNs = int64(float64(r) * perRun)
			cs.Runs = min(2*r, MaxRuns)
		}
	} else if ns := float64(cs.Warmup+cs.Runs) * runNs * cs.Design.runsPerPair(); ns > float64(child.MaxWork) {
		return nil, 0, fmt.Errorf("%w: %d runs (+%d warm-up) at %.3g s each is about %.3g s per child, over %v; lower --runs",
			child.ErrTooMuchWork, cs.Runs, cs.Warmup, runNs/1e9, ns/1e9, child.MaxWork)
	}
	return &cs, runNs, nil
}

// Request is one child of the command workload.
type Request struct {
	// Cell is the cell measured, for errors and the Sample.
	Cell result.Cell
	// Stack is the sock_filter arrays the wrapper installs, oldest first.
	Stack [][]byte
	// Flags are the SECCOMP_FILTER_FLAG_* values (TSYNC is added).
	Flags uint
	// Timeout is the child's deadline (Timeout gives the usual one).
	Timeout time.Duration
	// CPUAfter says the stack allows getrusage(2): the wrapper then reads
	// its CPU time after installing.
	CPUAfter bool
	// Seed draws the order within each pair of the paired designs
	// (Spec.Design); the runner gives every child its own.
	Seed uint64
	// CPUs are the two CPUs of DesignDuet (ignored by the other
	// designs); the seed draws which side takes which, pair by pair.
	CPUs []int
	// OwnCPU, when not nil, receives the timing child's CPU time, user
	// plus system with the descendants it reaped (wait4(2) rusage): the
	// wrappers and the command's runs, and what the runs left running,
	// which it kills and reaps after each run.
	OwnCPU *time.Duration
}

// Measure runs one timing child of spec (as Prepare returned it) for req
// and converts its report into a Sample. A run that fails (without
// IgnoreFailure) gives a *child.Error naming the cell whose Cause is the
// *result.CommandError.
func Measure(ctx context.Context, cs *Spec, req Request) (result.Sample, error) {
	c, stack := req.Cell, req.Stack
	spec := timingSpec{Filters: stack, Flags: req.Flags, Path: cs.path, Argv: cs.Argv, Env: cs.Env, Prepare: cs.Prepare,
		Warmup: cs.Warmup, Runs: cs.Runs, IgnoreFailure: cs.IgnoreFailure, ShowOutput: cs.ShowOutput, CPUAfter: req.CPUAfter,
		Design: string(cs.Design), Seed: req.Seed, CPUs: req.CPUs, StopNs: cs.stopNs}
	if cs.Design == DesignDuet && len(req.CPUs) != 2 {
		return result.Sample{}, &child.Error{Cell: c, Reason: fmt.Sprintf("the duet design needs two CPUs, got %v", req.CPUs)}
	}
	in, err := json.Marshal(spec)
	if err != nil {
		return result.Sample{}, fmt.Errorf("encode child spec: %w", err)
	}
	out, err := child.RunStoppable(ctx, timingKind, req.Timeout, c, in)
	if req.OwnCPU != nil {
		*req.OwnCPU = out.Own
	}
	var rep timingReport
	decErr := json.Unmarshal(out.Stdout, &rep)
	if err != nil {
		child.Refine(err, func(ce *child.Error) {
			if decErr == nil && rep.Err != "" {
				ce.Reason = rep.Err
			}
		})
		var ce *child.Error
		if errors.As(err, &ce) && rep.Command != nil && rep.Command.Failure != nil {
			f := rep.Command.Failure.err()
			f.Filters = len(stack)
			ce.Reason = fmt.Sprintf("command %s: %v", quoteArgv(cs.Argv), f)
			ce.Cause = f
			ce.Errno = f.Errno
		}
		return result.Sample{}, err
	}
	if decErr != nil {
		return result.Sample{}, &child.Error{Cell: c, Reason: fmt.Sprintf("decode report: %v", decErr), Stderr: out.Stderr}
	}
	cr := rep.Command
	if cr == nil {
		return result.Sample{}, &child.Error{Cell: c, Reason: "the command child sent no command report"}
	}
	if !runsOK(cs, len(cr.Runs)) || cr.Warmup != cs.Warmup {
		return result.Sample{}, &child.Error{Cell: c, Reason: fmt.Sprintf("made %d runs after %d warm-up runs, want %d after %d", len(cr.Runs), cr.Warmup, cs.Runs, cs.Warmup)}
	}
	if err := checkPairs(cs.Design, cr); err != nil {
		return result.Sample{}, &child.Error{Cell: c, Reason: err.Error()}
	}
	if cr.Installed != len(stack) {
		return result.Sample{}, &child.Error{Cell: c, Reason: fmt.Sprintf("the wrapper installed %d filters, want %d", cr.Installed, len(stack))}
	}
	s := result.Sample{Cell: c, FiltersSeen: rep.FiltersAfter, CPU: -1}
	commandSample(&s, cr)
	s.Command.Design = string(cs.Design.orDefault())
	s.NsPerOp = stats.Median(s.SamplesNsPerOp)
	s.Copies = []result.Copy{{CPU: -1, NsPerOp: s.NsPerOp}}
	return s, nil
}

// quoteArgv renders argv for messages, quoting words with spaces.
func quoteArgv(argv []string) string {
	q := slices.Clone(argv)
	for i, a := range q {
		if a == "" || strings.ContainsAny(a, " \t\n'\"") {
			q[i] = fmt.Sprintf("%q", a)
		}
	}
	return "`" + strings.Join(q, " ") + "`"
}
