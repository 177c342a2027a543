package runner

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// skipUnlessLimitWritable skips unless SECCOMPBENCH_JIT_LIMIT_TESTS=1 asks
// for tests that change the host's bpf_jit_limit and this process may
// write it (root with CAP_SYS_ADMIN). These tests lower the limit by one
// page (4096 of ~500 MB by default) for milliseconds; without the opt-in
// they never write it, not even its own value back.
func skipUnlessLimitWritable(t *testing.T) int64 {
	t.Helper()
	if os.Getenv("SECCOMPBENCH_JIT_LIMIT_TESTS") != "1" {
		t.Skip("changes the host's bpf_jit_limit: set SECCOMPBENCH_JIT_LIMIT_TESTS=1 to run")
	}
	orig, err := readJITLimit()
	if err != nil {
		t.Skip(err)
	}
	if err := writeJITLimit(orig); err != nil {
		t.Skipf("cannot write bpf_jit_limit: %v", err)
	}
	return orig
}

const guardChildEnv = "SECCOMPBENCH_GUARD_CHILD"

// A process killed by SIGTERM while the limit is lowered restores it: the
// guard's handler writes the original back, then lets the signal kill the
// process.
func TestLimitGuardRestoresOnSignal(t *testing.T) {
	if os.Getenv(guardChildEnv) == "1" {
		g, _, err := newLimitGuard()
		if err != nil {
			os.Exit(5)
		}
		if err := g.Set(g.orig - 4096); err != nil {
			os.Exit(6)
		}
		os.Stdout.WriteString("lowered\n")
		syscall.Kill(os.Getpid(), syscall.SIGTERM)
		time.Sleep(5 * time.Second)
		os.Exit(7) // the signal should have ended the process
	}
	orig := skipUnlessLimitWritable(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestLimitGuardRestoresOnSignal$")
	cmd.Env = append(os.Environ(), guardChildEnv+"=1")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("child: err %v, want killed by SIGTERM; output:\n%s", err, out)
	}
	ws := ee.Sys().(syscall.WaitStatus)
	if !strings.Contains(string(out), "lowered") || !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Errorf("child: %v (signaled %v); want it killed by SIGTERM after lowering; output:\n%s", err, ws.Signaled(), out)
	}
	if got, _ := readJITLimit(); got != orig {
		writeJITLimit(orig)
		t.Fatalf("bpf_jit_limit = %d after the signal, want %d restored", got, orig)
	}
	if _, err := os.Stat(jitStateFile); err == nil {
		t.Errorf("state file %s left behind", jitStateFile)
	}
}

// A guard finding the state file of a killed run (SIGKILL cannot be
// caught) restores the saved limit first.
func TestLimitGuardRecoversStateFile(t *testing.T) {
	orig := skipUnlessLimitWritable(t)
	if err := os.WriteFile(jitStateFile, []byte(strconv.FormatInt(orig, 10)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := writeJITLimit(orig - 4096); err != nil {
		t.Fatal(err)
	}
	g, note, err := newLimitGuard()
	if err != nil {
		writeJITLimit(orig)
		t.Fatal(err)
	}
	defer g.Restore()
	if got, _ := readJITLimit(); got != orig || g.orig != orig {
		writeJITLimit(orig)
		t.Fatalf("limit %d, guard's original %d; want %d restored from the state file", got, g.orig, orig)
	}
	if !strings.Contains(note, "interrupted run") {
		t.Errorf("note = %q, want it to say a limit was restored", note)
	}
	// Restore without a change leaves the limit alone; Set refuses to raise.
	if err := g.Set(orig + 1); err == nil {
		t.Error("Set above the original limit succeeded")
	}
	if err := g.Restore(); err != nil {
		t.Fatal(err)
	}
	if got, _ := readJITLimit(); got != orig {
		t.Errorf("limit %d after Restore, want %d", got, orig)
	}
}
