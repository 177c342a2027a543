package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// inSession returns the processes, zombies included, whose session is
// sid (field 6 of /proc/PID/stat), each as "pid (comm) state ppid".
func inSession(sid int) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		head, f := procStat(e.Name())
		if len(f) > 3 && f[3] == strconv.Itoa(sid) {
			out = append(out, head+" "+f[0]+" "+f[1])
		}
	}
	return out
}

// TestInterruptedCommandRun interrupts a command-workload run whose
// command leaves a background process behind at every run (one in the
// run's process group, one in a session of its own when setsid(1)
// exists), and checks that once seccompbench has exited with 128 + the
// signal's number, no process it started exists: none of the pids the
// command wrote, and nothing in seccompbench's session, not even a
// zombie waiting for PID 1 to reap it.
func TestInterruptedCommandRun(t *testing.T) {
	bin := buildBinary(t)
	script := "echo $$ >> %s; sleep 30 >/dev/null 2>&1 & echo $! >> %s; "
	if _, err := exec.LookPath("setsid"); err == nil {
		script += "setsid sleep 30 >/dev/null 2>&1 & echo $! >> %s; "
	}
	script += "sleep 0.01 | cat"
	for _, tt := range []struct {
		name string
		sig  syscall.Signal
		code int
	}{
		{"SIGINT", syscall.SIGINT, 130},
		{"SIGTERM", syscall.SIGTERM, 143},
	} {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "pids")
			cmd := exec.Command(bin, "run", "docker-default", "--filters", "0,1", "--cache", "on", "--workload", "command",
				"--trials", "200", "-q", "--format", "json", "--", "sh", "-c", strings.ReplaceAll(script, "%s", file))
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			// A session of its own: every process it starts stays in it
			// unless it calls setsid, whose pids the command writes.
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Interrupt once several runs have left their processes: an
			// event (pids written), not a delay.
			deadline := time.Now().Add(2 * time.Minute)
			for {
				b, _ := os.ReadFile(file)
				if len(strings.Fields(string(b))) >= 30 {
					break
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatalf("fewer than 30 pids written within 2 minutes; stderr:\n%s", stderr.String())
				}
				time.Sleep(2 * time.Millisecond)
			}
			if err := cmd.Process.Signal(tt.sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != tt.code {
				t.Errorf("exit code %d (%v), want %d; stderr:\n%s", code, err, tt.code, stderr.String())
			}
			if left := inSession(cmd.Process.Pid); len(left) > 0 {
				t.Errorf("processes of the run left in its session: %v", left)
			}
			b, _ := os.ReadFile(file)
			for _, w := range strings.Fields(string(b)) {
				if stat, err := os.ReadFile("/proc/" + w + "/stat"); err == nil {
					t.Errorf("process %s written by the command survives: %s", w, strings.Fields(string(stat))[:4])
				}
			}
		})
	}
}
