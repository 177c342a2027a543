package runner

import (
	"errors"
	"fmt"
	"math/rand/v2"
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

// capSysAdmin is CAP_SYS_ADMIN's bit number (include/uapi/linux/capability.h).
const capSysAdmin = 21

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
func (c Caps) SysAdmin() bool { return c.Eff&(1<<capSysAdmin) != 0 }

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

// checkLoaderCaps returns nil if caps, read back in the child before its
// first seccomp(2), are what loader l needs, else an error wrapping
// ErrLoaderCaps that says what is wrong.
func checkLoaderCaps(l Loader, caps Caps) error {
	const bit = uint64(1) << capSysAdmin
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

// PlacementMode says how the number of never-executed instructions
// appended to every filter (its pad) is chosen per child.
type PlacementMode string

const (
	// PlacementRandom draws each child's pad from [MinPad, MaxPad] with
	// PadFor, so every cell averages over program sizes and JIT image
	// placements (kernel/bpf/core.c: bpf_jit_binary_pack_alloc places each
	// image at a random offset, and its size changes where it lands).
	PlacementRandom PlacementMode = "random"
	// PlacementFixed appends Pad instructions in every child (run --pad N).
	PlacementFixed PlacementMode = "fixed"
)

// DefaultMaxPad is the top of the default pad range, in instructions: it
// covers the 6–10 appended instructions that moved docker-default's
// per-filter cost by 25 % on this project's measurements.
const DefaultMaxPad = 16

// Placement says which pad each child appends to every filter
// (filters.Program.Padded: unreachable returns, same verdicts, paths and
// action-cache decisions). The zero value appends nothing (fixed, pad 0),
// so a Config written before placement existed measures what it did;
// DefaultPlacement is what `run` uses unless --pad is given.
type Placement struct {
	// Mode is PlacementRandom or PlacementFixed; "" means fixed.
	Mode PlacementMode
	// Pad is the fixed pad, in instructions (PlacementFixed).
	Pad int
	// MinPad and MaxPad bound the random pad, in instructions, inclusive
	// (PlacementRandom).
	MinPad, MaxPad int
}

// DefaultPlacement is random placement over [0, DefaultMaxPad].
func DefaultPlacement() Placement {
	return Placement{Mode: PlacementRandom, MaxPad: DefaultMaxPad}
}

// withDefaults names the zero value's mode.
func (p Placement) withDefaults() Placement {
	if p.Mode == "" {
		p.Mode = PlacementFixed
	}
	return p
}

// Normalized returns p with its mode named: the zero value becomes fixed
// placement with pad 0.
func (p Placement) Normalized() Placement { return p.withDefaults() }

// Check returns an error for a negative pad or an empty range.
func (p Placement) Check() error {
	p = p.withDefaults()
	switch p.Mode {
	case PlacementFixed:
		if p.Pad < 0 {
			return fmt.Errorf("placement: negative pad %d", p.Pad)
		}
	case PlacementRandom:
		if p.MinPad < 0 || p.MaxPad < p.MinPad {
			return fmt.Errorf("placement: bad pad range %d..%d", p.MinPad, p.MaxPad)
		}
	default:
		return fmt.Errorf("placement: unknown mode %q: want random or fixed", p.Mode)
	}
	return nil
}

// Largest returns the largest pad p can give a child, in instructions:
// the one that decides whether the deepest stack fits the kernel's limits.
func (p Placement) Largest() int {
	p = p.withDefaults()
	if p.Mode == PlacementFixed {
		return max(p.Pad, 0)
	}
	return p.MaxPad
}

// capped returns p with its random range cut at maxPad.
func (p Placement) capped(maxPad int) Placement {
	p = p.withDefaults()
	p.MaxPad = min(p.MaxPad, maxPad)
	p.MinPad = min(p.MinPad, p.MaxPad)
	return p
}

// PadFor returns the pad of the child at position seq of a run seeded
// with seed, in instructions: Pad when fixed, else a number drawn
// uniformly from [MinPad, MaxPad] by a PCG seeded from (seed, seq) alone,
// so the same seed gives every child the same pad again, whatever ran
// before it or whether blocks were added.
func (p Placement) PadFor(seed uint64, seq int) int {
	p = p.withDefaults()
	if p.Mode == PlacementFixed {
		return max(p.Pad, 0)
	}
	if p.MaxPad <= p.MinPad {
		return p.MinPad
	}
	rng := rand.New(rand.NewPCG(seed^0x6a09e667f3bcc908, uint64(seq)*0x9e3779b97f4a7c15+0xbb67ae8584caa73b))
	return p.MinPad + rng.IntN(p.MaxPad-p.MinPad+1)
}
