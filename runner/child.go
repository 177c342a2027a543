package runner

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/seccompbench/seccompbench/runner/command"
	"github.com/seccompbench/seccompbench/runner/container"
	"github.com/seccompbench/seccompbench/runner/internal/child"
	"github.com/seccompbench/seccompbench/runner/internal/loop"
	"github.com/seccompbench/seccompbench/runner/internal/sys"
	"github.com/seccompbench/seccompbench/runner/jit"
	"github.com/seccompbench/seccompbench/runner/notify"
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/runner/workload"
	"golang.org/x/sys/unix"
)

// loopChild is the measuring child of the timed loops (loopMain).
var loopChild = child.Kind{Name: "loop-1", Main: loopMain}

// IsChild reports whether this process was started by the runner as a
// child of any kind. main (and TestMain in tests that run children) must
// call ChildMain before doing anything else when it returns true.
func IsChild() bool { return child.IsChild() }

// ChildMain runs the child this process was started as and exits the
// process; it never returns. Each kind of child registers here: the
// measuring loop child, the command workload's timing process and
// wrapper, the child that runs estimate's strace profile
// (command.RunReaped), the container timer and the JIT holder.
func ChildMain() {
	child.Main(loopChild, command.TimingChild, command.WrapperChild, command.ReapedChild, container.TimerChild, jit.HoldChild)
}

// childSpec is what the parent writes on a child's standard input, as JSON.
type childSpec struct {
	Workload     string   `json:"workload"`
	Syscall      [4]int64 `json:"syscall,omitempty"` // nr, a0, a1, a2 for WorkloadSyscall
	Filters      [][]byte `json:"filters"`           // sock_filter arrays, oldest first
	Flags        uint     `json:"flags"`             // seccomp(2) SECCOMP_SET_MODE_FILTER flags
	CPU          int      `json:"cpu"`               // CPU to pin the measuring thread to, -1 for none
	Iterations   uint64   `json:"iterations"`        // loop iterations per sample
	Samples      int      `json:"samples"`           // timed samples
	Warmup       int      `json:"warmup"`            // untimed samples before them
	ControlIters uint64   `json:"control_iters"`     // control loop iterations per timing
	// Paired makes the child also time the workload before it installs
	// its stack (the same warm-up and samples, loop, thread and CPU), so
	// that it reports its own baseline (BaselineNs).
	Paired bool `json:"paired,omitempty"`
	// PathArg, if set, is passed as a pointer to a NUL-terminated string
	// in place of the syscall workload's a1.
	PathArg string `json:"path_arg,omitempty"`
	// ExecPaths are the exec workloads' candidate paths, tried in order.
	ExecPaths []string `json:"exec_paths,omitempty"`
	// Loader is the capabilities the measuring thread loads the filters
	// with (sys.ApplyLoader); "" changes nothing.
	Loader result.Loader `json:"loader,omitempty"`
	// Notify configures the notify workload (runner/notify).
	Notify *notify.Spec `json:"notify,omitempty"`
	// ProbeKiB and ProbeCode are the probe workload's working set
	// (workload.Probe): KiB of data read, and of code run when ProbeCode.
	ProbeKiB  int  `json:"probe_kib,omitempty"`
	ProbeCode bool `json:"probe_code,omitempty"`
}

// childReport is what a child writes on its standard output, as JSON.
type childReport struct {
	SamplesNs []int64 `json:"samples_ns"` // elapsed per sample, in ns
	// BaselineNs are the paired samples taken before installing, in ns
	// (childSpec.Paired; nil otherwise).
	BaselineNs      []int64      `json:"baseline_ns,omitempty"`
	InstallNs       []int64      `json:"install_ns"`        // duration of each seccomp(2) call, in ns
	ControlBeforeNs int64        `json:"control_before_ns"` // control loop before installing, in ns
	ControlAfterNs  int64        `json:"control_after_ns"`  // control loop after installing, in ns
	FiltersBefore   int          `json:"filters_before"`    // Seccomp_filters of the measuring thread before installing (-1 unknown)
	FiltersAfter    int          `json:"filters_after"`     // and after
	CPU             int          `json:"cpu"`               // CPU the measuring thread was pinned to, -1 if not
	PinErr          string       `json:"pin_err,omitempty"`
	InstallErrno    int          `json:"install_errno,omitempty"` // errno of the failing seccomp(2) or prctl call
	FailedFilter    int          `json:"failed_filter"`           // index of the filter that failed to install, -1 if none
	ProbeErrno      int          `json:"probe_errno,omitempty"`   // after an EINVAL: errno of seccompProbe (EFAULT: filters supported)
	ExecsOK         uint64       `json:"execs_ok"`                // exec workloads: children that exited 0
	Caps            *result.Caps `json:"caps,omitempty"`          // measuring thread's capabilities, read back before seccomp(2)
	Err             string       `json:"err,omitempty"`
	// Notify holds the notify workload's counts (runner/notify).
	Notify *notify.Report `json:"notify,omitempty"`
}

// measureState is everything the measuring thread touches after its first
// filter is installed. It is allocated before, so the thread needs no
// allocation, no lock and no syscall other than the workload's.
type measureState struct {
	spec     *childSpec
	loop     loopKind // the workload's timed loop (workload table)
	progs    []sys.SockFprog
	fd       uintptr
	samples  []int64
	base     []int64 // paired samples before installing (childSpec.Paired)
	install  []int64
	ctrlBuf  [4]uint64
	ctrlPre  int64
	ctrlPost int64
	errno    uintptr
	failedAt int
	// exec workloads: C strings and pointer arrays, kept reachable here.
	execPaths []uintptr
	argv      [2]uintptr
	envp      [1]uintptr
	cstrs     [][]byte
	status    int32
	execsOK   uint64
	notify    *notifyState // notify workload only (child_notify_unsafe.go)
	// probe workload only: the data cycle and its length in lines, the
	// code sled's address (0: none) and mapping, the walk's last index.
	chase     []uint64
	steps     uint64
	code      uintptr
	codeMem   []byte
	sink      uint64
	installed atomic.Int32 // filters installed so far
	done      atomic.Uint32
}

// loopMain runs the measuring child and exits the process; it never
// returns. It reads a childSpec from stdin, installs the filters on a locked
// and pinned thread, times the workload and writes a childReport to stdout.
//
// The recipe follows docs/limits.md, "The Go-runtime trap": garbage collection is
// off, asynchronous preemption is off (GODEBUG from the parent), the
// measuring goroutine is locked to its thread and, once the first filter is
// installed, runs only NOSPLIT code (measure) that makes raw syscalls and
// spins when done. Reporting and exiting happen on another, unfiltered
// thread, so a policy that denies write, futex or exit cannot lose results.
func loopMain() {
	debug.SetGCPercent(-1)
	// An explicit GOMAXPROCS also stops the runtime's automatic updates
	// (Go 1.25+), which stop the world when the affinity mask changes, as
	// isolate changes it: the spinning measuring thread would never stop,
	// and the child would hang. Two Ps at least, or the spinner starves
	// the reporter.
	runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0)))
	rep, err := runChild(os.Stdin)
	if err != nil {
		rep.Err = err.Error()
	}
	child.Exit(rep, err)
}

func runChild(in io.Reader) (childReport, error) {
	rep := childReport{FiltersBefore: -1, FiltersAfter: -1, CPU: -1, FailedFilter: -1}
	var spec childSpec
	if err := child.ReadSpec(in, &spec); err != nil {
		return rep, err
	}
	if !loop.Supported {
		return rep, fmt.Errorf("timed loops on %s: %w", runtime.GOARCH, sys.ErrNotSupported)
	}
	st, err := newMeasureState(&spec)
	if err != nil {
		return rep, err
	}
	r := startMeasuring(st)
	rep.CPU = r.cpu
	rep.FiltersBefore = r.before
	rep.Caps = r.caps
	if r.pinErr != nil {
		rep.PinErr = r.pinErr.Error()
	}
	if r.err != nil {
		var e unix.Errno
		if errors.As(r.err, &e) {
			rep.InstallErrno = int(e)
		}
		return rep, r.err
	}
	if r.cpu >= 0 {
		isolate(r.tid, r.cpu)
	}
	close(r.start)
	return waitMeasured(st, r.tid, rep)
}

// newMeasureState prepares, before the measuring thread starts, everything
// it will touch: the sock_fprog structs, the sample slots, and what the
// workload's loop needs (a pipe, C strings, the notifying filter).
func newMeasureState(spec *childSpec) (*measureState, error) {
	st := &measureState{spec: spec, failedAt: -1}
	st.samples = make([]int64, spec.Samples)
	if spec.Paired {
		st.base = make([]int64, spec.Samples)
	}
	st.install = make([]int64, len(spec.Filters))
	st.progs = make([]sys.SockFprog, len(spec.Filters))
	for i, f := range spec.Filters {
		fp, ok := sys.NewSockFprog(f)
		if !ok {
			return nil, fmt.Errorf("filter %d: bad length %d bytes", i, len(f))
		}
		st.progs[i] = fp
	}
	wl, ok := workload.Find(spec.Workload)
	if !ok {
		return nil, fmt.Errorf("unknown workload %q", spec.Workload)
	}
	st.loop = wl.Kind
	switch wl.Kind {
	case kindMix, kindClose:
		var p [2]int
		if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
			return nil, fmt.Errorf("create pipe for %s workload: %w", spec.Workload, err)
		}
		st.fd = uintptr(p[0])
	case kindSyscall:
		if spec.PathArg != "" {
			spec.Syscall[2] = int64(st.cstring(spec.PathArg))
		}
	case kindExec:
		if len(spec.ExecPaths) == 0 {
			return nil, fmt.Errorf("%s workload: no exec paths", spec.Workload)
		}
		for _, p := range spec.ExecPaths {
			st.execPaths = append(st.execPaths, st.cstring(p))
		}
		st.argv[0] = st.execPaths[len(st.execPaths)-1]
	case kindProbe:
		st.chase, st.steps = probeChase(spec.ProbeKiB)
		if spec.ProbeCode {
			var err error
			if st.code, st.codeMem, err = probeCode(spec.ProbeKiB); err != nil {
				return nil, err
			}
		}
	case kindNotify:
		if spec.Notify == nil || !st.setupNotify(spec.Notify) {
			return nil, fmt.Errorf("%s workload: no valid notifying filter in the spec", spec.Workload)
		}
	}
	return st, nil
}

// ready is what the measuring thread says before it installs anything;
// closing start lets it go on.
type ready struct {
	tid    int
	before int
	cpu    int
	caps   *result.Caps
	pinErr error
	err    error
	start  chan struct{}
}

// startMeasuring starts the measuring thread: locked, pinned to spec.CPU,
// given the loader's capabilities and no_new_privs. It returns when the
// thread is ready (or failed); the thread then waits for r.start to be
// closed before it installs the filters and runs measure.
func startMeasuring(st *measureState) ready {
	spec := st.spec
	readyc := make(chan ready, 1)
	start := make(chan struct{})
	go func() {
		runtime.LockOSThread() // never unlocked: the thread dies with the process
		r := ready{tid: unix.Gettid(), cpu: -1, start: start}
		if spec.CPU >= 0 {
			var set unix.CPUSet
			set.Set(spec.CPU)
			if err := unix.SchedSetaffinity(0, &set); err != nil {
				r.pinErr = fmt.Errorf("pin measuring thread to CPU %d: %w", spec.CPU, err)
			} else {
				r.cpu = spec.CPU
			}
		}
		r.before = sys.ThreadFilters(r.tid)
		caps, err := sys.ApplyLoader(spec.Loader, r.tid)
		r.caps = &caps
		if err != nil {
			r.err = fmt.Errorf("set up %s loader: %w", spec.Loader, err)
			readyc <- r
			return
		}
		// Installing a filter needs no_new_privs (or CAP_SYS_ADMIN in the
		// user namespace): seccomp(2), EACCES.
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			r.err = fmt.Errorf("set no_new_privs: %w", err)
			readyc <- r
			return
		}
		readyc <- r
		<-start
		// From here on: no allocation, no channel, no function with a
		// stack check. measure never returns.
		measure(st)
	}()
	return <-readyc
}

// waitMeasured polls until the measuring thread tid is done and fills rep
// from st.
func waitMeasured(st *measureState, tid int, rep childReport) (childReport, error) {
	spec := st.spec
	// Poll (never block on anything the measuring thread must wake): the
	// measuring thread may be forbidden to call futex. The pause is a raw
	// nanosleep, not time.Sleep: a runtime timer can sit on the P that the
	// measuring goroutine took and then never fire, because that P never
	// schedules again once its goroutine spins (seen as hung children).
	taskDir := "/proc/self/task/" + strconv.Itoa(tid)
	pause := unix.NsecToTimespec(int64(time.Millisecond))
	for st.done.Load() == 0 {
		sys.RawNanosleep(&pause)
		st.pollNotify()
		if !threadAlive(taskDir) {
			return rep, fmt.Errorf("measuring thread %d died after %d of %d filters were installed (killed by SECCOMP_RET_KILL_THREAD?)", tid, st.installed.Load(), len(spec.Filters))
		}
	}
	rep.FiltersAfter = sys.ThreadFilters(tid)
	rep.InstallNs = st.install
	rep.ControlBeforeNs = st.ctrlPre
	rep.ControlAfterNs = st.ctrlPost
	rep.Notify = st.notify.report()
	if st.failedAt >= 0 && st.failedAt == len(spec.Filters) {
		rep.FailedFilter = st.failedAt
		rep.InstallErrno = int(st.errno)
		return rep, fmt.Errorf("install the notifying filter on top of %d filters: seccomp(2) with SECCOMP_FILTER_FLAG_NEW_LISTENER: %w", len(spec.Filters), unix.Errno(st.errno))
	}
	if st.failedAt >= 0 {
		rep.FailedFilter = st.failedAt
		rep.InstallErrno = int(st.errno)
		rep.InstallNs = st.install[:st.failedAt]
		if unix.Errno(st.errno) == unix.EINVAL {
			// Tell "no filter support" from "bad filter": probe from
			// this (unfiltered) thread, which installs nothing.
			rep.ProbeErrno = int(seccompProbe(spec.Flags))
		}
		return rep, fmt.Errorf("install filter %d of %d: seccomp(2): %w", st.failedAt+1, len(spec.Filters), unix.Errno(st.errno))
	}
	rep.SamplesNs = st.samples
	rep.BaselineNs = st.base
	rep.ExecsOK = st.execsOK
	return rep, nil
}

// threadAlive reports whether the thread whose /proc/self/task/TID
// directory is taskDir still runs. A thread killed by
// SECCOMP_RET_KILL_THREAD disappears, except the thread-group leader
// (which the measuring thread may be: the goroutine can run on the main
// thread): it stays a zombie ("Z" in its stat) until the process exits
// (man 5 proc: /proc/pid/stat, field 3).
func threadAlive(taskDir string) bool {
	b, err := os.ReadFile(taskDir + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return true // unreadable format: assume alive, the deadline still holds
	}
	switch b[i+2] {
	case 'Z', 'X', 'x':
		return false
	}
	return true
}

// isolate moves every thread of this process but the measuring thread tid
// off cpu (when another CPU is allowed), so the runtime's own threads
// (sysmon, the reporter) do not preempt the timed loop. Threads created
// later inherit the mask of their creator, which is never the measuring
// thread (newm uses the template thread for locked Ms: runtime/proc.go).
// Failures only cost precision and are ignored.
func isolate(tid, cpu int) {
	var set unix.CPUSet
	if unix.SchedGetaffinity(0, &set) != nil {
		return
	}
	set.Clear(cpu)
	if set.Count() == 0 {
		return
	}
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return
	}
	for _, e := range ents {
		t, err := strconv.Atoi(e.Name())
		if err != nil || t == tid {
			continue
		}
		unix.SchedSetaffinity(t, &set)
	}
}
