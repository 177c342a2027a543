package top

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/seccompbench/seccompbench/internal/testutils"
	"github.com/seccompbench/seccompbench/runner/live"
)

// busyLoop is a child shell that spins in user mode.
const busyLoop = `sh -c 'while :; do :; done'`

// TestChildrenRealKernel starts a shell (the --pid target) that runs one
// busy child at once, then waits for a file and starts a second: top
// --children must report the first (found by the /proc walk at Open) and
// the second (forked inside the window, so only the sched_process_fork
// program can add it) as children of the target, each with samples. Skips name the
// missing permission or kernel fact.
func TestChildrenRealKernel(t *testing.T) {
	if err := live.FollowPrereqs(); err != nil {
		t.Skip(err)
	}
	testutils.SkipOnOldKernel(t, "5.15", "bpf_task_pt_regs")
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	gate := filepath.Join(t.TempDir(), "go")
	cmd := exec.Command("/bin/sh", "-c", busyLoop+` & while [ ! -e `+gate+` ]; do sleep 0.05; done; `+busyLoop+` & wait`)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	target := cmd.Process.Pid
	defer func() { _ = syscall.Kill(-target, syscall.SIGKILL); _ = cmd.Wait() }()
	first := waitChildLoop(t, target, 0)

	o := DefaultOptions()
	o.Pids, o.Children, o.Predict, o.Frequency = []int{target}, true, false, 499
	w, err := Open(&o)
	testutils.SkipIfNotSupported(t, err, live.ErrNotSupported, "5.15", "BPF sampling with fork following (kernel BTF)")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if w.children[first] != target {
		t.Fatalf("the walk at Open found children %v of %d, not the running loop %d", w.children, target, first)
	}
	// The second loop starts inside the window, after its walk of /proc:
	// only the fork-following program can add it.
	gated := make(chan error, 1)
	go func() {
		time.Sleep(300 * time.Millisecond)
		gated <- os.WriteFile(gate, nil, 0o644)
	}()
	got, err := w.Window(t.Context(), 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-gated; err != nil {
		t.Fatal(err)
	}
	second := waitChildLoop(t, target, first)
	rows := map[int]int{}
	targetRow := false
	for _, p := range got.Processes {
		if p.Child && p.ChildOf != nil && *p.ChildOf == target {
			rows[p.Pid] = p.Samples
		}
		if p.Pid == target {
			// The target shell mostly waits for its loops: listed
			// whether sampled or not, idle exactly when not.
			targetRow = true
			if p.Idle != (p.Samples == 0) || p.Child {
				t.Errorf("target %d: idle %v with %d samples, child %v", target, p.Idle, p.Samples, p.Child)
			}
		}
	}
	if !targetRow {
		t.Errorf("no row for the --pid target %d", target)
	}
	// The loops are busy for 2 s and 1.7 s of the window: ~1000 and
	// ~850 samples at 499 Hz on an idle CPU; the bar leaves room for a
	// machine shared with others.
	for _, pid := range []int{first, second} {
		if rows[pid] < 20 {
			t.Errorf("loop %d: %d samples as a child of %d; children rows %v", pid, rows[pid], target, rows)
		}
	}
	if got.Children == nil || got.Children.AtStart < 1 || got.Children.Since < 1 {
		t.Errorf("children %+v, want ≥ 1 at start and ≥ 1 since", got.Children)
	}
	t.Logf("target %d, loops %d (at start) and %d (forked): children rows %v, counts %+v", target, first, second, rows, got.Children)
}

// waitChildLoop waits up to 5 s for a child of parent other than not
// whose comm is sh (a busy loop) and returns its pid.
func waitChildLoop(t *testing.T, parent, not int) int {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == not {
				continue
			}
			if pp, err := live.ProcPpid(pid); err != nil || pp != parent {
				continue
			}
			if comm, _, err := live.ProcCPU(pid); err == nil && comm == "sh" {
				return pid
			}
		}
	}
	t.Fatalf("no busy child of %d in 5 s", parent)
	return 0
}
