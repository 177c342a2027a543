package subset

import (
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/equiv"
)

// Rank is an action's place in runtime-spec#1317's restrictiveness order,
// KILL_PROCESS > KILL_THREAD > TRAP > ERRNO > USER_NOTIF > TRACE > LOG >
// ALLOW: 7 for KILL_PROCESS down to 0 for ALLOW. It is the kernel's own
// precedence (kernel/seccomp.c: seccomp_run_filters keeps the lowest
// SECCOMP_RET_ACTION_FULL value, and the action values are ordered the
// same way); an unknown action ranks as KILL_PROCESS, which is what the
// kernel does with it (kernel/seccomp.c: __seccomp_filter).
func Rank(a filters.Action) int {
	switch a {
	case filters.ActionKillProcess:
		return 7
	case filters.ActionKillThread:
		return 6
	case filters.ActionTrap:
		return 5
	case filters.ActionErrno:
		return 4
	case filters.ActionUserNotif:
		return 3
	case filters.ActionTrace:
		return 2
	case filters.ActionLog:
		return 1
	case filters.ActionAllow:
		return 0
	}
	return 7
}

// Relation is how a profile's outcome for one input compares with the
// baseline's.
type Relation uint8

// Relations between a profile's outcome and a baseline's.
const (
	// Same: the same action, and the same data where the task can see it
	// (errno, trap data, tracer message; equiv.Outcome.Same).
	Same Relation = iota
	// Tighter: the profile's action ranks above the baseline's.
	Tighter
	// Looser: the profile's action ranks below the baseline's.
	Looser
	// DataDiffers: the same action with different observable data, e.g.
	// ERRNO(EPERM) against ERRNO(ENOSYS). Neither is more restrictive
	// (see Options.ClassOnly).
	DataDiffers
)

var relationNames = [...]string{"same", "tighter", "looser", "data differs"}

// String returns "same", "tighter", "looser" or "data differs".
func (r Relation) String() string { return relationNames[r] }

// Violates reports whether r breaks "at least as restrictive": Looser
// always, DataDiffers unless classOnly.
func (r Relation) Violates(classOnly bool) bool {
	return r == Looser || (r == DataDiffers && !classOnly)
}

// Relate compares a profile's outcome p with a baseline's outcome b.
// Outcomes of one action class with different data (ERRNO with another
// errno, TRAP with other si_errno data, TRACE with another tracer
// message) are DataDiffers; the data of ALLOW, LOG, USER_NOTIF and the
// KILL actions is not observable, so equal actions there are Same.
func Relate(p, b equiv.Outcome) Relation {
	rp, rb := Rank(p.Action), Rank(b.Action)
	switch {
	case rp > rb:
		return Tighter
	case rp < rb:
		return Looser
	case p.Same(b):
		return Same
	}
	return DataDiffers
}
