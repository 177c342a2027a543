package child

import (
	"bufio"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestStatPPid(t *testing.T) {
	for _, tt := range []struct {
		stat string
		want int
	}{
		{"42 (sleep) S 7 42 42 0 -1", 7},
		{"43 (a) b (c)) R 1234 43 43 0 -1", 1234}, // comm with spaces and ')'
		{"44 (x) Z", -1},
		{"garbage", -1},
	} {
		if got := statPPid([]byte(tt.stat)); got != tt.want {
			t.Errorf("statPPid(%q) = %d, want %d", tt.stat, got, tt.want)
		}
	}
}

// alive reports whether pid exists, and its state letter ("Z": a zombie
// nobody reaped).
func alive(pid int) (string, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return f[0], true
}

// A shell that leaves two processes running, one in its own session
// (out of every process group this process knows), exits; as their
// subreaper this process finds both among its children, kills them and
// reaps them: afterwards neither exists, not even as a zombie.
func TestKillDescendants(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	if err := BecomeSubreaper(); err != nil {
		t.Fatal(err)
	}
	// The sleeps must not hold the pipe the pids are read from.
	script := "sleep 30 >/dev/null & echo $!; "
	if _, err := exec.LookPath("setsid"); err == nil {
		script += "setsid sleep 30 >/dev/null & echo $!; "
	}
	cmd := exec.Command("sh", "-c", script+"exit 0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pids []int
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		pid, err := strconv.Atoi(sc.Text())
		if err != nil {
			t.Fatalf("shell printed %q, want a pid", sc.Text())
		}
		pids = append(pids, pid)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	// The shell is gone: the sleeps are this process's children now.
	kids := Children()
	for _, p := range pids {
		if !slices.Contains(kids, p) {
			t.Errorf("pid %d left by the shell is not among this process's children %v", p, kids)
		}
	}
	n, err := KillDescendants()
	if err != nil {
		t.Fatal(err)
	}
	if n != len(pids) {
		t.Errorf("reaped %d processes, want %d", n, len(pids))
	}
	for _, p := range pids {
		if st, ok := alive(p); ok {
			t.Errorf("pid %d still exists (state %s)", p, st)
		}
	}
	if n, err := KillDescendants(); n != 0 || err != nil {
		t.Errorf("second sweep: %d reaped, %v; want 0, nil", n, err)
	}
}
