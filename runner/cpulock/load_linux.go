package cpulock

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/seccompbench/seccompbench/runner/result"
	"golang.org/x/sys/unix"
)

// Foreign-load watch. A lock keeps other seccompbench runs off a measuring
// CPU, but not a build, a browser or a busy loop. So, around every child,
// the parent reads the counters of the child's CPU in /proc/stat (man 5
// proc; kernel fs/proc/stat.c: show_stat, in USER_HZ ticks) and the
// child's own CPU time from wait4(2) (all its threads and the exec
// workloads' programs it waited for). Busy time of the CPU beyond the
// child's own time was taken by something else while the child measured.
//
// The estimate errs low, never high: the child's own time includes what
// its other threads spent on other CPUs, and is all subtracted from the
// measuring CPU's busy time. Tick accounting samples in 10 ms steps, so one
// child's window is coarse but the sum over a run is not biased.

// userHZ is the unit of /proc/stat's CPU counters: USER_HZ, 100 on every
// Linux architecture (sysconf(_SC_CLK_TCK)).
const userHZ = 100

// Stat is one CPU's line of /proc/stat, in USER_HZ ticks.
type Stat struct {
	busy, total uint64
}

// parseCPUStat returns the counters of cpu from /proc/stat's contents:
// the "cpuN" line's user nice system idle iowait irq softirq steal (guest
// time is already part of user).
func parseCPUStat(b []byte, cpu int) (Stat, error) {
	key := []byte("cpu" + strconv.Itoa(cpu) + " ")
	for line := range bytes.Lines(b) {
		if !bytes.HasPrefix(line, key) {
			continue
		}
		f := bytes.Fields(line[len(key):])
		if len(f) < 4 {
			return Stat{}, fmt.Errorf("/proc/stat: cpu%d has %d fields, want at least 4", cpu, len(f))
		}
		var v [8]uint64
		for i := 0; i < len(v) && i < len(f); i++ {
			n, err := strconv.ParseUint(string(f[i]), 10, 64)
			if err != nil {
				return Stat{}, fmt.Errorf("/proc/stat: cpu%d field %d: %w", cpu, i+1, err)
			}
			v[i] = n
		}
		user, nice, system, idle, iowait, irq, softirq, steal := v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]
		busy := user + nice + system + irq + softirq + steal
		return Stat{busy: busy, total: busy + idle + iowait}, nil
	}
	return Stat{}, fmt.Errorf("/proc/stat: no line for cpu%d (offline?)", cpu)
}

// ReadStat reads cpu's counters from /proc/stat.
func ReadStat(cpu int) (Stat, error) {
	st, err := ReadStats([]int{cpu})
	if err != nil {
		return Stat{}, err
	}
	return st[0], nil
}

// Watch sums the foreign-load windows of a run's children; safe for
// the parallel copies.
type Watch struct {
	// LockDir, when set, is the CPU lock directory whose other holders
	// (Holders: other seccompbench runs) the watch names, looking at
	// most once per otherRunsLook as children are added.
	LockDir string

	mu          sync.Mutex
	cpus        []int
	children    int
	busy, total uint64 // ticks
	own         time.Duration
	others      []result.OtherRun // each other run seen
	seen        map[int]bool
	lastLook    time.Time
}

// otherRunsLook is how often a Watch looks for other runs holding CPU
// locks.
const otherRunsLook = time.Second

// Add records one child's window on cpu: the counters before and after
// and the child's own CPU time (AddAll with one CPU).
func (w *Watch) Add(cpu int, before, after Stat, own time.Duration) {
	w.AddAll([]int{cpu}, []Stat{before}, []Stat{after}, own)
}

// ReadStats reads the counters of every CPU of cpus from one read of
// /proc/stat.
func ReadStats(cpus []int) ([]Stat, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return nil, err
	}
	out := make([]Stat, len(cpus))
	for i, c := range cpus {
		if out[i], err = parseCPUStat(b, c); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// AddAll records one child's window on the CPUs it could run on (an
// unpinned child: the command workload's), the counters of each before
// and after and the child's own CPU time over all of them; it counts one
// child. A window whose counters went backwards (a CPU that went offline
// and came back) is dropped.
func (w *Watch) AddAll(cpus []int, before, after []Stat, own time.Duration) {
	if w == nil || len(before) != len(cpus) || len(after) != len(cpus) {
		return
	}
	var busy, total uint64
	for i := range cpus {
		if after[i].total < before[i].total || after[i].busy < before[i].busy {
			return
		}
		busy += after[i].busy - before[i].busy
		total += after[i].total - before[i].total
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, c := range cpus {
		if !slices.Contains(w.cpus, c) {
			w.cpus = append(w.cpus, c)
		}
	}
	w.children++
	w.busy += busy
	w.total += total
	w.own += own
	w.lookForOthers()
}

// lookForOthers records the other runs holding CPU locks in LockDir, at
// most once per otherRunsLook; w.mu is held.
func (w *Watch) lookForOthers() {
	if w.LockDir == "" || time.Since(w.lastLook) < otherRunsLook {
		return
	}
	w.lastLook = time.Now()
	for _, pid := range Holders(w.LockDir) {
		if w.seen[pid] {
			continue
		}
		if w.seen == nil {
			w.seen = map[int]bool{}
		}
		w.seen[pid] = true
		w.others = append(w.others, result.OtherRun{Pid: pid, Argv: PIDArgv(pid)})
	}
}

// Result returns the sums as a result.ForeignLoad, nil when nothing was watched.
func (w *Watch) Result() *result.ForeignLoad {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.children == 0 {
		return nil
	}
	f := foreignLoad(slices.Sorted(slices.Values(w.cpus)), w.children, w.busy, w.total, w.own)
	f.OtherRuns = slices.Clone(w.others)
	return f
}

// foreignLoad converts tick sums and own CPU time into a result.ForeignLoad.
func foreignLoad(cpus []int, children int, busyTicks, totalTicks uint64, own time.Duration) *result.ForeignLoad {
	const tick = int64(time.Second / userHZ)
	f := &result.ForeignLoad{CPUs: cpus, Children: children, WindowNs: int64(totalTicks) * tick,
		BusyNs: int64(busyTicks) * tick, OwnNs: own.Nanoseconds()}
	if f.WindowNs > 0 && f.BusyNs > f.OwnNs {
		f.Share = float64(f.BusyNs-f.OwnNs) / float64(f.WindowNs)
	}
	return f
}

// SelfCPUTime is this process's CPU time so far, user plus system over
// all its threads (getrusage(2) RUSAGE_SELF); 0 if it cannot be read.
func SelfCPUTime() time.Duration {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
