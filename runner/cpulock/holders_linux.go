package cpulock

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Holders returns the PIDs, other than this process's, that hold a CPU
// lock in dir: the other seccompbench runs measuring now. It reads the
// holders from /proc/locks (fs/locks.c: lock_get_status, one line per
// lock: "N: FLOCK ADVISORY WRITE PID MAJ:MIN:INODE ..."), matched by the
// lock files' device and inode, so that looking takes no lock: a run
// trying to lock a CPU at that moment is never turned away by the look.
// A lock file or /proc/locks that cannot be read gives no PIDs, never an
// error: the answer only names what another run's load is.
func Holders(dir string) []int {
	files, _ := filepath.Glob(filepath.Join(dir, "cpu-*.lock"))
	ids := map[string]bool{}
	for _, f := range files {
		var st unix.Stat_t
		if unix.Stat(f, &st) == nil {
			ids[lockID(st.Dev, st.Ino)] = true
		}
	}
	if len(ids) == 0 {
		return nil
	}
	b, err := os.ReadFile("/proc/locks")
	if err != nil {
		return nil
	}
	return parseLockHolders(b, ids, os.Getpid())
}

// lockID is the device and inode of a file as /proc/locks prints them:
// major and minor in two-digit hex, the inode in decimal.
func lockID(dev, ino uint64) string {
	return fmt.Sprintf("%02x:%02x:%d", unix.Major(dev), unix.Minor(dev), ino)
}

// parseLockHolders returns the distinct PIDs, other than self, of the
// FLOCK lines of /proc/locks text b whose file is one of ids (lockID),
// in the order they appear; "->" lines (waiters) are left out.
func parseLockHolders(b []byte, ids map[string]bool, self int) []int {
	var pids []int
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		// N: FLOCK ADVISORY WRITE PID MAJ:MIN:INODE START END
		if len(f) < 6 || f[1] != "FLOCK" || !ids[f[5]] {
			continue
		}
		pid, err := strconv.Atoi(f[4])
		if err != nil || pid == self || pid <= 0 {
			continue
		}
		seen := false
		for _, p := range pids {
			seen = seen || p == pid
		}
		if !seen {
			pids = append(pids, pid)
		}
	}
	return pids
}
