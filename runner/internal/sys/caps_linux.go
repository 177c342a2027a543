package sys

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/seccompbench/seccompbench/runner/result"
	"golang.org/x/sys/unix"
)

// ApplyLoader gives the calling thread, which must be locked
// (runtime.LockOSThread) and is the one that will call seccomp(2), the
// capabilities of loader l, then reads them back from
// /proc/self/task/TID/status and checks them (result.CheckLoaderCaps).
//
// Capabilities belong to a thread (man 7 capabilities: "thread capability
// sets"), and the JIT checks the caller's (capable() reads current's
// effective set), so only this thread changes; the child's other threads
// keep theirs and never load a filter. For result.LoaderUnprivileged it first
// removes CAP_SYS_ADMIN from the bounding set (prctl PR_CAPBSET_DROP,
// which needs CAP_SETPCAP: a process without it cannot drop from its
// bounding set, and then must not hold the capability anywhere else
// either), then from the effective, permitted and inheritable sets with
// capset(2), which also clears it from the ambient set. For
// result.LoaderPrivileged and "" it changes nothing.
//
// Errors wrap the errno of prctl(2) or capset(2), or result.ErrLoaderCaps when
// the read-back sets are wrong.
func ApplyLoader(l result.Loader, tid int) (result.Caps, error) {
	if l == result.LoaderUnprivileged {
		if err := dropSysAdmin(); err != nil {
			caps, _ := ThreadCaps(tid)
			return caps, err
		}
	}
	caps, err := ThreadCaps(tid)
	if err != nil {
		return caps, err
	}
	return caps, result.CheckLoaderCaps(l, caps)
}

// dropSysAdmin removes CAP_SYS_ADMIN from the calling thread's bounding,
// effective, permitted and inheritable sets (see ApplyLoader).
func dropSysAdmin() error {
	// The bounding set first: dropping from it needs CAP_SETPCAP in the
	// effective set, which capset below leaves alone. EPERM (no
	// CAP_SETPCAP, e.g. a non-root user) is ignored: such a process holds
	// CAP_SYS_ADMIN in no other set, and no_new_privs keeps execve from
	// granting it. The read-back (Sample.Caps) shows the bounding set.
	in, err := unix.PrctlRetInt(unix.PR_CAPBSET_READ, result.CapSysAdminBit, 0, 0, 0)
	if err != nil {
		return fmt.Errorf("read bounding set: %w", err)
	}
	if in == 1 {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, result.CapSysAdminBit, 0, 0, 0); err != nil && !errors.Is(err, unix.EPERM) {
			return fmt.Errorf("drop CAP_SYS_ADMIN from the bounding set: %w", err)
		}
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData // version 3: two 32-bit halves
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	const w, bit = result.CapSysAdminBit / 32, uint32(1) << (result.CapSysAdminBit % 32)
	if data[w].Effective&bit == 0 && data[w].Permitted&bit == 0 && data[w].Inheritable&bit == 0 {
		return nil
	}
	data[w].Effective &^= bit
	data[w].Permitted &^= bit
	data[w].Inheritable &^= bit
	hdr.Pid = 0 // the calling thread
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("drop CAP_SYS_ADMIN with capset: %w", err)
	}
	return nil
}

// ThreadCaps reads CapEff, CapPrm and CapBnd of thread tid of this process
// from /proc/self/task/TID/status (man 5 proc).
func ThreadCaps(tid int) (result.Caps, error) {
	b, err := os.ReadFile("/proc/self/task/" + strconv.Itoa(tid) + "/status")
	if err != nil {
		return result.Caps{}, fmt.Errorf("read capabilities: %w", err)
	}
	return ParseCaps(string(b))
}

// ParseCaps parses the CapEff, CapPrm and CapBnd lines of a
// /proc/PID/status file; a missing line is an error.
func ParseCaps(status string) (result.Caps, error) {
	var c result.Caps
	fields := map[string]*uint64{"CapEff": &c.Eff, "CapPrm": &c.Prm, "CapBnd": &c.Bnd}
	seen := 0
	for _, line := range strings.Split(status, "\n") {
		k, v, ok := strings.Cut(line, ":")
		p, want := fields[k]
		if !ok || !want {
			continue
		}
		n, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
		if err != nil {
			return c, fmt.Errorf("parse %s %q: %w", k, strings.TrimSpace(v), err)
		}
		*p = n
		seen++
	}
	if seen != len(fields) {
		return c, fmt.Errorf("parse capabilities: %d of CapEff, CapPrm, CapBnd found", seen)
	}
	return c, nil
}
