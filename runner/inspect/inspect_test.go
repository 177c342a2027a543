package inspect

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/runner/internal/kerneltest"
	"github.com/seccompbench/seccompbench/runner/internal/sys"
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/runner/sandbox"
)

// inspectHelperEnv turns the test binary into a helper process for the
// inspect tests (checked in init, before TestMain):
//
//   - "target": read a JSON [][]byte of filters from the first stdin line,
//     install them oldest first (no_new_privs, SECCOMP_FILTER_FLAG_TSYNC so
//     the thread-group leader has them), print "ready", then answer each
//     further stdin line L with "ok:L" until EOF;
//   - "inspector": dump the filters of the pid in SECCOMPBENCH_INSPECT_PID
//     after making itself unfit to do so (SECCOMPBENCH_INSPECT_HOW is
//     "seccomp": install an allow-all filter on itself; "nocap": drop
//     CAP_SYS_ADMIN from the dumping thread's effective set), and print the
//     outcome as JSON;
//   - "sandbox": ExecUnder the JSON [][]byte in SECCOMPBENCH_INSPECT_STACK
//     with cat(1), which then echoes stdin.
const inspectHelperEnv = "SECCOMPBENCH_INSPECT_HELPER"

func init() {
	switch os.Getenv(inspectHelperEnv) {
	case "target":
		inspectTarget()
	case "inspector":
		inspectInspector()
	case "sandbox":
		var stack [][]byte
		if err := json.Unmarshal([]byte(os.Getenv("SECCOMPBENCH_INSPECT_STACK")), &stack); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		err := sandbox.ExecUnder(stack, false, []string{"cat"}, os.Environ())
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}

func installTSync(f []byte) error {
	_, err := kerneltest.InstallFilters([][]byte{f}, sys.FlagTSync)
	return err
}

func inspectTarget() {
	in := bufio.NewReader(os.Stdin)
	line, err := in.ReadBytes('\n')
	if err != nil {
		fmt.Fprintln(os.Stderr, "read filters:", err)
		os.Exit(2)
	}
	var fs [][]byte
	if err := json.Unmarshal(line, &fs); err != nil {
		fmt.Fprintln(os.Stderr, "decode filters:", err)
		os.Exit(2)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		fmt.Fprintln(os.Stderr, "no_new_privs:", err)
		os.Exit(2)
	}
	for i, f := range fs {
		if err := installTSync(f); err != nil {
			fmt.Fprintf(os.Stderr, "install filter %d: %v\n", i, err)
			os.Exit(2)
		}
	}
	fmt.Println("ready")
	for {
		l, err := in.ReadString('\n')
		if err != nil {
			os.Exit(0)
		}
		fmt.Println("ok:" + strings.TrimSpace(l))
	}
}

// inspectorResult is what the "inspector" helper prints.
type inspectorResult struct {
	Filters int    `json:"filters"`
	Errno   int    `json:"errno"`
	Denied  bool   `json:"denied"`
	Msg     string `json:"msg"`
}

func inspectInspector() {
	pid, _ := strconv.Atoi(os.Getenv("SECCOMPBENCH_INSPECT_PID"))
	runtime.LockOSThread()
	switch os.Getenv("SECCOMPBENCH_INSPECT_HOW") {
	case "seccomp":
		allowAll, _ := bpf.Assemble([]bpf.Instruction{bpf.RetConstant{Val: uint32(filters.ActionAllow)}})
		p := &filters.Program{Insns: allowAll}
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		if err := installTSync(p.Bytes()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	case "nocap":
		hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
		var data [2]unix.CapUserData
		if err := unix.Capget(&hdr, &data[0]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		data[0].Effective &^= 1 << unix.CAP_SYS_ADMIN
		if err := unix.Capset(&hdr, &data[0]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	fs, err := DumpFilters(pid)
	r := inspectorResult{Filters: len(fs)}
	if err != nil {
		r.Msg = err.Error()
		r.Denied = errors.Is(err, ErrDumpDenied)
		var errno unix.Errno
		if errors.As(err, &errno) {
			r.Errno = int(errno)
		}
	}
	json.NewEncoder(os.Stdout).Encode(r)
	os.Exit(0)
}

// target is a running helper process with a known stack.
type target struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startTarget(t *testing.T, stack [][]byte) *target {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), inspectHelperEnv+"=target")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tg := &target{cmd: cmd, in: in, out: bufio.NewReader(out)}
	t.Cleanup(func() {
		in.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	line, _ := json.Marshal(stack)
	fmt.Fprintf(in, "%s\n", line)
	ready, err := tg.out.ReadString('\n')
	if err != nil || ready != "ready\n" {
		t.Fatalf("target did not start: %q %v; stderr: %s", ready, err, stderr.String())
	}
	return tg
}

// ping checks that the target still runs and answers.
func (tg *target) ping(t *testing.T) {
	t.Helper()
	fmt.Fprintln(tg.in, "ping")
	got, err := tg.out.ReadString('\n')
	if err != nil || got != "ok:ping\n" {
		t.Errorf("target answered %q, %v; want \"ok:ping\"", got, err)
	}
}

// checkDetached asserts that the target has no tracer and is not stopped.
func checkDetached(t *testing.T, pid int) {
	t.Helper()
	st, err := ReadProcStatus(pid)
	if err != nil {
		t.Fatal(err)
	}
	if st.TracerPid != 0 {
		t.Errorf("TracerPid = %d after the dump, want 0", st.TracerPid)
	}
	if strings.HasPrefix(st.State, "t") || strings.HasPrefix(st.State, "T") {
		t.Errorf("State = %q after the dump, want running or sleeping", st.State)
	}
}

func canDump(t *testing.T) {
	t.Helper()
	st, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc")
	}
	ps, _ := sys.ParseProcStatus(st)
	if ps.SeccompMode != 0 {
		t.Skipf("the test process is in seccomp mode %d; the kernel refuses filter dumps (EACCES)", ps.SeccompMode)
	}
	for _, line := range strings.Split(string(st), "\n") {
		if v, ok := strings.CutPrefix(line, "CapEff:"); ok {
			caps, _ := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			if caps&(1<<unix.CAP_SYS_ADMIN) == 0 {
				t.Skip("needs CAP_SYS_ADMIN")
			}
		}
	}
}

// testFilter returns an allow-all filter whose bytes depend on k: it
// returns ERRNO(1) for the (nonexistent) syscall number k.
func testFilter(t *testing.T, k uint32) []byte {
	t.Helper()
	raw, err := bpf.Assemble([]bpf.Instruction{
		bpf.LoadAbsolute{Off: filters.OffsetNr, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: k, SkipFalse: 1},
		bpf.RetConstant{Val: uint32(filters.ActionErrno) | 1},
		bpf.RetConstant{Val: uint32(filters.ActionAllow)},
	})
	if err != nil {
		t.Fatal(err)
	}
	return (&filters.Program{Insns: raw}).Bytes()
}

func TestDumpFilters(t *testing.T) {
	canDump(t)
	a, b, c := testFilter(t, 100000), testFilter(t, 100001), testFilter(t, 100002)
	tests := []struct {
		name  string
		stack [][]byte
	}{
		{"one", [][]byte{a}},
		{"distinct order", [][]byte{a, b, c}},
		{"repeated", [][]byte{a, b, a, a, c}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tg := startTarget(t, tt.stack)
			pid := tg.cmd.Process.Pid
			st, err := ReadProcStatus(pid)
			if err != nil {
				t.Fatal(err)
			}
			if st.SeccompMode != result.SeccompModeFilter || st.SeccompFilters != len(tt.stack) || st.NoNewPrivs != 1 {
				t.Fatalf("status: mode %d, filters %d, no_new_privs %d; want 2, %d, 1", st.SeccompMode, st.SeccompFilters, st.NoNewPrivs, len(tt.stack))
			}
			got, err := DumpFilters(pid)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.stack) {
				t.Fatalf("dumped %d filters, want %d", len(got), len(tt.stack))
			}
			for i := range got {
				if !bytes.Equal(got[i], tt.stack[i]) {
					t.Errorf("filter %d (0 = oldest): got %x, want %x", i, got[i], tt.stack[i])
				}
			}
			checkDetached(t, pid)
			tg.ping(t)
			// A second dump works too: nothing was left attached.
			if again, err := DumpFilters(pid); err != nil || len(again) != len(tt.stack) {
				t.Errorf("second dump: %d filters, %v", len(again), err)
			}
			checkDetached(t, pid)
			tg.ping(t)
		})
	}
}

func TestDumpFiltersNoFilterMode(t *testing.T) {
	tg := startTarget(t, nil)
	_, err := DumpFilters(tg.cmd.Process.Pid)
	if !errors.Is(err, ErrNoFilterMode) {
		t.Errorf("got %v, want ErrNoFilterMode", err)
	}
	if _, err := DumpFilters(os.Getpid()); !errors.Is(err, ErrDumpDenied) {
		t.Errorf("dump of self: got %v, want ErrDumpDenied", err)
	}
	tg.ping(t)
}

// TestDumpFiltersDenied runs DumpFilters from a helper that cannot dump:
// one under seccomp itself, one without CAP_SYS_ADMIN on its dumping thread
// (capset(2) on that thread; CAP_SYS_PTRACE stays, so the attach succeeds
// and only PTRACE_SECCOMP_GET_FILTER fails). Both must get EACCES as
// ErrDumpDenied with the matching hint, and the target must be detached and
// running afterwards (the error path detaches).
func TestDumpFiltersDenied(t *testing.T) {
	canDump(t)
	tests := []struct {
		how, hint string
	}{
		{"seccomp", "itself in seccomp mode"},
		{"nocap", "CAP_SYS_ADMIN"},
	}
	tg := startTarget(t, [][]byte{testFilter(t, 100000)})
	pid := tg.cmd.Process.Pid
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.how, func(t *testing.T) {
			cmd := exec.Command(exe)
			cmd.Env = append(os.Environ(), inspectHelperEnv+"=inspector",
				"SECCOMPBENCH_INSPECT_PID="+strconv.Itoa(pid), "SECCOMPBENCH_INSPECT_HOW="+tt.how)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("inspector: %v; stderr: %s", err, stderr.String())
			}
			var got inspectorResult
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("decode %q: %v", out, err)
			}
			if !got.Denied || got.Errno != int(unix.EACCES) || !strings.Contains(got.Msg, tt.hint) {
				t.Errorf("got %+v; want denied, EACCES, message containing %q", got, tt.hint)
			}
			checkDetached(t, pid)
			tg.ping(t)
		})
	}
}

func TestParseProcStatus(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want result.ProcStatus
	}{
		{"full", "Name:\tsleep\nState:\tS (sleeping)\nTracerPid:\t0\nNoNewPrivs:\t1\nSeccomp:\t2\nSeccomp_filters:\t3\n",
			result.ProcStatus{Name: "sleep", State: "S (sleeping)", TracerPid: 0, NoNewPrivs: 1, SeccompMode: 2, SeccompFilters: 3}},
		{"old kernel", "Name:\tx\nState:\tR (running)\nTracerPid:\t12\nSeccomp:\t0\n",
			result.ProcStatus{Name: "x", State: "R (running)", TracerPid: 12, NoNewPrivs: -1, SeccompMode: 0, SeccompFilters: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := sys.ParseProcStatus([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
	if _, err := sys.ParseProcStatus([]byte("Seccomp:\tx\n")); err == nil {
		t.Error("bad Seccomp value: got no error")
	}
}

// TestExecUnder runs cat under a stack through ExecUnder and dumps the
// stack back from the running cat.
func TestExecUnder(t *testing.T) {
	canDump(t)
	if _, err := exec.LookPath("cat"); err != nil {
		t.Skip("no cat")
	}
	stack := [][]byte{testFilter(t, 100000), testFilter(t, 100001), testFilter(t, 100000)}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	js, _ := json.Marshal(stack)
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), inspectHelperEnv+"=sandbox", "SECCOMPBENCH_INSPECT_STACK="+string(js))
	in, _ := cmd.StdinPipe()
	outp, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { in.Close(); cmd.Process.Kill(); cmd.Wait() }()
	out := bufio.NewReader(outp)
	// Once cat echoes, the exec has happened.
	fmt.Fprintln(in, "hello")
	if l, err := out.ReadString('\n'); err != nil || l != "hello\n" {
		t.Fatalf("cat answered %q, %v; stderr: %s", l, err, stderr.String())
	}
	pid := cmd.Process.Pid
	st, err := ReadProcStatus(pid)
	if err != nil {
		t.Fatal(err)
	}
	if st.Name != "cat" || st.SeccompFilters != len(stack) || st.NoNewPrivs != 1 {
		t.Fatalf("status: name %q, %d filters, no_new_privs %d; want cat, %d, 1", st.Name, st.SeccompFilters, st.NoNewPrivs, len(stack))
	}
	got, err := DumpFilters(pid)
	if err != nil {
		t.Fatal(err)
	}
	for i := range stack {
		if i >= len(got) || !bytes.Equal(got[i], stack[i]) {
			t.Fatalf("dumped %x, want %x", got, stack)
		}
	}
	checkDetached(t, pid)
}

// TestReadProcStatusNoSuchProcess: a PID with no process is reported as
// such, and the error still matches fs.ErrNotExist for callers.
func TestReadProcStatusNoSuchProcess(t *testing.T) {
	// PIDs above pid_max (at most 2^22 on Linux) never exist.
	_, err := ReadProcStatus(1 << 23)
	if err == nil || !strings.Contains(err.Error(), "no such process") || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadProcStatus(2^23) = %v; want \"no such process\" wrapping ErrNotExist", err)
	}
}
