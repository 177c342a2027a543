package runner

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/seccompbench/seccompbench/stats"
)

// commandChildSpec is the command workload's part of childSpec.
type commandChildSpec struct {
	Path          string   `json:"path"` // Argv[0] resolved
	Argv          []string `json:"argv"`
	Env           []string `json:"env"`
	Prepare       string   `json:"prepare,omitempty"`
	Warmup        int      `json:"warmup"`
	Runs          int      `json:"runs"`
	IgnoreFailure bool     `json:"ignore_failure,omitempty"`
	ShowOutput    bool     `json:"show_output,omitempty"`
	CPUAfter      bool     `json:"cpu_after,omitempty"` // the stack allows getrusage(2): see wrapSpec
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

// commandChildReport is the command workload's part of childReport.
type commandChildReport struct {
	Runs      []commandRun `json:"runs"`      // timed runs, in order
	FilterNs  [][]int64    `json:"filter_ns"` // per timed run, each seccomp(2) call
	Installed int          `json:"installed"` // filters the wrapper installed (last run)
	Warmup    int          `json:"warmup"`    // warm-up runs made
	Failed    int          `json:"failed"`    // timed runs that did not exit 0
	Failure   *runFailure  `json:"failure"`   // the first failure, nil if none
	Fatal     bool         `json:"fatal"`     // the failure ended the child
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

func (f *runFailure) err() *CommandError {
	return &CommandError{Stage: f.Stage, Run: f.Run, ExitCode: f.ExitCode, Signal: syscall.Signal(f.Signal),
		Errno: syscall.Errno(f.Errno), Filter: f.Filter, Syscall: f.Syscall, AuditArch: f.AuditArch, Pid: f.Pid}
}

// runCommandChild is the measuring child of the command workload: the
// timing process. It installs nothing itself. For each run it runs the
// prepare command, then forks this binary as the wrapper (command_wrap.go),
// which installs the stack and execs the command, and reaps it with
// wait4(2), which also gives the command's CPU time.
func runCommandChild(spec *childSpec) (childReport, error) {
	rep := childReport{FiltersBefore: -1, FiltersAfter: -1, CPU: -1, FailedFilter: -1}
	cs := spec.Command
	rep.FiltersBefore = threadFilters(unix.Gettid())
	cr := &commandChildReport{}
	rep.Command = cr
	// /proc/self/exe, not os.Executable(): it names this very binary even
	// when its path has been replaced since (a rebuild during a long run
	// would otherwise exec another program as the wrapper). The kernel
	// resolves it in the forked child, still this binary before execve.
	exe := "/proc/self/exe"
	if _, err := os.Stat(exe); err != nil {
		if exe, err = os.Executable(); err != nil {
			return rep, fmt.Errorf("find own executable for the wrapper: %w", err)
		}
	}
	specData, err := json.Marshal(wrapSpec{Path: cs.Path, Argv: cs.Argv, Env: cs.Env, Filters: spec.Filters, Flags: spec.Flags, CPUAfter: cs.CPUAfter})
	if err != nil {
		return rep, fmt.Errorf("encode wrapper spec: %w", err)
	}
	specFile, err := memfile("seccompbench-wrap-spec", specData)
	if err != nil {
		return rep, err
	}
	defer specFile.Close()
	resSize := 8 * (wrapSlots + len(spec.Filters))
	resFile, err := memfile("seccompbench-wrap-result", make([]byte, resSize))
	if err != nil {
		return rep, err
	}
	defer resFile.Close()
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return rep, fmt.Errorf("open %s: %w", os.DevNull, err)
	}
	defer null.Close()
	out := null.Fd()
	if cs.ShowOutput {
		out = os.Stderr.Fd()
	}
	files := []uintptr{null.Fd(), out, out, specFile.Fd(), resFile.Fd()}
	wrapEnvv := []string{childEnv + "=" + childProtocol, wrapEnv + "=1", "GOGC=off", "GODEBUG=asyncpreemptoff=1"}
	kmsg := openKmsg()
	if kmsg != nil {
		defer kmsg.Close()
	}
	zero := make([]byte, resSize)
	res := make([]byte, resSize)

	// run makes one run (i ≥ 0 timed, i < 0 warm-up) and returns its times
	// and, if it did not exit 0, what happened.
	run := func(i int) (commandRun, []int64, *runFailure, error) {
		var r commandRun
		if cs.Prepare != "" {
			ws, err := spawnWait("/bin/sh", []string{"sh", "-c", cs.Prepare}, cs.Env, []uintptr{null.Fd(), out, out}, nil)
			if err != nil {
				return r, nil, nil, fmt.Errorf("run --prepare command: %w", err)
			}
			if !ws.Exited() || ws.ExitStatus() != 0 {
				f := &runFailure{Stage: "prepare", Run: i, ExitCode: ws.ExitStatus(), Syscall: -1, Filter: -1}
				if ws.Signaled() {
					f.ExitCode, f.Signal = -1, int(ws.Signal())
				}
				return r, nil, f, nil
			}
		}
		if _, err := resFile.WriteAt(zero, 0); err != nil {
			return r, nil, nil, fmt.Errorf("reset wrapper result area: %w", err)
		}
		kmsg.skipToEnd()
		var ru syscall.Rusage
		var pid int
		t0 := nanotime()
		ws, err := spawnWait(exe, []string{exe}, wrapEnvv, files, &ru, &pid)
		t1 := nanotime()
		if err != nil {
			return r, nil, nil, fmt.Errorf("run the wrapper: %w", err)
		}
		if _, err := resFile.ReadAt(res, 0); err != nil {
			return r, nil, nil, fmt.Errorf("read wrapper result area: %w", err)
		}
		slot := func(k int) int64 { return int64(binary.NativeEndian.Uint64(res[8*k:])) }
		r.WallNs = t1 - t0
		state := slot(slotState)
		installed := int(slot(slotInstalled))
		cr.Installed = installed
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
		if rec, ok := kmsg.seccompRecord(pid); ok {
			f.Syscall, f.AuditArch, f.Pid = rec.syscall, rec.arch, rec.pid
		}
		return r, perFilter, f, nil
	}

	for w := 0; w < cs.Warmup; w++ {
		_, _, f, err := run(-1 - w)
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
		r, perFilter, f, err := run(i)
		if err != nil {
			return rep, err
		}
		if f != nil {
			if cr.Failure == nil {
				cr.Failure = f
			}
			if !cs.IgnoreFailure || f.Stage != "run" {
				cr.Fatal = true
				return rep, f.err()
			}
			cr.Failed++
		}
		cr.Runs = append(cr.Runs, r)
		cr.FilterNs = append(cr.FilterNs, perFilter)
	}
	if rep.FiltersBefore >= 0 {
		rep.FiltersAfter = rep.FiltersBefore + cr.Installed
	}
	return rep, nil
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

// spawnWait forks and execs path with files as its descriptors 0, 1, 2,
// ..., waits for it with wait4(2) and returns its status, filling ru (if
// not nil) with its resource usage and the pids (if given) with its pid.
// The process dies with this one (PR_SET_PDEATHSIG).
func spawnWait(path string, argv, env []string, files []uintptr, ru *syscall.Rusage, pid ...*int) (syscall.WaitStatus, error) {
	var ws syscall.WaitStatus
	p, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{Env: env, Files: files,
		Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}})
	if err != nil {
		return ws, err
	}
	for _, q := range pid {
		*q = p
	}
	for {
		_, err = syscall.Wait4(p, &ws, 0, ru)
		if !errors.Is(err, syscall.EINTR) {
			return ws, err
		}
	}
}

// commandSample converts a command child's report into the Sample fields
// of the command workload; NsPerOp is the median run.
func commandSample(s *Sample, cr *commandChildReport) {
	cs := &CommandSample{Runs: len(cr.Runs), Warmup: cr.Warmup, Failed: cr.Failed}
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
	// Each filter's seccomp(2) time, median over runs.
	s.InstallNs = nil
	if n := len(cr.FilterNs); n > 0 {
		for k := range cr.FilterNs[n-1] {
			var xs []int64
			for _, f := range cr.FilterNs {
				if k < len(f) {
					xs = append(xs, f[k])
				}
			}
			slices.Sort(xs)
			s.InstallNs = append(s.InstallNs, xs[len(xs)/2])
		}
	}
	cs.Outliers = stats.Outliers(s.SamplesNsPerOp, 0)
	s.Command = cs
}

// commandTimeout is the deadline of one command child: the minimum plus
// ten times its expected runs at runNs each (wrapper included).
func commandTimeout(cs *CommandSpec, runs int, runNs float64) time.Duration {
	work := float64(cs.Warmup+runs) * runNs
	if !(work < float64(1<<62)/20) {
		return time.Duration(1 << 62)
	}
	return minChildTimeout + time.Duration(10*work)
}
