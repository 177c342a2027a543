package systemd

import (
	"fmt"
	"strings"
)

// LoaderInput is what decides whether systemd installs a unit's
// seccomp filters with CAP_SYS_ADMIN in the loading thread's effective set
// (a privileged loader) or without it: the unit's User=, DynamicUser=,
// PrivateUsers= and AmbientCapabilities=, whether it has seccomp filters
// at all, and its SystemCallFilter= list.
type LoaderInput struct {
	// User is User= ("" unset, "root" or "0" for root).
	User string
	// DynamicUser is DynamicUser=: a transient non-root user.
	DynamicUser bool
	// PrivateUsers is PrivateUsers= ("" or "no" unset; "yes", "self",
	// "identity", "full": a user namespace).
	PrivateUsers string
	// AmbientSysAdmin reports whether AmbientCapabilities= holds
	// CAP_SYS_ADMIN.
	AmbientSysAdmin bool
	// UserManager is true for a unit of a per-user manager (systemd
	// --user), which has no CAP_SYS_ADMIN to give.
	UserManager bool
	// HasSeccomp reports whether the unit installs any seccomp filter.
	HasSeccomp bool
	// FilterSet, FilterAllow and FilterNames describe SystemCallFilter=
	// after parsing: whether it is set, whether it is an allow list, and
	// the names in it (for an allow list with @default added).
	FilterSet, FilterAllow bool
	FilterNames            map[string]bool
}

// Loader says whether systemd (235 and later) loads the unit's
// filters with CAP_SYS_ADMIN in the effective set, which decides whether
// the kernel adds its branch-history barrier to each of them
// (arch/x86/net/bpf_jit_comp.c: emit_spectre_bhb_barrier), and why, in
// words. It follows src/core/exec-invoke.c (exec_invoke), which, in this
// order: sets up the user namespace (PrivateUsers=), drops the bounding
// set with capability_bounding_set_drop(bset, right_now=false) (the
// effective set keeps CAP_SYS_ADMIN until execve), changes the UID
// (enforce_user, setresuid: a non-root UID loses its effective
// capabilities) unless keep_seccomp_privileges holds, sets no_new_privs,
// and installs every seccomp filter last, then drops CAP_SYS_ADMIN again if
// it kept it. keep_seccomp_privileges (systemd PR #6763) holds for a unit
// with User= (or DynamicUser=), any seccomp filter, and a SystemCallFilter=
// that lets it drop the privileges afterwards: an allow list holding
// capget, capset and prctl, or a deny list holding none of them, or no
// SystemCallFilter= (seccomp_allows_drop_privileges).
//
// So:
//   - a user namespace (PrivateUsers=) or a per-user manager: unprivileged,
//     since the kernel checks CAP_SYS_ADMIN in the initial user namespace;
//   - root (no User=, or User=root): privileged, whatever
//     CapabilityBoundingSet= says (it empties only the bounding set here);
//   - User=/DynamicUser= with keep_seccomp_privileges or CAP_SYS_ADMIN in
//     AmbientCapabilities=: privileged;
//   - other User=/DynamicUser= units: unprivileged (systemd implies
//     NoNewPrivileges=yes so that they can install filters at all).
//
// NoNewPrivileges= does not change the loader.
func Loader(in LoaderInput) (privileged bool, why string) {
	pu := strings.ToLower(strings.TrimSpace(in.PrivateUsers))
	switch {
	case in.UserManager:
		return false, "a per-user service manager has no CAP_SYS_ADMIN to load filters with"
	case pu != "" && pu != "no" && pu != "false" && pu != "0" && pu != "off":
		return false, fmt.Sprintf("PrivateUsers=%s: systemd installs the filters inside a user namespace, where CAP_SYS_ADMIN does not count for the kernel's check (initial user namespace)", in.PrivateUsers)
	}
	root := (in.User == "" || in.User == "root" || in.User == "0") && !in.DynamicUser
	if root {
		return true, "the service runs as root: systemd installs its filters before execve, with CAP_SYS_ADMIN still effective (CapabilityBoundingSet= only empties the bounding set at that point)"
	}
	who := "User=" + in.User
	if in.DynamicUser {
		who = "DynamicUser=yes"
	}
	if in.AmbientSysAdmin {
		return true, who + " with CAP_SYS_ADMIN in AmbientCapabilities=: the filters are loaded with it"
	}
	if in.HasSeccomp && allowsDropPrivileges(in) {
		return true, who + ": systemd keeps CAP_SYS_ADMIN across the UID change to install the filters and drops it afterwards, because SystemCallFilter= allows capget, capset and prctl (exec-invoke.c: keep_seccomp_privileges)"
	}
	return false, who + ": systemd changes the UID, sets no_new_privs and installs the filters without CAP_SYS_ADMIN, because SystemCallFilter= does not allow capget, capset and prctl to drop it afterwards"
}

// allowsDropPrivileges is systemd's seccomp_allows_drop_privileges:
// true without SystemCallFilter=, for an allow list with capget, capset and
// prctl, or for a deny list with none of them.
func allowsDropPrivileges(in LoaderInput) bool {
	if !in.FilterSet || len(in.FilterNames) == 0 {
		return true
	}
	get, set, prctl := in.FilterNames["capget"], in.FilterNames["capset"], in.FilterNames["prctl"]
	if in.FilterAllow {
		return get && set && prctl
	}
	return !(get || set || prctl)
}

// setAmbient applies an AmbientCapabilities= line for CAP_SYS_ADMIN only:
// lines add to each other, "~" means every capability but the listed
// ones, and an empty value resets (config_parse_capability_set).
func (c *unitContext) setAmbient(value string) {
	if value == "" {
		c.ambientSysAdmin = false
		return
	}
	invert := strings.HasPrefix(value, "~")
	has := false
	for _, w := range strings.Fields(strings.TrimPrefix(value, "~")) {
		if strings.EqualFold(w, "CAP_SYS_ADMIN") {
			has = true
		}
	}
	if invert {
		c.ambientSysAdmin = !has
		return
	}
	c.ambientSysAdmin = c.ambientSysAdmin || has
}

// loaderInput collects what Loader needs from the parsed unit;
// hasSeccomp says whether the unit installs any filter.
func (c *unitContext) loaderInput(hasSeccomp bool) LoaderInput {
	in := LoaderInput{User: c.user, DynamicUser: c.bools["DynamicUser"], PrivateUsers: c.privateUsers,
		AmbientSysAdmin: c.ambientSysAdmin, HasSeccomp: hasSeccomp, FilterSet: c.filterSet, FilterAllow: c.filterAllow}
	if c.filterSet {
		in.FilterNames = map[string]bool{}
		for n := range c.filter {
			in.FilterNames[n] = true
		}
	}
	return in
}
