package runner

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// applyLoader gives the calling thread, which must be locked
// (runtime.LockOSThread) and is the one that will call seccomp(2), the
// capabilities of loader l, then reads them back from
// /proc/self/task/TID/status and checks them (checkLoaderCaps).
//
// Capabilities belong to a thread (man 7 capabilities: "thread capability
// sets"), and the JIT checks the caller's (capable() reads current's
// effective set), so only this thread changes; the child's other threads
// keep theirs and never load a filter. For LoaderUnprivileged it first
// removes CAP_SYS_ADMIN from the bounding set (prctl PR_CAPBSET_DROP,
// which needs CAP_SETPCAP: a process without it cannot drop from its
// bounding set, and then must not hold the capability anywhere else
// either), then from the effective, permitted and inheritable sets with
// capset(2), which also clears it from the ambient set. For
// LoaderPrivileged and "" it changes nothing.
//
// Errors wrap the errno of prctl(2) or capset(2), or ErrLoaderCaps when
// the read-back sets are wrong.
func applyLoader(l Loader, tid int) (Caps, error) {
	if l == LoaderUnprivileged {
		if err := dropSysAdmin(); err != nil {
			caps, _ := threadCaps(tid)
			return caps, err
		}
	}
	caps, err := threadCaps(tid)
	if err != nil {
		return caps, err
	}
	return caps, checkLoaderCaps(l, caps)
}

// dropSysAdmin removes CAP_SYS_ADMIN from the calling thread's bounding,
// effective, permitted and inheritable sets (see applyLoader).
func dropSysAdmin() error {
	// The bounding set first: dropping from it needs CAP_SETPCAP in the
	// effective set, which capset below leaves alone. EPERM (no
	// CAP_SETPCAP, e.g. a non-root user) is ignored: such a process holds
	// CAP_SYS_ADMIN in no other set, and no_new_privs keeps execve from
	// granting it. The read-back (Sample.Caps) shows the bounding set.
	in, err := unix.PrctlRetInt(unix.PR_CAPBSET_READ, capSysAdmin, 0, 0, 0)
	if err != nil {
		return fmt.Errorf("read bounding set: %w", err)
	}
	if in == 1 {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, capSysAdmin, 0, 0, 0); err != nil && !errors.Is(err, unix.EPERM) {
			return fmt.Errorf("drop CAP_SYS_ADMIN from the bounding set: %w", err)
		}
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData // version 3: two 32-bit halves
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	const w, bit = capSysAdmin / 32, uint32(1) << (capSysAdmin % 32)
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

// threadCaps reads CapEff, CapPrm and CapBnd of thread tid of this process
// from /proc/self/task/TID/status (man 5 proc).
func threadCaps(tid int) (Caps, error) {
	b, err := os.ReadFile("/proc/self/task/" + strconv.Itoa(tid) + "/status")
	if err != nil {
		return Caps{}, fmt.Errorf("read capabilities: %w", err)
	}
	return parseCaps(string(b))
}

// parseCaps parses the CapEff, CapPrm and CapBnd lines of a
// /proc/PID/status file; a missing line is an error.
func parseCaps(status string) (Caps, error) {
	var c Caps
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
