package result

import (
	"errors"
	"fmt"
	"strings"
)

// Loader says with which capabilities the measuring child loads its
// filters. It matters because the x86 JIT appends a branch-history
// clearing sequence to every classic BPF program loaded by a task without
// CAP_SYS_ADMIN in the initial user namespace, on CPUs where the kernel
// uses that sequence (arch/x86/net/bpf_jit_comp.c: do_jit calls
// emit_spectre_bhb_barrier at each BPF_EXIT when bpf_prog_was_classic and
// !capable(CAP_SYS_ADMIN), later !ns_capable_noaudit(&init_user_ns,
// CAP_SYS_ADMIN); x86 commit d4e89d212d40, arm64 0dfefc2ea2f2). A seccomp
// filter is JIT-compiled by the task that calls seccomp(2)
// (kernel/seccomp.c: seccomp_prepare_filter → bpf_prog_create_from_user),
// so the loader's capabilities at that moment decide what every later
// syscall pays.
type Loader string

const (
	// LoaderUnprivileged drops CAP_SYS_ADMIN from the measuring thread's
	// effective, permitted, inheritable and bounding sets before
	// seccomp(2), keeping no_new_privs, as runc with NoNewPrivileges and
	// non-root systemd services load their filters. The default.
	LoaderUnprivileged Loader = "unprivileged"
	// LoaderPrivileged keeps CAP_SYS_ADMIN, as a root process that
	// installs its own filter does. The child fails if it lacks the
	// capability.
	LoaderPrivileged Loader = "privileged"
)

// Loaders returns the loaders a --loader value measures: "unprivileged",
// "privileged", or "both" (unprivileged first). Errors name the value.
func Loaders(s string) ([]Loader, error) {
	switch strings.TrimSpace(s) {
	case "", string(LoaderUnprivileged):
		return []Loader{LoaderUnprivileged}, nil
	case string(LoaderPrivileged):
		return []Loader{LoaderPrivileged}, nil
	case "both":
		return []Loader{LoaderUnprivileged, LoaderPrivileged}, nil
	}
	return nil, fmt.Errorf("parse loader %q: want unprivileged, privileged or both", s)
}

// CapSysAdminBit is CAP_SYS_ADMIN's bit number (include/uapi/linux/capability.h).
const CapSysAdminBit = 21

// Caps are a thread's capability sets as /proc/PID/task/TID/status shows
// them (CapEff, CapPrm, CapBnd: 64-bit masks, bit n = capability n;
// man 7 capabilities).
type Caps struct {
	Eff uint64 `json:"cap_eff"`
	Prm uint64 `json:"cap_prm"`
	Bnd uint64 `json:"cap_bnd"`
}

// SysAdmin reports whether CAP_SYS_ADMIN is in the effective set: the set
// the JIT's capable() check reads.
func (c Caps) SysAdmin() bool { return c.Eff&(1<<CapSysAdminBit) != 0 }

// String formats the sets as CapEff=…/CapPrm=…/CapBnd=… in hexadecimal, as
// /proc shows them.
func (c Caps) String() string {
	return fmt.Sprintf("CapEff=%016x CapPrm=%016x CapBnd=%016x", c.Eff, c.Prm, c.Bnd)
}

// ErrLoaderCaps is wrapped by the *ChildError of a child whose capabilities
// at install time do not match its Loader: an unprivileged child that still
// has CAP_SYS_ADMIN in its effective or permitted set, or a privileged one
// without it in its effective set (run as root for --loader privileged).
var ErrLoaderCaps = errors.New("loader capabilities not as required")

// CheckLoaderCaps returns nil if caps, read back in the child before its
// first seccomp(2), are what loader l needs, else an error wrapping
// ErrLoaderCaps that says what is wrong.
func CheckLoaderCaps(l Loader, caps Caps) error {
	const bit = uint64(1) << CapSysAdminBit
	switch l {
	case LoaderUnprivileged:
		// The bounding set is not checked: a process without CAP_SETPCAP
		// (a non-root user) cannot drop from it, and needs not, since
		// no_new_privs keeps it from regaining the capability.
		if caps.Eff&bit != 0 || caps.Prm&bit != 0 {
			return fmt.Errorf("%w: unprivileged loader still has CAP_SYS_ADMIN (%s)", ErrLoaderCaps, caps)
		}
	case LoaderPrivileged:
		if caps.Eff&bit == 0 {
			return fmt.Errorf("%w: privileged loader lacks CAP_SYS_ADMIN in its effective set (%s); run as root, or measure --loader unprivileged", ErrLoaderCaps, caps)
		}
	}
	return nil
}
