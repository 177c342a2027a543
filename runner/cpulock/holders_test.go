package cpulock

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// parseLockHolders keeps the FLOCK holders of the lock files only, each
// PID once, never this process, never a waiter.
func TestParseLockHolders(t *testing.T) {
	locks := []byte(`1: FLOCK  ADVISORY  WRITE 4242 00:19:786434 0 EOF
1: -> FLOCK  ADVISORY  WRITE 5151 00:19:786434 0 EOF
2: FLOCK  ADVISORY  WRITE 4242 00:19:786649 0 EOF
3: POSIX  ADVISORY  WRITE 6000 00:19:786649 0 EOF
4: FLOCK  ADVISORY  WRITE 77 00:19:999 0 EOF
5: FLOCK  ADVISORY  WRITE 100 00:19:786649 0 EOF
`)
	ids := map[string]bool{"00:19:786434": true, "00:19:786649": true}
	if got, want := parseLockHolders(locks, ids, 100), []int{4242}; !slices.Equal(got, want) {
		t.Errorf("holders %v, want %v", got, want)
	}
}

// Holders leaves this process's own lock out, and looking takes no lock:
// the lock stays this process's alone.
func TestHoldersLeavesOutSelf(t *testing.T) {
	if _, err := os.Stat("/proc/locks"); err != nil {
		t.Skip("no /proc/locks")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "cpu-0.lock")
	if err := os.WriteFile(path, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	if got := Holders(dir); len(got) != 0 {
		t.Fatalf("holders of a free lock: %v", got)
	}
	// Our own lock is left out: the holder must be another process.
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	if got := Holders(dir); len(got) != 0 {
		t.Errorf("holders with only this process locking: %v", got)
	}
	// After the look the lock is still ours alone: another open file
	// description cannot take it.
	g, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if err := unix.Flock(int(g.Fd()), unix.LOCK_EX|unix.LOCK_NB); err == nil {
		t.Error("the lock was free after Holders looked")
	}
}

// Holders names another process holding a CPU lock (util-linux flock(1)
// holding it while it runs sleep).
func TestHoldersNamesOtherHolder(t *testing.T) {
	dir := t.TempDir()
	cmd := holdLock(t, filepath.Join(dir, "cpu-1.lock"))
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if got := Holders(dir); slices.Equal(got, []int{cmd.Process.Pid}) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("Holders never named flock's PID %d (last: %v)", cmd.Process.Pid, Holders(dir))
}

// A Watch with a lock directory names the other run holding a lock there
// (flock(1) standing in for it) in its result, once; the result's text
// says so.
func TestWatchNamesOtherRun(t *testing.T) {
	dir := t.TempDir()
	cmd := holdLock(t, filepath.Join(dir, "cpu-0.lock"))
	for i := 0; i < 500 && len(Holders(dir)) == 0; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	w := Watch{LockDir: dir}
	w.AddAll([]int{0}, []Stat{{}}, []Stat{{busy: 100, total: 100}}, 0)
	w.AddAll([]int{0}, []Stat{{}}, []Stat{{busy: 100, total: 100}}, 0)
	got := w.Result()
	if got == nil || len(got.OtherRuns) != 1 {
		t.Fatalf("Result() = %+v, want one other run", got)
	}
	want := fmt.Sprintf("PID %d: ", cmd.Process.Pid)
	if got.OtherRuns[0].Pid != cmd.Process.Pid || len(got.OtherRuns[0].Argv) == 0 || got.OtherRuns[0].Argv[0] != "flock" || !strings.Contains(got.OtherRunsText(), "another seccompbench run measured at the same time ("+want) {
		t.Errorf("other runs %q, text %q; want %q...", got.OtherRuns, got.OtherRunsText(), want)
	}
	var none Watch
	none.AddAll([]int{0}, []Stat{{}}, []Stat{{busy: 1, total: 1}}, 0)
	if r := none.Result(); len(r.OtherRuns) != 0 || r.OtherRunsText() != "" {
		t.Errorf("a watch without a lock directory names %q", r.OtherRuns)
	}
}

// holdLock has another process hold an exclusive flock(2) lock on path
// (util-linux flock(1) running sleep) until the test ends; it skips the
// test without /proc/locks or flock(1).
func holdLock(t *testing.T, path string) *exec.Cmd {
	t.Helper()
	if _, err := os.Stat("/proc/locks"); err != nil {
		t.Skip("no /proc/locks")
	}
	bin, err := exec.LookPath("flock")
	if err != nil {
		t.Skip("no flock(1)")
	}
	if err := os.WriteFile(path, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--exclusive", path, "sleep", "10")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}
