package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/report/document"
)

// startSignalled starts bin with args in a session of its own and
// returns it with its standard output and error, once a line of its
// standard error contains mark (an event, not a delay) and, when
// pidFile is not "", the command it measures has written at least one
// pid there: the caller then signals it.
func startSignalled(t *testing.T, bin string, args []string, mark, pidFile string) (cmd *exec.Cmd, stdout, stderr *lockedBuffer) {
	t.Helper()
	cmd = exec.Command(bin, args...)
	stdout, stderr = &lockedBuffer{}, &lockedBuffer{}
	cmd.Stdout = stdout
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	seen, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		var once sync.Once
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			stderr.Write(append(sc.Bytes(), '\n'))
			if strings.Contains(sc.Text(), mark) {
				once.Do(func() { close(seen) })
			}
		}
	}()
	deadline := time.After(3 * time.Minute)
	select {
	case <-seen:
	case <-ended:
		cmd.Wait()
		t.Fatalf("exited (%v) before %q on stderr; stderr:\n%s", cmd.ProcessState, mark, stderr.String())
	case <-deadline:
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("no %q on stderr within 3 minutes; stderr:\n%s", mark, stderr.String())
	}
	for pidFile != "" {
		if b, _ := os.ReadFile(pidFile); len(bytes.Fields(b)) > 0 {
			break
		}
		select {
		case <-deadline:
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the command wrote no pid within 3 minutes; stderr:\n%s", stderr.String())
		case <-time.After(2 * time.Millisecond):
		}
	}
	return cmd, stdout, stderr
}

// lockedBuffer is a bytes.Buffer safe for one writer and one reader.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestInterruptedEstimateCommand interrupts estimate --command while it
// measures the command (docs/limits.md: an interrupted measurement writes
// what it has): exit 128 + the signal's number, the prediction written to
// -o (JSON: "partial": true, the total, no validation, the PARTIAL
// warning) or to stdout (the text's PARTIAL line), and nothing the command
// started left running. Interrupted before the prediction exists (while
// calibrating) it writes nothing and exits the same way.
func TestInterruptedEstimateCommand(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	profile := filepath.Join(dir, "p.csv")
	if err := os.WriteFile(profile, []byte("syscall,count\ngetpid,100\nread,50\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		sig    syscall.Signal
		code   int
		out    bool // -o FILE, else stdout
		format string
	}{
		{"SIGINT -o json", syscall.SIGINT, 130, true, "json"},
		{"SIGTERM stdout text", syscall.SIGTERM, 143, false, "table"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pids := filepath.Join(t.TempDir(), "pids")
			out := filepath.Join(t.TempDir(), "est.json")
			args := []string{"estimate", "default", "--profile", profile, "--process-term=false", "--calibration-trials", "2", "--trials", "200", "--command"}
			if tt.out {
				args = append(args, "-o", out)
			} else {
				args = append(args, "--format", tt.format)
			}
			args = append(args, "--", "sh", "-c", "echo $$ >> "+pids+"; sleep 30 >/dev/null 2>&1 & echo $! >> "+pids+"; sleep 0.01")
			cmd, stdout, stderr := startSignalled(t, bin, args, "measuring: `sh", pids)
			if err := cmd.Process.Signal(tt.sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != tt.code {
				t.Errorf("exit code %d (%v), want %d; stderr:\n%s", code, err, tt.code, stderr.String())
			}
			if !strings.Contains(stderr.String(), "estimate interrupted while measuring the command; partial estimate") {
				t.Errorf("stderr does not say where the partial estimate went:\n%s", stderr.String())
			}
			if left := inSession(cmd.Process.Pid); len(left) > 0 {
				t.Errorf("processes left in the estimate's session: %v", left)
			}
			b, _ := os.ReadFile(pids)
			for _, w := range strings.Fields(string(b)) {
				if stat, err := os.ReadFile("/proc/" + w + "/stat"); err == nil {
					t.Errorf("process %s the command started survives: %s", w, strings.Fields(string(stat))[:4])
				}
			}
			if !tt.out {
				text := stdout.String()
				if !strings.HasPrefix(text, "*** "+report.EstimatePartialText+" ***") || !strings.Contains(text, "per-filter:") {
					t.Errorf("stdout is not the prediction marked partial:\n%s", text)
				}
				return
			}
			if s := stdout.String(); s != "" {
				t.Errorf("stdout with -o: %q", s)
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatalf("no -o file: %v; stderr:\n%s", err, stderr.String())
			}
			var e document.Estimate
			if err := json.Unmarshal(data, &e); err != nil {
				t.Fatal(err)
			}
			if !e.Partial || e.Validation != nil || e.Total.Calls != 150 || len(e.Syscalls) != 2 || len(e.Warnings) == 0 || e.Warnings[0] != report.EstimatePartialText {
				t.Errorf("-o JSON: partial %v, validation %v, total calls %d, %d syscalls, warnings %q; want the whole prediction of 150 calls marked partial, no validation",
					e.Partial, e.Validation, e.Total.Calls, len(e.Syscalls), e.Warnings)
			}
		})
	}
	t.Run("SIGINT while calibrating", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "est.json")
		args := []string{"estimate", "default", "--profile", profile, "--calibration-trials", "500", "-o", out, "--command", "--", "true"}
		cmd, stdout, stderr := startSignalled(t, bin, args, "calibrating:", "")
		if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		if code := cmd.ProcessState.ExitCode(); code != 130 {
			t.Errorf("exit code %d, want 130; stderr:\n%s", code, stderr.String())
		}
		if _, err := os.Stat(out); err == nil || stdout.String() != "" {
			t.Errorf("interrupted before the prediction, something was written: -o file %v, stdout %q", err, stdout.String())
		}
		if left := inSession(cmd.Process.Pid); len(left) > 0 {
			t.Errorf("processes left in the estimate's session: %v", left)
		}
	})
}
