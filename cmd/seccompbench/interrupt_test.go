package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/seccompbench/seccompbench/runner"
	"github.com/seccompbench/seccompbench/runner/sandbox"
)

// buildBinary builds the command into a temporary directory, as a user
// would (README: CGO_ENABLED=0 go build).
func buildBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "seccompbench")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// marked returns the PIDs of live processes whose environment holds mark,
// and of those whose executable lies under dir: the children of a run
// inherit its environment, the exec workload's programs live in its
// temporary directory.
func marked(mark, dir string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		exe, _ := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if bytes.Contains(env, []byte(mark)) || (dir != "" && strings.HasPrefix(exe, dir)) {
			out = append(out, pid)
		}
	}
	return out
}

// TestInterruptedRun starts the built binary on a long run, interrupts it
// once children have finished, and checks: exit code 128 + the signal's
// number, a partial result marked as such (JSON "partial": true, table
// header) in the -o file or, without -o, on stdout; no process of the run
// left, no temporary file left.
func TestInterruptedRun(t *testing.T) {
	bin := buildBinary(t)
	partialJSON := func(t *testing.T, data []byte) {
		var doc struct {
			Partial bool              `json:"partial"`
			Results []json.RawMessage `json:"results"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("partial JSON does not decode: %v", err)
		}
		if !doc.Partial || len(doc.Results) == 0 {
			t.Errorf("partial %v with %d results, want true with some", doc.Partial, len(doc.Results))
		}
	}
	partialTable := func(t *testing.T, data []byte) {
		if !bytes.HasPrefix(data, []byte("*** PARTIAL RESULT: the run was interrupted")) || !bytes.Contains(data, []byte("\npolicy: PARTIAL")) {
			t.Errorf("table header does not say partial:\n%.300s", data)
		}
	}
	tests := []struct {
		name     string
		sig      syscall.Signal
		wantCode int
		group    bool // signal the whole process group, as Ctrl-C on a terminal does
		double   bool // then signal the group too at once, as timeout(1) does
		args     []string
		output   string // -o file name, "" for stdout
		check    func(t *testing.T, data []byte)
	}{
		{name: "SIGINT, JSON", sig: syscall.SIGINT, wantCode: 130, args: []string{"--format", "json"}, output: "out.json", check: partialJSON},
		{name: "SIGTERM, table", sig: syscall.SIGTERM, wantCode: 143, output: "out.txt", check: partialTable},
		{name: "SIGHUP (ssh session dropped), JSON", sig: syscall.SIGHUP, wantCode: 129, args: []string{"--format", "json"}, output: "out.json", check: partialJSON},
		{name: "SIGINT without -o: partial table on stdout", sig: syscall.SIGINT, wantCode: 130, check: partialTable},
		{name: "SIGTERM without -o, JSON on stdout", sig: syscall.SIGTERM, wantCode: 143, args: []string{"--format", "json"}, check: partialJSON},
		{name: "Ctrl-C: SIGINT to the process group", sig: syscall.SIGINT, wantCode: 130, group: true, args: []string{"--format", "json"}, output: "out.json", check: partialJSON},
		{name: "timeout -s INT: SIGINT to the process, then its group", sig: syscall.SIGINT, wantCode: 130, double: true, args: []string{"--format", "json"}, output: "out.json", check: partialJSON},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			tmp := filepath.Join(dir, "tmp")
			if err := os.Mkdir(tmp, 0o755); err != nil {
				t.Fatal(err)
			}
			mark := fmt.Sprintf("SECCOMPBENCH_TEST_MARK=%d-%d", os.Getpid(), time.Now().UnixNano())
			args := append([]string{"run", "--workload", "exec", "--trials", "200", "-q"}, tt.args...)
			if tt.output != "" {
				args = append(args, "-o", filepath.Join(dir, tt.output))
			}
			cmd := exec.Command(bin, args...)
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp, mark)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: tt.group || tt.double}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Wait for an event, not a delay: children run one at a
			// time and only the first (calibration) does not count, so
			// once five distinct children have been seen, several
			// measured children have finished and a partial result
			// exists (three was seen to be too few, so five leaves
			// room). However loaded the machine, this only takes longer.
			seen := map[int]bool{}
			deadline := time.Now().Add(2 * time.Minute)
			for len(seen) < 5 {
				for _, pid := range childrenOf(cmd.Process.Pid) {
					seen[pid] = true
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatalf("saw %d children within 2 minutes, want 5; stderr:\n%s", len(seen), stderr.String())
				}
				time.Sleep(2 * time.Millisecond)
			}
			target := cmd.Process.Pid
			if tt.group {
				target = -target
			}
			if err := syscall.Kill(target, tt.sig); err != nil {
				t.Fatal(err)
			}
			if tt.double {
				if err := syscall.Kill(-target, tt.sig); err != nil {
					t.Fatal(err)
				}
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(60 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatalf("still running 60 s after %v; stderr:\n%s", tt.sig, stderr.String())
			}
			if code := cmd.ProcessState.ExitCode(); code != tt.wantCode {
				t.Errorf("exit code %d, want %d; stderr:\n%s", code, tt.wantCode, stderr.String())
			}
			// "panic:" and not "panic": the CPU-lock wait line names the
			// other holder's command line, and a go test binary's has
			// -test.paniconexit0 in it.
			if !strings.Contains(stderr.String(), "interrupted") || strings.Contains(stderr.String(), "panic:") {
				t.Errorf("stderr:\n%s", stderr.String())
			}
			if left := marked(mark, tmp); len(left) != 0 {
				t.Errorf("processes of the run left: %v", left)
			}
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Errorf("temporary files left in $TMPDIR: %v", left)
			}
			if tt.output == "" {
				if !strings.Contains(stderr.String(), "partial result printed above") {
					t.Errorf("without -o, stderr does not point to the partial result:\n%s", stderr.String())
				}
				tt.check(t, stdout.Bytes())
				return
			}
			data, err := os.ReadFile(filepath.Join(dir, tt.output))
			if err != nil {
				t.Fatalf("no partial result: %v; stderr:\n%s", err, stderr.String())
			}
			tt.check(t, data)
			if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) != 0 {
				t.Errorf("temporary output files left: %v", left)
			}
		})
	}
}

// TestFirstSignalEndsBlockedInput: a command blocked opening an input (a
// FIFO without a writer blocks open(2)) exits on the first signal with
// 128 + its number, as single-signal stoppers (timeout, service managers,
// CI) expect.
func TestFirstSignalEndsBlockedInput(t *testing.T) {
	bin := buildBinary(t)
	tests := []struct {
		name     string
		args     []string
		sig      syscall.Signal
		wantCode int
	}{
		{"lint, SIGTERM (timeout 10 seccompbench lint f)", []string{"lint", "FIFO"}, syscall.SIGTERM, 143},
		{"compile, SIGINT", []string{"compile", "FIFO"}, syscall.SIGINT, 130},
		{"simulate, SIGHUP", []string{"simulate", "FIFO", "--all"}, syscall.SIGHUP, 129},
		{"run, SIGTERM", []string{"run", "FIFO", "-q"}, syscall.SIGTERM, 143},
		{"compare, SIGINT", []string{"compare", "FIFO", "FIFO"}, syscall.SIGINT, 130},
		{"report, SIGTERM", []string{"report", "FIFO"}, syscall.SIGTERM, 143},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fifo := filepath.Join(t.TempDir(), "f")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skip("mkfifo:", err)
			}
			var args []string
			for _, a := range tt.args {
				args = append(args, strings.ReplaceAll(a, "FIFO", fifo))
			}
			cmd := exec.Command(bin, args...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Wait until the process is blocked in open(2) on the FIFO:
			// its /proc/PID/syscall names openat (257 on x86_64) with
			// the path, or wchan says it sleeps in fifo_open.
			deadline := time.Now().Add(time.Minute)
			for !blockedOnFIFO(cmd.Process.Pid) {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatalf("not blocked on the FIFO within a minute; stderr:\n%s", stderr.String())
				}
				time.Sleep(5 * time.Millisecond)
			}
			if err := cmd.Process.Signal(tt.sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatalf("still blocked 30 s after one %v; stderr:\n%s", tt.sig, stderr.String())
			}
			if code := cmd.ProcessState.ExitCode(); code != tt.wantCode {
				t.Errorf("exit code %d, want %d; stderr:\n%s", code, tt.wantCode, stderr.String())
			}
			if !strings.Contains(stderr.String(), "interrupted by") {
				t.Errorf("stderr does not say it was interrupted:\n%s", stderr.String())
			}
		})
	}
}

// childrenOf returns the PIDs of the live processes whose parent is pid
// (the measuring children of a run, not the exec workload's programs).
func childrenOf(pid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		_, f := procStat(e.Name())
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, p)
		}
	}
	return out
}

// blockedOnFIFO reports whether some thread of pid sleeps in fifo_open.
func blockedOnFIFO(pid int) bool {
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	for _, task := range tasks {
		w, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/wchan", pid, task.Name()))
		if strings.Contains(string(w), "fifo_open") || strings.Contains(string(w), "wait_for_partner") {
			return true
		}
	}
	return false
}

// Environment hooks for TestRunUnderInheritedFilter: the test binary
// re-executes itself under an allow-all filter and runs the command there.
// (init runs before TestMain, so measuring children, which inherit this
// environment, must be let through first.)
const (
	envUnderFilter = "SECCOMPBENCH_TEST_UNDER_FILTER"
	envRunArgs     = "SECCOMPBENCH_TEST_RUN_ARGS"
)

func init() {
	if runner.IsChild() || os.Getenv(envRunArgs) == "" {
		return
	}
	if os.Getenv(envUnderFilter) == "1" {
		exe, err := os.Executable()
		if err == nil {
			var env []string
			for _, kv := range os.Environ() {
				if !strings.HasPrefix(kv, envUnderFilter+"=") {
					env = append(env, kv)
				}
			}
			allowAll := []byte{0x06, 0, 0, 0, 0, 0, 0xff, 0x7f} // ret ALLOW
			err = sandbox.ExecUnder([][]byte{allowAll}, false, []string{exe}, env)
		}
		fmt.Fprintln(os.Stderr, "exec under a filter:", err)
		os.Exit(99)
	}
	var args []string
	if err := json.Unmarshal([]byte(os.Getenv(envRunArgs)), &args); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(99)
	}
	os.Exit(run(args, os.Stdin, os.Stdout, os.Stderr))
}

// Inside a container that already filters (simulated: this binary
// re-executed under an allow-all filter), run still measures, counts the
// inherited filter in the environment and says the baseline is "inherited
// filters only".
func TestRunUnderInheritedFilter(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc")
	}
	before := inheritedHere(t)
	dir := t.TempDir()
	jsonOut, tableOut := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.txt")
	args, _ := json.Marshal([]string{"run", "--filters", "0,1,2", "--workload", "getpid", "--trials", "2", "--iterations", "100", "--samples", "2", "-q", "-o", jsonOut, "-o", tableOut})
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), envUnderFilter+"=1", envRunArgs+"="+string(args))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("run under a filter: %v\n%s", err, out)
	}
	data, err := os.ReadFile(jsonOut)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Environment struct {
			ParentSeccompFilters int `json:"parent_seccomp_filters"`
		} `json:"environment"`
		Results []struct {
			Filters int `json:"filters"`
			N       int `json:"n"`
		} `json:"results"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if got, want := doc.Environment.ParentSeccompFilters, before+1; got != want {
		t.Errorf("parent_seccomp_filters = %d, want %d", got, want)
	}
	if len(doc.Results) != 6 {
		t.Errorf("%d results, want 6 (2 variants x 3 counts)", len(doc.Results))
	}
	table, _ := os.ReadFile(tableOut)
	if want := fmt.Sprintf("already has %d inherited seccomp filters", before+1); !bytes.Contains(table, []byte(want)) || !bytes.Contains(table, []byte(`baseline is "inherited filters only"`)) {
		t.Errorf("table lacks the inherited-filters note %q:\n%.600s", want, table)
	}
}

// inheritedHere returns Seccomp_filters of this process (0 if unknown).
func inheritedHere(t *testing.T) int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "Seccomp_filters:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return 0
}

// procStat reads /proc/PID/stat of the process named by the /proc entry
// name: head is "pid (comm)", fields what follows (state, ppid, pgrp,
// session, ...). comm may hold spaces and parentheses, so the line is cut
// at its last ')'. Both are empty when the process has gone.
func procStat(name string) (head string, fields []string) {
	stat, _ := os.ReadFile(filepath.Join("/proc", name, "stat"))
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return "", nil
	}
	return string(stat[:i+1]), strings.Fields(string(stat[i+1:]))
}
