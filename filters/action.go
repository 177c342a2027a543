package filters

import (
	"fmt"
	"strings"
)

// Action is a seccomp filter return value's action part (SECCOMP_RET_ACTION_FULL
// bits) as defined in include/uapi/linux/seccomp.h.
type Action uint32

// Seccomp actions, in the kernel's precedence order: when filters in a stack
// disagree, the lowest-valued action (compared as signed 32-bit) wins
// (kernel/seccomp.c: seccomp_run_filters, ACTION_ONLY).
const (
	ActionKillProcess Action = 0x80000000 // SECCOMP_RET_KILL_PROCESS (Linux 4.14)
	ActionKillThread  Action = 0x00000000 // SECCOMP_RET_KILL_THREAD
	ActionTrap        Action = 0x00030000 // SECCOMP_RET_TRAP
	ActionErrno       Action = 0x00050000 // SECCOMP_RET_ERRNO
	ActionUserNotif   Action = 0x7fc00000 // SECCOMP_RET_USER_NOTIF (Linux 5.0)
	ActionTrace       Action = 0x7ff00000 // SECCOMP_RET_TRACE
	ActionLog         Action = 0x7ffc0000 // SECCOMP_RET_LOG (Linux 4.14)
	ActionAllow       Action = 0x7fff0000 // SECCOMP_RET_ALLOW
)

// Masks over a filter's 32-bit return value (include/uapi/linux/seccomp.h).
const (
	RetActionFull = 0xffff0000 // SECCOMP_RET_ACTION_FULL
	RetData       = 0x0000ffff // SECCOMP_RET_DATA: errno value, trace data
)

// SplitRet splits a filter return value into its action and data (for
// ERRNO the errno value, for TRACE the tracer's message).
func SplitRet(ret uint32) (Action, uint16) {
	return Action(ret & RetActionFull), uint16(ret & RetData)
}

// Precedes reports whether a takes precedence over b when two filters of a
// stack return them: the kernel compares the action bits as signed 32-bit
// integers and keeps the lower (kernel/seccomp.c: seccomp_run_filters).
func (a Action) Precedes(b Action) bool { return int32(a) < int32(b) }

var actionNames = map[Action]string{
	ActionKillProcess: "kill_process",
	ActionKillThread:  "kill_thread",
	ActionTrap:        "trap",
	ActionErrno:       "errno",
	ActionUserNotif:   "user_notif",
	ActionTrace:       "trace",
	ActionLog:         "log",
	ActionAllow:       "allow",
}

// String returns the lower-case action name used in policies and JSON
// ("allow", "errno", "kill_process", ...), or "action(0x...)" if unknown.
func (a Action) String() string {
	if s, ok := actionNames[a]; ok {
		return s
	}
	return fmt.Sprintf("action(%#x)", uint32(a))
}

// KernelName returns the SECCOMP_RET_* constant name, e.g. "SECCOMP_RET_ALLOW".
func (a Action) KernelName() string {
	if s, ok := actionNames[a]; ok {
		return "SECCOMP_RET_" + strings.ToUpper(s)
	}
	return a.String()
}

// Known reports whether a is one of the actions the kernel defines.
func (a Action) Known() bool { _, ok := actionNames[a]; return ok }
