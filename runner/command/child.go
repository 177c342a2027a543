package command

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/seccompbench/seccompbench/runner/internal/child"
	"github.com/seccompbench/seccompbench/runner/internal/sys"
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/stats"
)

// timingSpec is what Measure writes on the timing child's standard input,
// as JSON.
type timingSpec struct {
	Filters       [][]byte `json:"filters"` // sock_filter arrays, oldest first
	Flags         uint     `json:"flags"`   // seccomp(2) SECCOMP_SET_MODE_FILTER flags
	Path          string   `json:"path"`    // Argv[0] resolved
	Argv          []string `json:"argv"`
	Env           []string `json:"env"`
	Prepare       string   `json:"prepare,omitempty"`
	Warmup        int      `json:"warmup"`
	Runs          int      `json:"runs"`
	IgnoreFailure bool     `json:"ignore_failure,omitempty"`
	ShowOutput    bool     `json:"show_output,omitempty"`
	CPUAfter      bool     `json:"cpu_after,omitempty"` // the stack allows getrusage(2): see wrapSpec
	// Design is "" or "children" (every run under Filters), "pairs" or
	// "duet" (Runs pairs of a run without filters and one under Filters).
	Design string `json:"design,omitempty"`
	// Seed draws the order within each pair (pairs) or the side each
	// CPU takes first (duet).
	Seed uint64 `json:"seed,omitempty"`
	// CPUs are the two CPUs of the duet design.
	CPUs []int `json:"cpus,omitempty"`
	// StopNs, above 0, ends the timed pairs once they took that long,
	// after at least MinRuns (Spec.stopNs).
	StopNs int64 `json:"stop_ns,omitempty"`
}

// commandRun is one run as the timing process saw it, times in ns.
type commandRun struct {
	WallNs    int64 `json:"wall_ns"`    // fork of the wrapper to reaping
	CmdNs     int64 `json:"cmd_ns"`     // wrapper's execve to reaping
	InstallNs int64 `json:"install_ns"` // all seccomp(2) calls
	CPUNs     int64 `json:"cpu_ns"`     // the command's user+sys (the seccomp(2) calls included when InstallCPUNs < 0)
	// InstallCPUNs is the user+sys CPU time of the install, -1 if not read.
	InstallCPUNs int64 `json:"install_cpu_ns"`
}

// timingReport is what the timing child writes on its standard output, as
// JSON.
type timingReport struct {
	FiltersBefore int    `json:"filters_before"` // Seccomp_filters of the timing process (-1 unknown)
	FiltersAfter  int    `json:"filters_after"`  // and of the command: FiltersBefore plus the stack
	Err           string `json:"err,omitempty"`
	// Command is the report of the runs.
	Command *commandChildReport `json:"command,omitempty"`
}

// commandChildReport is the timing child's account of its runs.
type commandChildReport struct {
	Runs      []commandRun `json:"runs"`      // timed runs, in order
	FilterNs  [][]int64    `json:"filter_ns"` // per timed run, each seccomp(2) call
	Installed int          `json:"installed"` // filters the wrapper installed (last run)
	Warmup    int          `json:"warmup"`    // warm-up runs made
	Failed    int          `json:"failed"`    // timed runs that did not exit 0
	Failure   *runFailure  `json:"failure"`   // the first failure, nil if none
	Fatal     bool         `json:"fatal"`     // the failure ended the child
	// Base are the runs without filters of the paired designs, Base[i]
	// paired with Runs[i]; BaseFirst[i] says the unfiltered run of pair i
	// started first (pairs) or ran on CPUs[0] (duet).
	Base      []commandRun `json:"base,omitempty"`
	BaseFirst []bool       `json:"base_first,omitempty"`
}

// runFailure is CommandError on the wire.
type runFailure struct {
	Stage     string `json:"stage"`
	Run       int    `json:"run"`
	ExitCode  int    `json:"exit_code"`
	Signal    int    `json:"signal"`
	Errno     int    `json:"errno"`
	Filter    int    `json:"filter"`
	Syscall   int    `json:"syscall"`
	AuditArch uint32 `json:"audit_arch"`
	Pid       int    `json:"pid"`
}

func (f *runFailure) err() *result.CommandError {
	return &result.CommandError{Stage: f.Stage, Run: f.Run, ExitCode: f.ExitCode, Signal: syscall.Signal(f.Signal),
		Errno: syscall.Errno(f.Errno), Filter: f.Filter, Syscall: f.Syscall, AuditArch: f.AuditArch, Pid: f.Pid}
}

// timingKind names the timing child; wrapKind the wrapper.
const (
	timingKind = "command-1"
	wrapKind   = "wrap-1"
)

// TimingChild is the command workload's timing process, and WrapperChild
// the wrapper it forks for every run. The program's child dispatch must
// list both.
var (
	TimingChild  = child.Kind{Name: timingKind, Main: timingMain}
	WrapperChild = child.Kind{Name: wrapKind, Main: wrapMain}
)

// timingMain reads a timingSpec from stdin, makes the runs, writes a
// timingReport to stdout and exits (3 on failure).
func timingMain() {
	debug.SetGCPercent(-1)
	rep := timingReport{FiltersBefore: -1, FiltersAfter: -1}
	var spec timingSpec
	err := child.ReadSpec(os.Stdin, &spec)
	if err == nil {
		rep, err = runCommandChild(&spec)
	}
	if err != nil {
		rep.Err = err.Error()
	}
	child.Exit(rep, err)
}

// timer makes the runs of one timing child: the wrapper's spec and result
// area, the descriptors it gets, the kernel log.
type timer struct {
	cs       *timingSpec
	exe      string
	null     *os.File
	out      uintptr // the command's stdout and stderr
	wrapEnvv []string
	kmsg     *kmsgReader
	cr       *commandChildReport
	stack    *side // the wrapper that installs the cell's stack
	base     *side // the paired designs' wrapper without filters; nil otherwise
	stop     *stopper
}

// side is one wrapper's spec and result area.
type side struct {
	files   []uintptr // the wrapper's fds 0, 1, 2, 3, 4
	resFile *os.File
	zero    []byte
	res     []byte
	stacked bool // installs the cell's stack: its runs set Installed
}

// runCommandChild is the timing process. It installs nothing itself. For
// each run it runs the prepare command, then forks this binary as the
// wrapper (wrap.go), which installs the stack and execs the command, and
// reaps it with wait4(2), which also gives the command's CPU time. It is
// the subreaper of what the runs start and leaves none of it running
// when it returns, even stopped by a signal (stop.go).
func runCommandChild(cs *timingSpec) (rep timingReport, err error) {
	rep = timingReport{FiltersBefore: -1, FiltersAfter: -1}
	rep.FiltersBefore = sys.ThreadFilters(unix.Gettid())
	cr := &commandChildReport{}
	rep.Command = cr
	stop := startStopper()
	if err := child.BecomeSubreaper(); err != nil {
		return rep, err
	}
	t, cleanup, err := newTimer(cs, cr)
	if err != nil {
		return rep, err
	}
	t.stop = stop
	defer func() {
		if serr := sweep(); serr != nil && err == nil {
			err = serr
		}
		cleanup()
	}()
	if t.base != nil {
		err := t.runPairs()
		if err == nil && rep.FiltersBefore >= 0 {
			rep.FiltersAfter = rep.FiltersBefore + cr.Installed
		}
		return rep, err
	}
	for w := 0; w < cs.Warmup; w++ {
		_, _, f, err := t.run(t.stack, -1-w)
		if err != nil {
			return rep, err
		}
		cr.Warmup++
		if f != nil && (!cs.IgnoreFailure || f.Stage != "run") {
			cr.Failure, cr.Fatal = f, true
			return rep, f.err()
		}
	}
	for i := 0; i < cs.Runs; i++ {
		r, perFilter, f, err := t.run(t.stack, i)
		if err != nil {
			return rep, err
		}
		if err := t.keep(f); err != nil {
			return rep, err
		}
		cr.Runs = append(cr.Runs, r)
		cr.FilterNs = append(cr.FilterNs, perFilter)
	}
	if rep.FiltersBefore >= 0 {
		rep.FiltersAfter = rep.FiltersBefore + cr.Installed
	}
	return rep, nil
}

// keep records f, a timed run's failure (nil: none), and returns an error
// when it ends the child: any failure but a run's with IgnoreFailure.
func (t *timer) keep(f *runFailure) error {
	if f == nil {
		return nil
	}
	cr := t.cr
	if cr.Failure == nil {
		cr.Failure = f
	}
	if !t.cs.IgnoreFailure || f.Stage != "run" {
		cr.Fatal = true
		return f.err()
	}
	cr.Failed++
	return nil
}

// newTimer prepares the wrapper's spec and result area (memfd_create(2))
// and its descriptors; cleanup closes them.
func newTimer(cs *timingSpec, cr *commandChildReport) (t *timer, cleanup func(), err error) {
	t = &timer{cs: cs, cr: cr}
	var closers []io.Closer
	cleanup = func() {
		for _, c := range closers {
			c.Close()
		}
	}
	defer func() {
		if err != nil {
			cleanup()
		}
	}()
	// /proc/self/exe, not os.Executable(): it names this very binary even
	// when its path has been replaced since (a rebuild during a long run
	// would otherwise exec another program as the wrapper). The kernel
	// resolves it in the forked child, still this binary before execve.
	t.exe = "/proc/self/exe"
	if _, err := os.Stat(t.exe); err != nil {
		if t.exe, err = os.Executable(); err != nil {
			return nil, nil, fmt.Errorf("find own executable for the wrapper: %w", err)
		}
	}
	if t.null, err = os.OpenFile(os.DevNull, os.O_RDWR, 0); err != nil {
		return nil, nil, fmt.Errorf("open %s: %w", os.DevNull, err)
	}
	closers = append(closers, t.null)
	t.out = t.null.Fd()
	if cs.ShowOutput {
		t.out = os.Stderr.Fd()
	}
	if t.stack, err = t.newSide(cs.Filters, cs.CPUAfter, &closers); err != nil {
		return nil, nil, err
	}
	t.stack.stacked = true
	if Design(cs.Design).Paired() {
		if t.base, err = t.newSide(nil, true, &closers); err != nil {
			return nil, nil, err
		}
	}
	t.wrapEnvv = []string{child.Env + "=" + wrapKind, "GOGC=off", "GODEBUG=asyncpreemptoff=1"}
	if t.kmsg = openKmsg(); t.kmsg != nil {
		closers = append(closers, t.kmsg)
	}
	return t, cleanup, nil
}

// newSide writes the spec of a wrapper that installs stack (cpuAfter:
// see wrapSpec) and makes its result area; closers gets both files.
func (t *timer) newSide(stack [][]byte, cpuAfter bool, closers *[]io.Closer) (*side, error) {
	cs := t.cs
	specData, err := json.Marshal(wrapSpec{Path: cs.Path, Argv: cs.Argv, Env: cs.Env, Filters: stack, Flags: cs.Flags, CPUAfter: cpuAfter})
	if err != nil {
		return nil, fmt.Errorf("encode wrapper spec: %w", err)
	}
	specFile, err := memfile("seccompbench-wrap-spec", specData)
	if err != nil {
		return nil, err
	}
	*closers = append(*closers, specFile)
	resSize := 8 * (wrapSlots + len(stack))
	sd := &side{zero: make([]byte, resSize), res: make([]byte, resSize)}
	if sd.resFile, err = memfile("seccompbench-wrap-result", make([]byte, resSize)); err != nil {
		return nil, err
	}
	*closers = append(*closers, sd.resFile)
	sd.files = []uintptr{t.null.Fd(), t.out, t.out, specFile.Fd(), sd.resFile.Fd()}
	return sd, nil
}

// run makes one run of side sd (i ≥ 0 timed, i < 0 warm-up) and returns
// its times and, if it did not exit 0, what happened. Once the wrapper is
// reaped and the times taken, what the run left running is killed and
// reaped (sweep).
func (t *timer) run(sd *side, i int) (commandRun, []int64, *runFailure, error) {
	if f, err := t.prepare(i); f != nil || err != nil {
		return commandRun{}, nil, f, err
	}
	if err := sd.reset(); err != nil {
		return commandRun{}, nil, nil, err
	}
	t.kmsg.skipToEnd()
	var ru syscall.Rusage
	var pid int
	t0 := sys.Nanotime()
	ws, err := child.SpawnWait(t.exe, []string{t.exe}, t.wrapEnvv, sd.files, &ru, &pid)
	t1 := sys.Nanotime()
	if serr := t.stop.err(); serr != nil {
		return commandRun{}, nil, nil, serr
	}
	if err != nil {
		return commandRun{}, nil, nil, fmt.Errorf("run the wrapper: %w", err)
	}
	r, perFilter, f, err := t.collect(sd, i, t0, t1, ws, &ru, pid)
	if err == nil {
		err = sweep()
	}
	return r, perFilter, f, err
}

// reset zeroes the side's result area before a run.
func (sd *side) reset() error {
	if _, err := sd.resFile.WriteAt(sd.zero, 0); err != nil {
		return fmt.Errorf("reset wrapper result area: %w", err)
	}
	return nil
}

// prepare runs the --prepare command before run i, if any: a failure when
// it does not exit 0. It returns the stopper's error once a signal
// arrived, before the run starts anything.
func (t *timer) prepare(i int) (*runFailure, error) {
	cs := t.cs
	if err := t.stop.err(); err != nil {
		return nil, err
	}
	if cs.Prepare != "" {
		ws, err := child.SpawnWait("/bin/sh", []string{"sh", "-c", cs.Prepare}, cs.Env, []uintptr{t.null.Fd(), t.out, t.out}, nil)
		if serr := t.stop.err(); serr != nil {
			return nil, serr
		}
		if err != nil {
			return nil, fmt.Errorf("run --prepare command: %w", err)
		}
		if !ws.Exited() || ws.ExitStatus() != 0 {
			f := &runFailure{Stage: "prepare", Run: i, ExitCode: ws.ExitStatus(), Syscall: -1, Filter: -1}
			if ws.Signaled() {
				f.ExitCode, f.Signal = -1, int(ws.Signal())
			}
			return f, nil
		}
	}
	return nil, nil
}

// collect reads what the wrapper of side sd (process pid, forked at t0,
// reaped at t1 with status ws and rusage ru) left in its result area:
// run i's times, each filter's seccomp(2) time and, if it did not exit
// 0, what happened.
func (t *timer) collect(sd *side, i int, t0, t1 int64, ws syscall.WaitStatus, ru *syscall.Rusage, pid int) (commandRun, []int64, *runFailure, error) {
	var r commandRun
	if _, err := sd.resFile.ReadAt(sd.res, 0); err != nil {
		return r, nil, nil, fmt.Errorf("read wrapper result area: %w", err)
	}
	slot := func(k int) int64 { return int64(binary.NativeEndian.Uint64(sd.res[8*k:])) }
	r.WallNs = t1 - t0
	state := slot(slotState)
	installed := int(slot(slotInstalled))
	if sd.stacked {
		t.cr.Installed = installed
	}
	perFilter := make([]int64, installed)
	for k := range perFilter {
		perFilter[k] = slot(wrapSlots + k)
	}
	if state >= wrapStateExec {
		r.InstallNs = slot(slotInstallEnd) - slot(slotInstallStart)
		r.CmdNs = t1 - slot(slotInstallEnd)
		// The wrapper read its CPU time after installing when the stack
		// allows getrusage(2); else the install's CPU time stays in
		// (its wall time, InstallNs, includes preemption on a loaded
		// machine, so it cannot stand in).
		total := ru.Utime.Nano() + ru.Stime.Nano()
		r.InstallCPUNs = -1
		if after := slot(slotCPUAfter); after > 0 {
			r.CPUNs, r.InstallCPUNs = total-after, after-slot(slotCPUBefore)
		} else {
			r.CPUNs = total - slot(slotCPUBefore)
		}
	}
	if ws.Exited() && ws.ExitStatus() == 0 {
		return r, perFilter, nil, nil
	}
	f := &runFailure{Stage: "run", Run: i, ExitCode: ws.ExitStatus(), Syscall: -1, Filter: -1, Pid: pid}
	if ws.Signaled() {
		f.ExitCode, f.Signal = -1, int(ws.Signal())
	}
	switch state {
	case wrapStateNone, wrapStateStarted:
		if f.Signal == 0 && f.ExitCode == wrapExitSetup {
			return r, nil, nil, fmt.Errorf("wrapper could not set up (exit %d; see stderr)", wrapExitSetup)
		}
		f.Stage, f.Filter = "install", installed
	case wrapStateInstallFailed:
		f.Stage, f.Errno, f.Filter = "install", int(slot(slotErrno)), installed
	case wrapStateExecFailed:
		f.Stage, f.Errno = "exec", int(slot(slotErrno))
	}
	if rec, ok := t.kmsg.seccompRecord(pid); ok {
		f.Syscall, f.AuditArch, f.Pid = rec.syscall, rec.arch, rec.pid
	}
	return r, perFilter, f, nil
}

// memfile returns an anonymous in-memory file (memfd_create(2), Linux
// 3.17) holding data, close-on-exec.
func memfile(name string, data []byte) (*os.File, error) {
	fd, err := unix.MemfdCreate(name, unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("create %s: memfd_create(2): %w", name, err)
	}
	f := os.NewFile(uintptr(fd), name)
	if _, err := f.WriteAt(data, 0); err != nil {
		f.Close()
		return nil, fmt.Errorf("write %s: %w", name, err)
	}
	return f, nil
}

// commandSample converts a command child's report into the Sample fields
// of the command workload; NsPerOp is the median run.
func commandSample(s *result.Sample, cr *commandChildReport) {
	cs := &result.CommandSample{Runs: len(cr.Runs), Warmup: cr.Warmup, Failed: cr.Failed}
	if cr.Failure != nil {
		cs.FirstFailure = cr.Failure.err()
		cs.FirstFailure.Filters = cr.Installed
	}
	for _, r := range cr.Runs {
		s.SamplesNsPerOp = append(s.SamplesNsPerOp, float64(r.CmdNs))
		cs.WallNs = append(cs.WallNs, float64(r.WallNs))
		cs.InstallNs = append(cs.InstallNs, float64(r.InstallNs))
		cs.CPUNs = append(cs.CPUNs, float64(r.CPUNs))
		if r.InstallCPUNs >= 0 {
			cs.InstallCPUNs = append(cs.InstallCPUNs, float64(r.InstallCPUNs))
		}
	}
	// Each filter's seccomp(2) time, the upper median over runs.
	s.InstallNs = nil
	if n := len(cr.FilterNs); n > 0 {
		for k := range cr.FilterNs[n-1] {
			var xs []int64
			for _, f := range cr.FilterNs {
				if k < len(f) {
					xs = append(xs, f[k])
				}
			}
			s.InstallNs = append(s.InstallNs, stats.UpperMedian(xs))
		}
	}
	cs.Outliers = stats.Outliers(s.SamplesNsPerOp, 0)
	s.Command = cs
	pairedSample(s, cr)
}

// Timeout is the deadline of one timing child of cs making runs timed
// runs at runNs ns each (wrapper included): child.MinTimeout plus ten
// times the expected work.
func Timeout(cs *Spec, runs int, runNs float64) time.Duration {
	work := float64(cs.Warmup+runs) * runNs
	if cs.Design.Paired() {
		work *= 2 // two runs per pair (a duet's may slow each other)
	}
	if !(work < float64(1<<62)/20) {
		return time.Duration(1 << 62)
	}
	return child.MinTimeout + time.Duration(10*work)
}
