package result

import (
	"fmt"
	"strings"
)

// ForeignLoadWarnShare is the share of the measuring CPU's time taken by
// other processes above which a result should carry a warning: 5 % of a
// CPU slows a timed loop enough to move per-filter costs of a few ns.
const ForeignLoadWarnShare = 0.05

// ForeignLoad says how much of the measuring CPUs' time other processes
// took while the children of a run were alive.
type ForeignLoad struct {
	// CPUs are the watched CPUs.
	CPUs []int `json:"cpus"`
	// Children is the number of children watched.
	Children int `json:"children"`
	// WindowNs is the wall time watched: each child's lifetime on its
	// CPU, summed, in ns (a multiple of the 10 ms tick).
	WindowNs int64 `json:"window_ns"`
	// BusyNs is the time the CPUs were busy in that window (user, nice,
	// system, irq, softirq and steal by the hypervisor), in ns.
	BusyNs int64 `json:"busy_ns"`
	// OwnNs is the CPU time of the children themselves, in ns.
	OwnNs int64 `json:"own_ns"`
	// Share is max(0, BusyNs-OwnNs)/WindowNs: the fraction of the
	// measuring CPUs' time that other processes (or the hypervisor) took,
	// a lower bound.
	Share float64 `json:"share"`
	// OtherRuns are the other seccompbench runs that held CPU locks
	// while the children ran, as seen at most once a second; empty when
	// none was seen. Their load is part of Share.
	OtherRuns []OtherRun `json:"other_runs,omitempty"`
}

// OtherRun is another seccompbench run seen measuring at the same time:
// its PID and command line (nil when it could not be read).
type OtherRun struct {
	Pid  int      `json:"pid"`
	Argv []string `json:"argv"`
}

// String is "PID n: command line" (cut to 120 characters), or "PID n"
// without a command line.
func (o OtherRun) String() string {
	if len(o.Argv) == 0 {
		return fmt.Sprintf("PID %d", o.Pid)
	}
	line := strings.Join(o.Argv, " ")
	if len(line) > 120 {
		line = line[:117] + "..."
	}
	return fmt.Sprintf("PID %d: %s", o.Pid, line)
}

// Large reports whether Share reaches ForeignLoadWarnShare.
func (f ForeignLoad) Large() bool { return f.Share >= ForeignLoadWarnShare }

// OtherRunsText names the other seccompbench runs seen measuring at the
// same time, "; another seccompbench run measured at the same time (PID
// n: command line)" (or "other seccompbench runs ... (...; ...)"), "" when
// none was seen: the words a foreign-load warning appends.
func (f ForeignLoad) OtherRunsText() string {
	switch len(f.OtherRuns) {
	case 0:
		return ""
	case 1:
		return "; another seccompbench run measured at the same time (" + f.OtherRuns[0].String() + ")"
	}
	names := make([]string, len(f.OtherRuns))
	for i, o := range f.OtherRuns {
		names[i] = o.String()
	}
	return "; other seccompbench runs measured at the same time (" + strings.Join(names, "; ") + ")"
}
