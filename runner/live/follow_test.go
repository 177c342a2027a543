package live

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/seccompbench/seccompbench/internal/kstack"
	"github.com/seccompbench/seccompbench/internal/testutils"
)

// shLoop runs /bin/true over and over: every iteration forks a new
// process, which makes a few dozen syscalls under the inherited filters.
const shLoop = `i=0; while [ $i -lt 100000 ]; do /bin/true; i=$((i+1)); done`

// childShLoop installs the defeated stack and execs /bin/sh running
// shLoop.
func childShLoop() {
	installDefeated()
	err := syscall.Exec("/bin/sh", []string{"sh", "-c", shLoop}, os.Environ())
	os.Stderr.WriteString("exec /bin/sh: " + err.Error() + "\n")
	os.Exit(6)
}

// TestFollowRealKernel samples this test process with Follow and starts a
// child after the session is open: the child installs 8 uncached filters
// and execs a /bin/sh loop that forks /bin/true. The session, given only
// this process's ID, must sample the shell and its /bin/true processes
// (IDs unknown when it opened) and find seccomp samples among them.
func TestFollowRealKernel(t *testing.T) {
	requireLive(t)
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	s, err := Open(Options{Pids: []int{os.Getpid()}, Follow: true, Frequency: 499})
	testutils.SkipIfNotSupported(t, err, ErrNotSupported, "5.15", "BPF sampling with fork following (kernel BTF)")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=shloop")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	sh := uint32(cmd.Process.Pid)

	c := testClassifier(t)
	self := uint32(os.Getpid())
	descendants := map[uint32]bool{}
	var shSamples, seccomp int
	deadline := time.Now().Add(30 * time.Second)
	for (seccomp < 5 || len(descendants) < 3) && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		s.Flush()
		got, err := s.Take()
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			switch got[i].Tgid {
			case self:
				continue
			case sh:
				shSamples++
			default:
				descendants[got[i].Tgid] = true
			}
			if c.Classify(&got[i]).Class == kstack.ClassSeccomp {
				seccomp++
			}
		}
	}
	if shSamples == 0 {
		t.Errorf("no sample of the child (pid %d) started after Open", sh)
	}
	if len(descendants) < 3 {
		t.Errorf("samples of %d processes the shell forked in 30 s, want ≥ 3: fork following does not work", len(descendants))
	}
	if seccomp < 5 {
		t.Errorf("%d seccomp samples of a /bin/sh loop under 8 uncached filters in 30 s, want ≥ 5", seccomp)
	}
	t.Logf("%d samples of the shell, %d processes it forked sampled, %d seccomp samples, %d lost", shSamples, len(descendants), seccomp, s.Lost())
}

// TestTaskTgidOffset reads the offset of tgid from the running kernel's
// BTF: pid_t-aligned and past the first members.
func TestTaskTgidOffset(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/btf/vmlinux"); err != nil {
		t.Skip("no kernel BTF (CONFIG_DEBUG_INFO_BTF)")
	}
	off, err := taskTgidOffset()
	if err != nil {
		t.Fatal(err)
	}
	// pid and tgid are adjacent pid_t members of struct task_struct
	// (include/linux/sched.h), deep inside it.
	if off < 64 || off%4 != 0 {
		t.Errorf("tgid at byte %d of struct task_struct", off)
	}
}
