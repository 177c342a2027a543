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
// once children are running, and checks: exit code 130, a partial result
// only with -o and marked as such (JSON "partial": true, table header), no
// process of the run left, no temporary file left.
func TestInterruptedRun(t *testing.T) {
	bin := buildBinary(t)
	tests := []struct {
		name   string
		sig    syscall.Signal
		group  bool // signal the whole process group, as Ctrl-C on a terminal does
		args   []string
		output string // -o file name, "" for none
		check  func(t *testing.T, data []byte)
	}{
		{name: "SIGINT, JSON", sig: syscall.SIGINT, args: []string{"--format", "json"}, output: "out.json", check: func(t *testing.T, data []byte) {
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
		}},
		{name: "SIGTERM, table", sig: syscall.SIGTERM, output: "out.txt", check: func(t *testing.T, data []byte) {
			if !bytes.HasPrefix(data, []byte("*** PARTIAL RESULT")) {
				t.Errorf("table header does not say partial:\n%.300s", data)
			}
		}},
		{name: "SIGHUP (ssh session dropped), JSON", sig: syscall.SIGHUP, args: []string{"--format", "json"}, output: "out.json", check: func(t *testing.T, data []byte) {
			if !bytes.Contains(data, []byte(`"partial": true`)) {
				t.Errorf("JSON not marked partial:\n%.300s", data)
			}
		}},
		{name: "SIGINT without -o", sig: syscall.SIGINT},
		{name: "Ctrl-C: SIGINT to the process group", sig: syscall.SIGINT, group: true, args: []string{"--format", "json"}, output: "out.json", check: func(t *testing.T, data []byte) {
			if !bytes.Contains(data, []byte(`"partial": true`)) {
				t.Errorf("JSON not marked partial:\n%.300s", data)
			}
		}},
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
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: tt.group}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Wait until children measure (the exec fixture exists and a
			// child of the run is alive), then a little more.
			deadline := time.Now().Add(20 * time.Second)
			for {
				fx, _ := filepath.Glob(filepath.Join(tmp, "seccompbench-exec-*"))
				if len(fx) > 0 && len(marked(mark, "")) > 1 {
					break
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatalf("no child started within 20 s; stderr:\n%s", stderr.String())
				}
				time.Sleep(10 * time.Millisecond)
			}
			time.Sleep(time.Second)
			target := cmd.Process.Pid
			if tt.group {
				target = -target
			}
			if err := syscall.Kill(target, tt.sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatalf("still running 30 s after %v; stderr:\n%s", tt.sig, stderr.String())
			}
			if code := cmd.ProcessState.ExitCode(); code != 130 {
				t.Errorf("exit code %d, want 130; stderr:\n%s", code, stderr.String())
			}
			if !strings.Contains(stderr.String(), "interrupted") || strings.Contains(stderr.String(), "panic") {
				t.Errorf("stderr:\n%s", stderr.String())
			}
			if left := marked(mark, tmp); len(left) != 0 {
				t.Errorf("processes of the run left: %v", left)
			}
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Errorf("temporary files left in $TMPDIR: %v", left)
			}
			if tt.output == "" {
				if stdout.Len() != 0 || !strings.Contains(stderr.String(), "no result written") {
					t.Errorf("without -o: stdout %q, stderr:\n%s", stdout.String(), stderr.String())
				}
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
			err = runner.ExecUnder([][]byte{allowAll}, false, []string{exe}, env)
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
