package container

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"syscall"

	"github.com/seccompbench/seccompbench/runner/internal/child"
	"github.com/seccompbench/seccompbench/runner/internal/sys"
)

// TimerPath is where the bundles mount this binary inside the container
// (a read-only bind mount of the file): under /dev, which runtimes and
// the configs Docker and Podman write make a fresh tmpfs, so the mount
// point is never created in the root file system.
const TimerPath = "/dev/.seccompbench-timer"

// timerKind names the in-container timer.
const timerKind = "ctimer-1"

// TimerChild is the timer that runs as the container's process: the
// runtime starts it under the filter it compiled and installed, it runs
// the command Warmup+Runs times (fork, execve, wait4(2), each run a new
// process under the runtime's stack) and reports the times on standard
// output. The program's child dispatch must list it.
var TimerChild = child.Kind{Name: timerKind, Main: timerMain}

// timerSpec is what Measure writes on the runtime's standard input, which
// runc and crun hand to the container's process when there is no
// terminal.
type timerSpec struct {
	Argv          []string `json:"argv"`
	Env           []string `json:"env"` // the command's, without the child's settings
	Warmup        int      `json:"warmup"`
	Runs          int      `json:"runs"`
	IgnoreFailure bool     `json:"ignore_failure,omitempty"`
	ShowOutput    bool     `json:"show_output,omitempty"`
}

// timerRun is one run of the command as the timer saw it.
type timerRun struct {
	WallNs   int64 `json:"wall_ns"` // fork to reaping
	CPUNs    int64 `json:"cpu_ns"`  // user+sys of the command and what it waited for
	ExitCode int   `json:"exit_code"`
	Signal   int   `json:"signal"`
}

// timerReport is what the timer writes on standard output, one JSON line.
type timerReport struct {
	// Filters and NoNewPrivs are the timer's Seccomp_filters and
	// NoNewPrivs (/proc/self/status; -1 when unreadable): the stack and
	// flag the runtime left, which every run inherits.
	Filters    int        `json:"filters"`
	NoNewPrivs int        `json:"no_new_privs"`
	Warmup     []timerRun `json:"warmup"`
	Runs       []timerRun `json:"runs"`
	Err        string     `json:"err,omitempty"`
}

// timerMain is the timer's entry point (TimerChild).
func timerMain() {
	debug.SetGCPercent(-1)
	rep := timerReport{Filters: -1, NoNewPrivs: -1}
	var spec timerSpec
	err := child.ReadSpec(os.Stdin, &spec)
	if err == nil {
		err = runTimer(&spec, &rep)
	}
	if err != nil {
		rep.Err = err.Error()
	}
	child.Exit(rep, err)
}

// runTimer makes spec's runs into rep. A failed run ends the timer
// (without error) when it is a warm-up run or failures are not ignored;
// the parent reads the failure from the last run.
func runTimer(spec *timerSpec, rep *timerReport) error {
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		if st, err := sys.ParseProcStatus(b); err == nil {
			rep.Filters, rep.NoNewPrivs = st.SeccompFilters, st.NoNewPrivs
		}
	}
	if len(spec.Argv) == 0 {
		return errors.New("timer: no command")
	}
	path, err := child.LookPathIn(spec.Argv[0], spec.Env)
	if err != nil {
		return fmt.Errorf("timer: in the container: %w", err)
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("timer: %w", err)
	}
	defer null.Close()
	out := null.Fd()
	if spec.ShowOutput {
		out = os.Stderr.Fd()
	}
	files := []uintptr{null.Fd(), out, out}
	for i := -spec.Warmup; i < spec.Runs; i++ {
		var ru syscall.Rusage
		t0 := sys.Nanotime()
		ws, err := child.SpawnWait(path, spec.Argv, spec.Env, files, &ru)
		t1 := sys.Nanotime()
		if err != nil {
			return fmt.Errorf("timer: run %s: %w", path, err)
		}
		r := timerRun{WallNs: t1 - t0, CPUNs: ru.Utime.Nano() + ru.Stime.Nano(), ExitCode: ws.ExitStatus()}
		if ws.Signaled() {
			r.ExitCode, r.Signal = -1, int(ws.Signal())
		}
		failed := !ws.Exited() || ws.ExitStatus() != 0
		if i < 0 {
			rep.Warmup = append(rep.Warmup, r)
		} else {
			rep.Runs = append(rep.Runs, r)
		}
		if failed && (i < 0 || !spec.IgnoreFailure) {
			return nil
		}
	}
	return nil
}

// timerEnv is the container process's environment: the command's plus
// what selects the timer and the runtime settings of every child (no GC).
func timerEnv(env []string) []string {
	return append(append([]string(nil), env...), child.Env+"="+timerKind, "GOGC=off")
}
