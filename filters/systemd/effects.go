package systemd

import (
	"slices"
	"sort"
	"strings"
)

// This file says what the modeled directives do besides installing
// seccomp filters, so that a directive whose filters another directive
// already covers is never advised away blindly, and compares two units'
// settings outside seccomp (equiv's note).

// otherEffects is, per modeled directive, what it does outside seccomp,
// from systemd.exec(5) (man/systemd.exec.xml, "Sandboxing": the entries of
// PrivateDevices=, ProtectHostname=, ProtectClock=,
// ProtectKernelTunables=, ProtectKernelModules= and ProtectKernelLogs=).
// A directive missing here does nothing but its filter:
// MemoryDenyWriteExecute=, RestrictNamespaces=, RestrictAddressFamilies=,
// LockPersonality=, RestrictRealtime=, RestrictSUIDSGID=,
// SystemCallArchitectures=, SystemCallLog= and SystemCallFilter= (their
// entries describe only the system call filter; systemd 257 and later can
// enforce MemoryDenyWriteExecute= with prctl(PR_SET_MDWE) instead, which is
// Options.MDWEPrctl).
var otherEffects = map[string]string{
	"PrivateDevices":        "a private read-only, noexec /dev with only pseudo devices (a mount namespace), CAP_MKNOD and CAP_SYS_RAWIO dropped from the bounding set, DevicePolicy=closed",
	"ProtectHostname":       "a new UTS namespace (the host's hostname changes no longer reach the service)",
	"ProtectClock":          "CAP_SYS_TIME and CAP_WAKE_ALARM dropped from the bounding set, DeviceAllow=char-rtc r (the RTC devices read-only)",
	"ProtectKernelTunables": "/proc/sys, /sys, /proc/sysrq-trigger, /proc/acpi, /proc/irq and more read-only (a mount namespace), MountAPIVFS=yes",
	"ProtectKernelModules":  "CAP_SYS_MODULE dropped from the bounding set, /usr/lib/modules inaccessible (a mount namespace)",
	"ProtectKernelLogs":     "CAP_SYSLOG dropped from the bounding set, /dev/kmsg and /proc/kmsg inaccessible (a mount namespace)",
}

// OtherEffects returns what directive (a modeled one, e.g.
// "PrivateDevices") does besides its seccomp filters, per systemd.exec(5),
// or "" for a directive whose only effect is its filter. Every seccomp
// directive also implies NoNewPrivileges=yes for a unit without
// CAP_SYS_ADMIN (User=); that is true of each of them alike, so it is
// not repeated here.
func OtherEffects(directive string) string { return otherEffects[directive] }

// seccompOnlyKeys are the keys whose whole effect is the seccomp stack
// the model builds (SystemCallErrorNumber= only picks the filter's
// errno).
var seccompOnlyKeys = []string{
	"SystemCallFilter", "SystemCallErrorNumber", "SystemCallArchitectures", "SystemCallLog",
	"MemoryDenyWriteExecute", "RestrictNamespaces", "RestrictAddressFamilies", "LockPersonality",
	"RestrictRealtime", "RestrictSUIDSGID",
}

// SeccompOnly reports whether key is a directive that does nothing but
// shape the seccomp stack (see OtherEffects).
func SeccompOnly(key string) bool { return slices.Contains(seccompOnlyKeys, key) }

// listKeys are exec settings whose lines add up until an empty
// assignment resets them (systemd.exec(5)); for every other key the last
// line wins.
var listKeys = []string{
	"ExecStart", "ExecStartPre", "ExecStartPost", "ExecStop", "ExecStopPost", "ExecReload",
	"Environment", "EnvironmentFile", "PassEnvironment", "UnsetEnvironment",
	"CapabilityBoundingSet", "AmbientCapabilities", "SupplementaryGroups",
	"ReadWritePaths", "ReadOnlyPaths", "InaccessiblePaths", "ExecPaths", "NoExecPaths",
	"BindPaths", "BindReadOnlyPaths", "TemporaryFileSystem", "DeviceAllow",
	"RestrictFileSystems", "IPAddressAllow", "IPAddressDeny", "SystemCallFilter",
	"SystemCallLog", "SystemCallArchitectures", "RestrictAddressFamilies", "RestrictNamespaces",
}

// effective returns each key's value after every line of settings: the
// last line's for a plain key, the lines since the last empty one joined
// by " " for a list (listKeys); "" for a key whose last word is an empty
// assignment (a reset, or for CapabilityBoundingSet= the empty set). A
// key never set is absent.
func effective(settings []Assignment) map[string]string {
	vals := map[string][]string{}
	for _, a := range settings {
		switch {
		case a.Value == "":
			vals[a.Key] = nil
		case slices.Contains(listKeys, a.Key):
			vals[a.Key] = append(vals[a.Key], a.Value)
		default:
			vals[a.Key] = []string{a.Value}
		}
	}
	out := map[string]string{}
	for k, v := range vals {
		out[k] = strings.Join(v, " ")
	}
	return out
}

// SettingDiff is one exec setting outside seccomp whose value differs
// between two units.
type SettingDiff struct {
	// Key is the directive, e.g. "ProtectSystem".
	Key string
	// A and B are its values in each unit ("" for an empty assignment);
	// ASet and BSet are false where the unit never sets it.
	A, B       string
	ASet, BSet bool
	// Effects is OtherEffects(Key) for a directive that also installs a
	// filter, so the reader sees which part of it differs outside
	// seccomp; "" otherwise.
	Effects string
}

// SettingsDiff lists, sorted by key, the exec settings other than the
// seccomp-only ones (SeccompOnly) whose effective values differ between
// units a and b: directives that change what the service may do without
// changing its filters (ProtectSystem=, User=, PrivateTmp=, ...) and the
// non-seccomp halves of PrivateDevices= and the Protect* directives
// (OtherEffects). Values are compared as written (after drop-ins and
// resets), so "yes" and "true" differ.
func SettingsDiff(a, b *Stack) []SettingDiff {
	ea, eb := effective(a.Settings), effective(b.Settings)
	keys := map[string]bool{}
	for k := range ea {
		keys[k] = true
	}
	for k := range eb {
		keys[k] = true
	}
	var out []SettingDiff
	for k := range keys {
		va, okA := ea[k]
		vb, okB := eb[k]
		if SeccompOnly(k) || (va == vb && okA == okB) {
			continue
		}
		out = append(out, SettingDiff{Key: k, A: va, B: vb, ASet: okA, BSet: okB, Effects: OtherEffects(k)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}
