package runner

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// execFixturePrefix starts the name of every exec fixture directory; the
// owner's PID follows it ("seccompbench-exec-<pid>-<random>"), so a later
// run can tell a fixture whose owner died (SIGKILL skips every deferred
// cleanup) from one still in use.
const execFixturePrefix = "seccompbench-exec-"

// CleanStaleExecFixtures removes the exec fixtures in os.TempDir() whose
// owner PID no longer exists and returns their paths. RunAdaptive calls it
// at every start. It only touches directories of this user named with a
// PID: those of live runs, of other users and of versions that did not
// name the PID stay. A PID reused by another process keeps its fixture
// until that process is gone too.
func CleanStaleExecFixtures() []string { return cleanStaleExecFixtures(os.TempDir()) }

func cleanStaleExecFixtures(dir string) []string {
	paths, _ := filepath.Glob(filepath.Join(dir, execFixturePrefix+"*"))
	var removed []string
	for _, p := range paths {
		pid, ok := fixtureOwner(filepath.Base(p))
		if !ok || pid == os.Getpid() || pidAlive(pid) {
			continue
		}
		st, err := os.Lstat(p)
		if err != nil || !st.IsDir() {
			continue
		}
		if sys, ok := st.Sys().(*syscall.Stat_t); !ok || int(sys.Uid) != os.Geteuid() {
			continue
		}
		if os.RemoveAll(p) == nil {
			removed = append(removed, p)
		}
	}
	return removed
}

// fixtureOwner returns the PID in a fixture directory's name.
func fixtureOwner(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, execFixturePrefix)
	if !ok {
		return 0, false
	}
	num, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	pid, err := strconv.Atoi(num)
	return pid, err == nil && pid > 0
}

// pidAlive reports whether a process with pid exists and has not exited
// (kill(2) with signal 0: ESRCH means none, EPERM one of another user; a
// zombie, state Z in /proc/PID/stat, has exited but awaits its parent's
// wait and counts as dead).
func pidAlive(pid int) bool {
	if err := unix.Kill(pid, 0); err != nil && errors.Is(err, unix.ESRCH) {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // cannot tell: keep the fixture
	}
	// pid (comm) state ...: comm may hold spaces and parentheses.
	if i := strings.LastIndexByte(string(stat), ')'); i >= 0 && i+2 < len(stat) {
		switch stat[i+2] {
		case 'Z', 'X':
			return false
		}
	}
	return true
}
