package runner

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/runner/cpulock"
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/runner/workload"
)

// Helper processes of these tests are the test binary itself, started with
// one of these variables set; TestMain calls maybeRunLockHelper first.
const (
	holdLockEnv = "RUNNER_TEST_HOLD_CPU_LOCK" // "dir:cpu": lock, print "locked", wait for stdin to close
	spinEnv     = "RUNNER_TEST_SPIN_CPU"      // "cpu": pin to cpu, print "spinning", spin until killed
	execRunEnv  = "RUNNER_TEST_EXEC_RUN"      // "1": run the exec workload until killed
)

// maybeRunLockHelper runs a helper process and exits when this process is
// one; otherwise it returns at once.
func maybeRunLockHelper() {
	switch {
	case os.Getenv(holdLockEnv) != "":
		dir, cpuS, _ := strings.Cut(os.Getenv(holdLockEnv), ":")
		cpu, _ := strconv.Atoi(cpuS)
		locks, err := cpulock.LockCPUs(context.Background(), dir, []int{cpu}, 1, true, -1, nil)
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		fmt.Println("locked")
		bufio.NewReader(os.Stdin).ReadString('\n')
		locks.Release()
		os.Exit(0)
	case os.Getenv(spinEnv) != "":
		cpu, _ := strconv.Atoi(os.Getenv(spinEnv))
		runtime.LockOSThread()
		var set unix.CPUSet
		set.Set(cpu)
		if err := unix.SchedSetaffinity(0, &set); err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		fmt.Println("spinning")
		for x := uint64(0); ; x++ {
			_ = x * x
		}
	case os.Getenv(execRunEnv) == "1":
		p := &filters.Program{Name: "allow", Insns: allowInsns()}
		_, err := Run(context.Background(), Config{Programs: []*filters.Program{p}, Counts: []int{0, 1},
			Variants: []result.Variant{result.VariantOn}, Workload: Workload{Spec: workload.Exec()}, Trials: 100000, Iterations: 5, Samples: 1,
			CPU: -2})
		fmt.Println(err)
		os.Exit(1)
	}
}

// allowInsns is the one-instruction program "ret ALLOW".
func allowInsns() []bpf.RawInstruction {
	return []bpf.RawInstruction{{Op: 0x06, K: uint32(filters.ActionAllow)}}
}

// startHelper starts the test binary as a helper with env set and waits
// for its first line, which must be want. The helper is killed when the
// test ends.
func startHelper(t *testing.T, env, want string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), env)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if got := strings.TrimSpace(line); got != want {
		t.Fatalf("helper %s said %q (%v), want %q", env, got, err, want)
	}
	return cmd
}

func TestLockCPUs(t *testing.T) {
	dir := t.TempDir()
	held, err := cpulock.LockCPUs(context.Background(), dir, []int{3}, 1, true, -1, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	if b, _ := os.ReadFile(filepath.Join(dir, "cpu-3.lock")); strings.TrimSpace(string(b)) != strconv.Itoa(os.Getpid()) {
		t.Errorf("lock file holds %q, want this PID %d", b, os.Getpid())
	}
	tests := []struct {
		name     string
		cands    []int
		need     int
		explicit bool
		wantCPUs []int
		wantBusy bool
	}{
		{"explicit busy CPU refused", []int{3}, 1, true, nil, true},
		{"picks the next free CPU", []int{3, 2}, 1, false, []int{2}, false},
		{"every candidate busy", []int{3}, 1, false, nil, true},
		{"explicit free CPU", []int{5}, 1, true, []int{5}, false},
		{"two of three, one busy", []int{3, 4, 5}, 2, false, []int{4, 5}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := cpulock.LockCPUs(context.Background(), dir, tt.cands, tt.need, tt.explicit, -1, nil)
			var be *cpulock.CPUBusyError
			if tt.wantBusy {
				if !errors.As(err, &be) || !errors.Is(err, cpulock.ErrCPUBusy) {
					t.Fatalf("got %v, want a *cpulock.CPUBusyError", err)
				}
				if want := []int{os.Getpid()}; !slices.Equal(be.Holders, want) {
					t.Errorf("holders %v, want %v", be.Holders, want)
				}
				if want := fmt.Sprintf("CPU 3 is measuring for another run (PID %d", os.Getpid()); !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer got.Release()
			if !slices.Equal(got.CPUs(), tt.wantCPUs) {
				t.Errorf("got CPUs %v, want %v", got.CPUs(), tt.wantCPUs)
			}
		})
	}
}

// A lock held by another process names that process, is waited for up to
// the bound, and is free again once the holder is SIGKILLed.
func TestLockCPUsOtherProcess(t *testing.T) {
	dir := t.TempDir()
	h := startHelper(t, holdLockEnv+"="+dir+":7", "locked")
	var waitMsg []int
	_, err := cpulock.LockCPUs(context.Background(), dir, []int{7}, 1, true, 300*time.Millisecond, func(cpus, pids []int) { waitMsg = pids })
	var be *cpulock.CPUBusyError
	if !errors.As(err, &be) {
		t.Fatalf("got %v, want a *cpulock.CPUBusyError", err)
	}
	if want := []int{h.Process.Pid}; !slices.Equal(be.Holders, want) || !slices.Equal(waitMsg, want) {
		t.Errorf("holders %v, told while waiting %v, want %v", be.Holders, waitMsg, want)
	}
	if be.Waited < 300*time.Millisecond {
		t.Errorf("gave up after %v, want at least the 300ms bound", be.Waited)
	}
	if want := fmt.Sprintf("PID %d: ", h.Process.Pid); !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not name the holder as %q", err, want)
	}
	h.Process.Signal(syscall.SIGKILL)
	h.Wait()
	got, err := cpulock.LockCPUs(context.Background(), dir, []int{7}, 1, true, -1, nil)
	if err != nil {
		t.Fatalf("lock after the holder was killed: %v", err)
	}
	got.Release()
}

// Waiting for a busy CPU ends when the context does.
func TestLockCPUsCancelled(t *testing.T) {
	dir := t.TempDir()
	held, err := cpulock.LockCPUs(context.Background(), dir, []int{0}, 1, true, -1, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	ctx, cancel := context.WithCancel(context.Background())
	_, err = cpulock.LockCPUs(ctx, dir, []int{0}, 1, true, time.Hour, func([]int, []int) { cancel() })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}

// Two real runs at once: the second measures on another CPU, never on the
// first one's. The first run is held inside its Progress callback (so it
// holds its lock) until the second has measured a child.
func TestTwoRunsDoNotShareCPU(t *testing.T) {
	skipIfNoSeccomp(t)
	if len(cpulock.AllowedCPUs()) < 2 {
		t.Skip("needs two allowed CPUs")
	}
	dir := t.TempDir()
	p := prog(t, "allow", allow)
	base := Config{Programs: []*filters.Program{p}, Counts: []int{0, 1}, Variants: []result.Variant{result.VariantOn},
		Workload: loops("getpid"), Trials: 2, Iterations: 200, Samples: 1, CPU: -1, LockDir: dir}
	secondRan := make(chan struct{})
	type outcome struct {
		s    []result.Sample
		info result.RunInfo
		err  error
	}
	firstDone := make(chan outcome, 1)
	secondDone := make(chan outcome, 1)
	a := base
	startedSecond := false
	a.Progress = func(done, total int, c result.Cell) {
		if startedSecond {
			return
		}
		startedSecond = true
		b := base
		b.CPUWait = -1 // the other CPU is free: no waiting needed
		var once bool
		b.Progress = func(int, int, result.Cell) {
			if !once {
				once = true
				close(secondRan)
			}
		}
		go func() {
			s, info, err := RunAdaptive(context.Background(), b)
			if err != nil && !once {
				close(secondRan)
			}
			secondDone <- outcome{s, info, err}
		}()
		<-secondRan
	}
	go func() {
		s, info, err := RunAdaptive(context.Background(), a)
		firstDone <- outcome{s, info, err}
	}()
	r1, r2 := <-firstDone, <-secondDone
	if r1.err != nil || r2.err != nil {
		t.Fatalf("first run: %v; second run: %v", r1.err, r2.err)
	}
	cpus := func(ss []result.Sample) []int {
		var out []int
		for _, s := range ss {
			if !slices.Contains(out, s.CPU) {
				out = append(out, s.CPU)
			}
		}
		return out
	}
	c1, c2 := cpus(r1.s), cpus(r2.s)
	if len(c1) != 1 || len(c2) != 1 || c1[0] == c2[0] || c1[0] < 0 {
		t.Errorf("first run measured on CPUs %v, second on %v: want one CPU each, not shared", c1, c2)
	}
	if !slices.Equal(r1.info.CPUs, c1) || !slices.Equal(r2.info.CPUs, c2) {
		t.Errorf("RunInfo.CPUs %v and %v, samples on %v and %v", r1.info.CPUs, r2.info.CPUs, c1, c2)
	}
}

// A run with an explicit CPU that another process holds refuses after the
// bound, naming the holder, and starts no child.
func TestRunRefusesBusyExplicitCPU(t *testing.T) {
	skipIfNoSeccomp(t)
	dir := t.TempDir()
	cpu := cpulock.HighestCPU()
	h := startHelper(t, fmt.Sprintf("%s=%s:%d", holdLockEnv, dir, cpu), "locked")
	p := prog(t, "allow", allow)
	var told string
	s, _, err := RunAdaptive(context.Background(), Config{Programs: []*filters.Program{p}, Counts: []int{0},
		Variants: []result.Variant{result.VariantOn}, Trials: 1, Iterations: 100, Samples: 1, CPU: cpu, LockDir: dir,
		CPUWait: 200 * time.Millisecond, OnCPUWait: func(m string) { told = m }})
	if !errors.Is(err, cpulock.ErrCPUBusy) || len(s) != 0 {
		t.Fatalf("got %d samples and %v, want none and cpulock.ErrCPUBusy", len(s), err)
	}
	pid := fmt.Sprintf("PID %d", h.Process.Pid)
	if !strings.Contains(err.Error(), pid) || !strings.Contains(told, pid) {
		t.Errorf("error %q / wait message %q do not name %s", err, told, pid)
	}
}

// A busy loop pinned to the measuring CPU shows as foreign load.
func TestForeignLoadDetected(t *testing.T) {
	skipIfNoSeccomp(t)
	cpu := cpulock.HighestCPU()
	if cpu < 0 {
		t.Skip("cannot tell the allowed CPUs")
	}
	startHelper(t, fmt.Sprintf("%s=%d", spinEnv, cpu), "spinning")
	p := prog(t, "allow", allow)
	_, info, err := RunAdaptive(context.Background(), Config{Programs: []*filters.Program{p}, Counts: []int{0, 1},
		Variants: []result.Variant{result.VariantOn}, Workload: loops("getpid"), Trials: 4, Samples: 3, CPU: cpu,
		LockDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	f := info.ForeignLoad
	if f == nil {
		t.Fatal("no foreign load reported")
	}
	if !f.Large() || !slices.Equal(f.CPUs, []int{cpu}) || f.Children < 8 {
		t.Errorf("got %+v, want a large share on CPU %d over at least 8 children", *f, cpu)
	}
	t.Logf("busy loop on CPU %d: foreign share %.0f %% (busy %v, own %v, window %v)", cpu, 100*f.Share,
		time.Duration(f.BusyNs), time.Duration(f.OwnNs), time.Duration(f.WindowNs))
}

// A run SIGKILLed in the middle of the exec workload leaves its fixture;
// the next run removes it.
func TestStaleExecFixtureCleanedAtNextStart(t *testing.T) {
	skipIfNoSeccomp(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	h := startHelperNoWait(t, execRunEnv+"=1")
	deadline := time.Now().Add(time.Minute)
	var left []string
	for len(left) == 0 && time.Now().Before(deadline) {
		left, _ = filepath.Glob(filepath.Join(tmp, "seccompbench-exec-*"))
		time.Sleep(20 * time.Millisecond)
	}
	if len(left) == 0 {
		t.Fatal("the helper run made no exec fixture within a minute")
	}
	h.Process.Signal(syscall.SIGKILL)
	h.Wait()
	if still, _ := filepath.Glob(filepath.Join(tmp, "seccompbench-exec-*")); len(still) == 0 {
		t.Fatal("the SIGKILLed run left nothing behind; nothing to test")
	}
	p := prog(t, "allow", allow)
	if _, err := Run(context.Background(), Config{Programs: []*filters.Program{p}, Counts: []int{0},
		Variants: []result.Variant{result.VariantOn}, Workload: loops("getpid"), Trials: 1, Iterations: 100, Samples: 1, CPU: -2}); err != nil {
		t.Fatal(err)
	}
	if still, _ := filepath.Glob(filepath.Join(tmp, "seccompbench-exec-*")); len(still) != 0 {
		t.Errorf("fixtures of the killed run still there: %v", still)
	}
}

// startHelperNoWait starts the test binary as a helper with env set; it is
// killed when the test ends.
func startHelperNoWait(t *testing.T, env string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), env)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	return cmd
}
