package command

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seccompbench/seccompbench/runner/internal/child"
	"github.com/seccompbench/seccompbench/runner/result"
)

// TestMain lets this test binary serve as the timing child and the
// wrapper Measure re-executes.
func TestMain(m *testing.M) {
	if child.IsChild() {
		child.Main(TimingChild, WrapperChild, ReapedChild)
	}
	os.Exit(m.Run())
}

// allowAll is one sock_filter, `ret SECCOMP_RET_ALLOW`, in native byte
// order (include/uapi/linux/filter.h: struct sock_filter).
func allowAll() []byte {
	b := make([]byte, 8)
	binary.NativeEndian.PutUint16(b, 0x06) // BPF_RET | BPF_K
	binary.NativeEndian.PutUint32(b[4:], 0x7fff0000)
	return b
}

// skipIfNoSeccomp skips when the kernel has no seccomp (no Seccomp line
// in /proc/self/status, kernel/seccomp.c: proc_pid_seccomp_cache and
// fs/proc/array.c: task_seccomp).
func skipIfNoSeccomp(t *testing.T) {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil || !strings.Contains(string(b), "\nSeccomp:") {
		t.Skip("no seccomp in /proc/self/status")
	}
}

// needTools skips when a program the test's commands run is not in PATH
// (the kernel matrix's guests carry only the test binaries).
func needTools(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			t.Skipf("no %s in PATH", n)
		}
	}
}

// pidsIn reads the pids the command appended to file, one a line.
func pidsIn(t *testing.T, file string) []int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, w := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(w)
		if err != nil {
			t.Fatalf("%s: %q is not a pid", file, w)
		}
		pids = append(pids, pid)
	}
	return pids
}

// noneLeft fails for every pid that still exists, as a running process
// or as a zombie nobody reaped.
func noneLeft(t *testing.T, pids []int) {
	t.Helper()
	for _, pid := range pids {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		t.Errorf("process %d %s of the command survives the measurement: state %s, parent %s", pid, s[strings.IndexByte(s, '('):strings.LastIndexByte(s, ')')+1], f[0], f[1])
	}
}

// leaver is a command that starts background processes, writes their
// pids (and its own) to file and exits 0 without waiting for them: one
// in its process group and, when setsid(1) exists, one in a session of
// its own.
func leaver(file string) []string {
	script := "echo $$ >> " + file + "; sleep 30 >/dev/null 2>&1 & echo $! >> " + file + "; "
	if _, err := exec.LookPath("setsid"); err == nil {
		script += "setsid sleep 30 >/dev/null 2>&1 & echo $! >> " + file + "; "
	}
	return []string{"sh", "-c", script + "exit 0"}
}

// awaitPids returns once leaver's script argv has written all its pids to
// file (the shell's, its background processes'): the moment to cancel,
// an event rather than a delay. It fails if done reports first.
func awaitPids(t *testing.T, file string, argv []string, done <-chan error) {
	t.Helper()
	want := 2 // the shell and its first background sleep
	if strings.Contains(argv[2], "setsid") {
		want = 3
	}
	for {
		if b, _ := os.ReadFile(file); len(strings.Fields(string(b))) >= want {
			return
		}
		select {
		case err := <-done:
			t.Fatalf("returned before the command started its processes: %v", err)
		case <-time.After(time.Millisecond):
		}
	}
}

// A command that leaves processes running when it exits: once Measure
// returns, none of them exists, neither running nor as a zombie, in
// every design, and the runs are measured as usual.
func TestMeasureLeavesNoProcess(t *testing.T) {
	skipIfNoSeccomp(t)
	needTools(t, "sh", "sleep")
	for _, d := range []Design{DesignChildren, DesignPairs} {
		t.Run(string(d), func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "pids")
			cs, _, err := Prepare(context.Background(), Spec{Argv: leaver(file), Warmup: 1, Runs: 3, Design: d}, Setup{Parallel: 1, Cells: 1})
			if err != nil {
				t.Fatal(err)
			}
			req := Request{Cell: result.Cell{Variant: result.VariantOn, Filters: 1}, Stack: [][]byte{allowAll()}, Timeout: time.Minute, CPUAfter: true}
			s, err := Measure(context.Background(), cs, req)
			if err != nil {
				t.Fatal(err)
			}
			if s.Command == nil || s.Command.Runs != 3 || s.Command.Failed != 0 {
				t.Errorf("command sample %+v, want 3 runs, none failed", s.Command)
			}
			pids := pidsIn(t, file)
			// Calibration (1 run) and the child's warm-up and timed runs
			// (pairs: twice), each its shell and its background sleeps.
			runs := 1 + 4
			if d == DesignPairs {
				runs = 1 + 8
			}
			if len(pids) < 2*runs {
				t.Fatalf("%d pids written, want at least %d: %v", len(pids), 2*runs, pids)
			}
			noneLeft(t, pids)
		})
	}
}

// Cancelling the context in the middle of a run (a Ctrl-C reaching the
// parent) kills the command and what it started and reaps them all
// before Measure returns: none exists, not even as a zombie reparented
// to PID 1.
func TestMeasureCancelledLeavesNoProcess(t *testing.T) {
	skipIfNoSeccomp(t)
	needTools(t, "sh", "sleep", "cat", "true")
	file := filepath.Join(t.TempDir(), "pids")
	argv := leaver(file)
	argv[2] = strings.TrimSuffix(argv[2], "exit 0") + "sleep 30 | cat"
	cs, _, err := Prepare(context.Background(), Spec{Argv: []string{"true"}, Runs: 1}, Setup{Parallel: 1, Cells: 1})
	if err != nil {
		t.Fatal(err)
	}
	cs.Argv = argv
	if cs.path, err = exec.LookPath("sh"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		req := Request{Cell: result.Cell{Variant: result.VariantOn, Filters: 1}, Stack: [][]byte{allowAll()}, Timeout: time.Minute, CPUAfter: true}
		_, err := Measure(ctx, cs, req)
		done <- err
	}()
	awaitPids(t, file, argv, done)
	cancel()
	err = <-done
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Measure returned %v, want context.Canceled", err)
	}
	noneLeft(t, pidsIn(t, file))
}

// RunReaped (estimate --command's strace profile) leaves nothing either:
// a program's background processes are killed when it exits, and a
// cancelled context kills the program and everything it started.
func TestRunReapedLeavesNoProcess(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	file := filepath.Join(t.TempDir(), "pids")
	argv := leaver(file)
	r, err := RunReaped(context.Background(), sh, argv, os.Environ())
	if err != nil || r.ExitCode != 0 || r.Signal != 0 {
		t.Fatalf("RunReaped = %+v, %v; want exit 0", r, err)
	}
	noneLeft(t, pidsIn(t, file))

	r, err = RunReaped(context.Background(), sh, []string{"sh", "-c", "echo oops >&2; exit 3"}, os.Environ())
	if err != nil || r.ExitCode != 3 || strings.TrimSpace(r.StderrTail) != "oops" {
		t.Errorf("failing program: %+v, %v; want exit 3 and its standard error", r, err)
	}

	file2 := filepath.Join(t.TempDir(), "pids")
	argv = leaver(file2)
	argv[2] = strings.TrimSuffix(argv[2], "exit 0") + "sleep 30 | cat"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := RunReaped(ctx, sh, argv, os.Environ())
		done <- err
	}()
	awaitPids(t, file2, argv, done)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("RunReaped returned %v, want context.Canceled", err)
	}
	noneLeft(t, pidsIn(t, file2))
}
