package live

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"

	"github.com/seccompbench/seccompbench/internal/kstack"
	"github.com/seccompbench/seccompbench/internal/testutils"
)

// childEnv selects what the re-executed test binary does instead of
// running tests.
const childEnv = "SECCOMPBENCH_LIVE_TEST_CHILD"

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "loop":
		childLoop()
	case "nocaps":
		childNoCaps()
	case "shloop":
		childShLoop()
	}
	os.Exit(m.Run())
}

// childLoop installs 8 filters that allow everything with the action
// cache defeated (ld [instruction_pointer] first), then calls getppid
// until killed.
func childLoop() {
	runtime.LockOSThread()
	installDefeated()
	os.Stdout.WriteString("ready\n")
	for {
		unix.Syscall(unix.SYS_GETPPID, 0, 0, 0)
	}
}

// installDefeated installs 8 filters that allow everything with the
// action cache defeated (ld [instruction_pointer] first) on every thread,
// or exits 3-5.
func installDefeated() {
	prog, err := bpf.Assemble([]bpf.Instruction{bpf.LoadAbsolute{Off: 8, Size: 4}, bpf.RetConstant{Val: 0x7fff0000}})
	if err != nil {
		os.Exit(3)
	}
	filter := make([]unix.SockFilter, len(prog))
	for i, ri := range prog {
		filter[i] = unix.SockFilter{Code: ri.Op, Jt: ri.Jt, Jf: ri.Jf, K: ri.K}
	}
	fprog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		os.Exit(4)
	}
	for range 8 {
		if _, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fprog))); e != 0 {
			os.Exit(5)
		}
	}
}

// childNoCaps drops every capability from all threads, then tries Open
// twice: with the up-front check and with the kernel alone deciding. It
// prints one line per attempt and whether any perf or BPF descriptor is
// left open.
func childNoCaps() {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if _, _, e := syscall.AllThreadsSyscall(unix.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0); e != 0 {
		fmt.Printf("capset: %v\n", e)
		os.Exit(6)
	}
	_, err := Open(Options{Pids: []int{1}})
	fmt.Printf("check: %v\n", describeErr(err))
	_, err = open(Options{Pids: []int{1}}, false)
	fmt.Printf("kernel: %v\n", describeErr(err))
	fmt.Printf("left open: %d\n", len(kernelFDs()))
	os.Exit(0)
}

func describeErr(err error) string {
	var pe *PermissionError
	switch {
	case err == nil:
		return "no error"
	case errors.As(err, &pe) && errors.Is(err, ErrPermission):
		return "permission: " + err.Error()
	}
	return "other: " + err.Error()
}

// kernelFDs lists this process's perf event and BPF descriptors.
func kernelFDs() []string {
	ents, _ := os.ReadDir("/proc/self/fd")
	var out []string
	for _, e := range ents {
		l, err := os.Readlink("/proc/self/fd/" + e.Name())
		if err == nil && (strings.Contains(l, "perf_event") || strings.Contains(l, "bpf")) {
			out = append(out, l)
		}
	}
	return out
}

// requireLive skips unless this process may sample (root or CAP_PERFMON
// with CAP_BPF) on x86_64 Linux 5.15+.
func requireLive(t *testing.T) {
	t.Helper()
	if runtime.GOARCH != "amd64" {
		t.Skip("the sampling program reads x86_64 pt_regs")
	}
	testutils.SkipOnOldKernel(t, "5.15", "bpf_task_pt_regs")
	if err := CheckPermissions(); err != nil {
		t.Skipf("not permitted to sample: %v", err)
	}
}

// TestSessionRealKernel samples a child that loops on getppid under 8
// uncached filters: its samples must carry syscall 110 and land in
// seccomp, the counter must count its calls, and Close must leave no perf
// or BPF descriptor behind.
func TestSessionRealKernel(t *testing.T) {
	requireLive(t)
	before := len(kernelFDs())
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=loop")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	buf := make([]byte, 6)
	if _, err := out.Read(buf); err != nil || string(buf) != "ready\n" {
		t.Fatalf("child did not start: %q %v", buf, err)
	}
	pid := cmd.Process.Pid

	s, err := Open(Options{Pids: []int{pid}})
	testutils.SkipIfNotSupported(t, err, ErrNotSupported, "5.15", "BPF sampling of kernel callchains")
	// Sample until the child has minSamples samples, then count until the
	// counter has seen its getppid calls: conditions polled under one
	// deadline, which a starved machine only makes slower to reach.
	const minSamples = 50
	deadline := time.Now().Add(30 * time.Second)
	var samples []kstack.Sample
	for childSamples(samples, pid) < minSamples && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		s.Flush()
		got, err := s.Take()
		if err != nil {
			t.Error(err)
		}
		samples = append(samples, got...)
	}
	if err := s.CountOn(); err != nil {
		s.Close()
		t.Fatal(err)
	}
	var counts []CallCount
	for childCalls(counts, pid) == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		got, err := s.TakeCounts()
		if err != nil {
			t.Error(err)
		}
		counts = append(counts, got...)
	}
	if err := s.CountOff(); err != nil {
		t.Error(err)
	}
	s.Flush()
	got, err := s.Take()
	if err != nil {
		t.Error(err)
	}
	samples = append(samples, got...)
	if err := s.Close(); err != nil {
		t.Error(err)
	}
	if after := kernelFDs(); len(after) != before {
		t.Errorf("after Close: %d perf/BPF descriptors, before Open %d: %v", len(after), before, after)
	}

	c := testClassifier(t)
	var mine, sec, getppid, other int
	for i := range samples {
		if samples[i].Tgid != uint32(pid) {
			other++
			continue
		}
		mine++
		if c.Classify(&samples[i]).Class == kstack.ClassSeccomp {
			sec++
			// The Go runtime's other threads (futex, nanosleep) run
			// under the filters too (TSYNC), but rarely.
			if samples[i].Nr == unix.SYS_GETPPID {
				getppid++
			}
		}
	}
	if other != 0 {
		t.Errorf("%d samples of other processes: the target filter leaks", other)
	}
	if mine < minSamples {
		t.Fatalf("%d samples of the child in 30 s at %d Hz, want %d", mine, DefaultFrequency, minSamples)
	}
	if sec == 0 || 2*getppid <= sec {
		t.Errorf("%d seccomp samples among %d of a getppid loop under 8 uncached filters, %d in getppid: want most", sec, mine, getppid)
	}
	if childCalls(counts, pid) == 0 {
		t.Errorf("counter saw no getppid of the child in 30 s: %+v", counts)
	}
}

// childSamples counts the samples of process pid.
func childSamples(samples []kstack.Sample, pid int) int {
	n := 0
	for i := range samples {
		if samples[i].Tgid == uint32(pid) {
			n++
		}
	}
	return n
}

// childCalls sums the getppid calls counted for process pid.
func childCalls(counts []CallCount, pid int) uint64 {
	var calls uint64
	for _, cc := range counts {
		if cc.Tgid == uint32(pid) && cc.Nr == unix.SYS_GETPPID {
			calls += cc.Calls
		}
	}
	return calls
}

// TestPermissionDenied drops every capability in a child process (never
// touching host settings) and checks that opening a session fails with a
// *PermissionError that names what to grant, both from the up-front check
// and from the kernel's own refusal, and that nothing stays open.
func TestPermissionDenied(t *testing.T) {
	requireLive(t)
	if testutils.Race {
		t.Skip("the child drops capabilities with syscall.AllThreadsSyscall, which the race detector's runtime refuses (ENOTSUP)")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=nocaps")
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, b)
	}
	got := string(b)
	for _, want := range []string{"check: permission: ", "kernel: permission: ", "left open: 0"} {
		if !strings.Contains(got, want) {
			t.Errorf("child output lacks %q:\n%s", want, got)
		}
	}
	if !strings.Contains(got, "CAP_PERFMON") || !strings.Contains(got, "CAP_BPF") {
		t.Errorf("errors do not name the capabilities:\n%s", got)
	}
}

// TestPermissionDeniedParanoid sets kernel.perf_event_paranoid to 3 and
// drops CAP_PERFMON/CAP_SYS_ADMIN only when SECCOMPBENCH_TEST_SYSCTL=1
// asks for it (it changes a host setting; the old value is restored).
func TestPermissionDeniedParanoid(t *testing.T) {
	if os.Getenv("SECCOMPBENCH_TEST_SYSCTL") != "1" {
		t.Skip("changes kernel.perf_event_paranoid; set SECCOMPBENCH_TEST_SYSCTL=1 to run")
	}
	requireLive(t)
	if testutils.Race {
		t.Skip("the child drops capabilities with syscall.AllThreadsSyscall, which the race detector's runtime refuses (ENOTSUP)")
	}
	const path = "/proc/sys/kernel/perf_event_paranoid"
	old, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("3"), 0); err != nil {
		t.Fatal(err)
	}
	defer os.WriteFile(path, old, 0)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=nocaps")
	b, _ := cmd.CombinedOutput()
	if !strings.Contains(string(b), "perf_event_paranoid is 3") {
		t.Errorf("error does not name the sysctl and its value:\n%s", b)
	}
}

func TestParseStat(t *testing.T) {
	comm, cpu, err := parseStat(42, "42 (a (b) c) S 1 42 42 0 -1 4194560 100 0 0 0 250 17 0 0 20 0 1 0 100 0 0")
	if err != nil || comm != "a (b) c" || cpu != 267*clockTick {
		t.Errorf("got %q %v %v, want \"a (b) c\" 2.67s", comm, cpu, err)
	}
	if _, _, err := parseStat(1, "1 (x) S 1"); err == nil {
		t.Error("short line: no error")
	}
}

// TestProcPpid reads field 4 after a comm holding ") S 9": this
// process's parent as the kernel says it, and errors that name the file.
func TestProcPpid(t *testing.T) {
	if p, err := parsePpid(42, "42 (a) S 9 (b) R 3 42 42 0"); err != nil || p != 3 {
		t.Errorf("got %d %v, want 3 (fields counted from the last ')')", p, err)
	}
	for _, bad := range []string{"1 (x)", "1 (x) S -4", "no comm"} {
		if _, err := parsePpid(1, bad); err == nil || !strings.Contains(err.Error(), "/proc/1/stat") {
			t.Errorf("%q: err %v, want one naming /proc/1/stat", bad, err)
		}
	}
	if p, err := ProcPpid(os.Getpid()); err != nil || p != os.Getppid() {
		t.Errorf("ProcPpid(self) = %d, %v; want %d", p, err, os.Getppid())
	}
}

func TestCgroupPids(t *testing.T) {
	dir := t.TempDir()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(dir+"/cgroup.procs", []byte("10\n3\n"), 0o644))
	must(os.Mkdir(dir+"/child", 0o755))
	must(os.WriteFile(dir+"/child/cgroup.procs", []byte("7\n10\n"), 0o644))
	got, err := CgroupPids(dir)
	if err != nil || fmt.Sprint(got) != "[3 7 10]" {
		t.Errorf("got %v %v, want [3 7 10]", got, err)
	}
	if _, err := CgroupPids(dir + "/missing"); err == nil {
		t.Error("missing cgroup: no error")
	}
	must(os.WriteFile(dir+"/child/cgroup.procs", []byte("x\n"), 0o644))
	if _, err := CgroupPids(dir); err == nil || !strings.Contains(err.Error(), "not a PID") {
		t.Errorf("bad content: %v", err)
	}
}

func TestOnlineCPUs(t *testing.T) {
	cpus, err := onlineCPUs()
	if err != nil {
		t.Fatal(err)
	}
	if len(cpus) == 0 || len(cpus) > runtime.NumCPU()*4 {
		t.Errorf("%d online CPUs", len(cpus))
	}
}

// TestTaskCPU: the exact CPU time of this process grows by at least the
// CPU it burns between two reads; a process that does not exist is
// fs.ErrNotExist; schedstat lines parse or name what is wrong.
func TestTaskCPU(t *testing.T) {
	a, err := TaskCPU(os.Getpid())
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			t.Skipf("no schedstat on this kernel: %v", err)
		}
		t.Fatal(err)
	}
	// Burn CPU on this thread until TaskCPU has grown by 20 ms: schedstat
	// counts every nanosecond run, so a working TaskCPU gets there in
	// about 20 ms of CPU however busy the machine; a broken one (stuck,
	// another process's time) never does before the deadline.
	deadline := time.Now().Add(20 * time.Second)
	x, b := 0, a
	for b-a < 20*time.Millisecond && time.Now().Before(deadline) {
		for i := 0; i < 1e5; i++ {
			x += i
		}
		if b, err = TaskCPU(os.Getpid()); err != nil {
			t.Fatal(err)
		}
	}
	if b-a < 20*time.Millisecond {
		t.Errorf("CPU time grew by %v in 20 s of burning CPU (x %d)", b-a, x)
	}
	if _, err := TaskCPU(1 << 30); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing pid: %v, want fs.ErrNotExist", err)
	}
	for _, tt := range []struct {
		in   string
		want uint64
		ok   bool
	}{{"2124045 0 1\n", 2124045, true}, {"", 0, false}, {"x 0 1", 0, false}} {
		got, err := parseSchedstat(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseSchedstat(%q) = %v, %v; want %v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

// testClassifier is a kstack classifier over this kernel's
// /proc/kallsyms, for the tests that classify what they sampled.
func testClassifier(t *testing.T) *kstack.Classifier {
	t.Helper()
	ks, err := ReadKallsyms()
	if err != nil {
		t.Fatal(err)
	}
	syms, err := kstack.ParseKallsyms(ks)
	if err != nil {
		t.Fatal(err)
	}
	return kstack.NewClassifier(syms)
}
