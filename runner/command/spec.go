// Package command is the command workload: a whole program run R times
// per child under the cell's stack. A timing child (TimingChild) forks
// this binary as a wrapper (WrapperChild) for every run; the wrapper
// installs the stack with SECCOMP_FILTER_FLAG_TSYNC and execs the command,
// and the timing child reaps it with wait4(2). See docs/methodology-command.md,
// "The command workload".
package command

import (
	"errors"
	"fmt"
	"time"
)

// Spec is the command workload: a whole program, run R times per
// child under the cell's stack. See docs/methodology-command.md, "The command
// workload", for why each run execs through a wrapper.
type Spec struct {
	// Argv is the command and its arguments; Argv[0] is looked up in the
	// PATH of Env before the first child starts.
	Argv []string
	// Env is the command's environment; nil means the parent's.
	Env []string
	// Prepare, if not empty, is run with `sh -c` before every run (warm-up
	// runs included), outside the stack and outside the timing. A prepare
	// command that exits non-zero fails the cell. A process it leaves
	// running lives through the run it prepares and is killed after it,
	// with what the command left (docs/methodology-command.md, "What a run leaves
	// running").
	Prepare string
	// Warmup is the number of untimed runs per child before the timed
	// ones (exactly this many; 0 is none); untimed pairs in the paired
	// designs.
	Warmup int
	// Runs is R, the timed runs per child (in the paired designs, the
	// timed pairs, each one run without and one with the stack); 0
	// calibrates it so that one child's runs take about TargetChild.
	Runs int
	// TargetChild is the calibration target for one child's timed runs
	// (default 300 ms).
	TargetChild time.Duration
	// IgnoreFailure keeps a run that exits non-zero or is killed: it is
	// timed and counted in CommandSample.Failed instead of failing the
	// cell.
	IgnoreFailure bool
	// Design is how a child compares the command without and with the
	// stack; "" is DesignChildren.
	Design Design
	// ShowOutput sends the command's standard output and error to the
	// child's standard error (whose tail a child error shows) instead of
	// /dev/null. Standard input is /dev/null either way.
	ShowOutput bool

	path string // Argv[0] resolved, set by Prepare
	// stopNs, when above 0, ends a paired child's timed pairs once they
	// took that long (ns), at least MinRuns of them: Prepare sets it to
	// the calibrated R's time when it calibrates R for a paired design
	// (R from unfiltered runs only), and R to twice that, as a cap.
	stopNs int64
}

// Defaults of the command workload.
const (
	// DefaultTargetChild is Spec.TargetChild's default.
	DefaultTargetChild = 300 * time.Millisecond
	// MinRuns and MaxRuns bound a calibrated R.
	MinRuns = 2
	MaxRuns = 1000
	// MinBlocks is how many blocks a command run completes before its
	// time limit may stop it: two children per cell at least, so every
	// cell has a spread.
	MinBlocks = 2
)

// Design is how the command workload compares the command without and
// with a cell's stack (docs/methodology-command.md, "The command workload").
type Design string

const (
	// DesignChildren runs every run of a child under the child's cell's
	// stack: the comparison is between children of different cells (the
	// 0-filter cell is the baseline).
	DesignChildren Design = "children"
	// DesignPairs makes every child alternate runs without any filter and
	// with the cell's stack, R pairs, the order within each pair drawn
	// from the child's seed; the child reports both series.
	DesignPairs Design = "pairs"
	// DesignDuet is DesignPairs with the two runs of a pair at the same
	// time, each pinned to one of two CPUs (sched_setaffinity(2)), the
	// sides swapped every pair.
	DesignDuet Design = "duet"
)

// Designs lists the designs, as the flags name them.
var Designs = []Design{DesignChildren, DesignPairs, DesignDuet}

// ParseDesign returns the Design named s; an error names the valid ones.
func ParseDesign(s string) (Design, error) {
	for _, d := range Designs {
		if string(d) == s {
			return d, nil
		}
	}
	return "", fmt.Errorf("unknown A/B design %q: want children, pairs or duet", s)
}

// Paired reports whether d's children run both sides (pairs or duet).
func (d Design) Paired() bool { return d == DesignPairs || d == DesignDuet }

// Check returns an error for an empty command, a negative count or an
// unknown design.
func (s Spec) Check() error {
	if s.Design != "" {
		if _, err := ParseDesign(string(s.Design)); err != nil {
			return fmt.Errorf("command workload: %w", err)
		}
	}
	if len(s.Argv) == 0 || s.Argv[0] == "" {
		return errors.New("command workload: no command: give it after --, e.g. --workload command -- find /usr/share -name x")
	}
	if s.Warmup < 0 || s.Runs < 0 {
		return fmt.Errorf("command workload: negative warm-up (%d) or runs (%d)", s.Warmup, s.Runs)
	}
	return nil
}
