package sandbox

import (
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// childEnv makes the test binary a child that runs ExecUnder with the
// stack it names instead of the tests.
const childEnv = "SANDBOX_TEST_CHILD"

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "":
		os.Exit(m.Run())
	case "deny-uname":
		// Oldest first: allow-all, then one that denies uname(2) with EPERM.
		err := ExecUnder([][]byte{allowAll(), denyUname()}, false, []string{"sh", "-c", "grep '^Seccomp' /proc/self/status; uname"}, os.Environ())
		fmt.Println("ExecUnder returned:", err)
		os.Exit(7)
	case "bad-filter":
		err := ExecUnder([][]byte{allowAll()[:7]}, true, []string{"true"}, nil)
		fmt.Println("ExecUnder returned:", err)
		os.Exit(7)
	}
}

// encode turns instructions into struct sock_filter records (host order).
func encode(insns []bpf.Instruction) []byte {
	raw, err := bpf.Assemble(insns)
	if err != nil {
		panic(err)
	}
	var b []byte
	for _, r := range raw {
		b = binary.NativeEndian.AppendUint16(b, r.Op)
		b = append(b, r.Jt, r.Jf)
		b = binary.NativeEndian.AppendUint32(b, r.K)
	}
	return b
}

func allowAll() []byte {
	return encode([]bpf.Instruction{bpf.RetConstant{Val: unix.SECCOMP_RET_ALLOW}})
}

func denyUname() []byte {
	return encode([]bpf.Instruction{
		bpf.LoadAbsolute{Off: 0, Size: 4}, // seccomp_data.nr
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_UNAME, SkipFalse: 1},
		bpf.RetConstant{Val: unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)},
		bpf.RetConstant{Val: unix.SECCOMP_RET_ALLOW},
	})
}

// runChild runs this test binary as the named child and returns its
// combined output and exit code.
func runChild(t *testing.T, name string) (string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+name)
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run child: %v", err)
	}
	return string(out), code
}

// TestExecUnder: the exec'd command runs under exactly the stack (two
// filters in /proc/self/status, seccomp mode 2) and the stack's verdicts
// hold for it: uname(2) fails with EPERM, so uname(1) exits non-zero.
func TestExecUnder(t *testing.T) {
	out, code := runChild(t, "deny-uname")
	if strings.Contains(out, "ExecUnder returned") {
		t.Fatalf("ExecUnder failed:\n%s", out)
	}
	if !strings.Contains(out, "Seccomp:\t2\n") || !strings.Contains(out, "Seccomp_filters:\t2\n") && strings.Contains(out, "Seccomp_filters") {
		t.Errorf("the command does not run under the 2-filter stack:\n%s", out)
	}
	if code == 0 || !strings.Contains(out, "not permitted") {
		t.Errorf("uname exited %d under a filter denying uname(2):\n%s", code, out)
	}
}

// TestExecUnderErrors: a filter the kernel refuses is named with its
// index; no command and a command not on PATH fail before anything is
// installed (so they can run in the test process itself).
func TestExecUnderErrors(t *testing.T) {
	out, code := runChild(t, "bad-filter")
	if code != 7 || !strings.Contains(out, "install filter 0 of 1: bad filter length 7 bytes") {
		t.Errorf("bad filter: exit %d:\n%s", code, out)
	}
	if err := ExecUnder(nil, false, nil, nil); err == nil || !strings.Contains(err.Error(), "no command") {
		t.Errorf("no command: %v", err)
	}
	if err := ExecUnder(nil, false, []string{"no-such-command-seccompbench"}, nil); err == nil || !strings.Contains(err.Error(), "executable file not found") {
		t.Errorf("missing command: %v", err)
	}
}
