package systemd

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestGroupTables257: systemd 257.13's sources (Debian 13) add to
// @default mseal, lsm_get_self_attr, lsm_list_modules and the new group
// @sandbox (landlock_*, seccomp), llseek to @basic-io and the *xattrat,
// listmount/statmount and file_[gs]etattr calls to @file-system; 252 has
// none of them. Since 255 allow-lists answer calls outside @known with
// ENOSYS (override_default_action).
func TestGroupTables257(t *testing.T) {
	added := map[string][]string{
		"@default":     {"mseal", "lsm_get_self_attr", "lsm_list_modules", "landlock_add_rule", "landlock_create_ruleset", "landlock_restrict_self", "seccomp"},
		"@basic-io":    {"llseek"},
		"@file-system": {"file_getattr", "file_setattr", "fstatat", "getxattrat", "listmount", "listxattrat", "newfstat", "removexattrat", "setxattrat", "statmount"},
		"@sandbox":     {"landlock_add_rule", "landlock_create_ruleset", "landlock_restrict_self", "seccomp"},
	}
	for g, names := range added {
		in257, ok := GroupIn(257, g)
		if !ok {
			t.Fatalf("257 has no %s", g)
		}
		in252, _ := GroupIn(252, g)
		for _, n := range names {
			if !slices.Contains(in257, n) {
				t.Errorf("257 %s lacks %s", g, n)
			}
			if slices.Contains(in252, n) {
				t.Errorf("252 %s has %s", g, n)
			}
		}
	}
	if _, ok := GroupIn(252, "@sandbox"); ok {
		t.Error("252 has @sandbox")
	}
	if !groupTables[257].AllowListENOSYS || groupTables[252].AllowListENOSYS || groupTables[254].AllowListENOSYS {
		t.Error("AllowListENOSYS should hold for 257 only")
	}
	if w := FirstVersionWith(252, "@sandbox"); w != 254 {
		t.Errorf("FirstVersionWith(252, @sandbox) = %d, want 254", w)
	}
	for _, v := range Versions() {
		if !strings.Contains(groupTables[v].Source, "debian-source systemd ") {
			t.Errorf("table %d does not name its source package: %q", v, groupTables[v].Source)
		}
	}
}

// TestParseUnitVersion: the version picks the groups, names the stack's
// table, and an unknown one is ErrUnknownVersion listing the known ones.
func TestParseUnitVersion(t *testing.T) {
	unit := []byte("[Service]\nSystemCallFilter=@system-service\n")
	st, err := ParseUnit("u.service", unit, Options{SystemdVersion: 257})
	if err != nil {
		t.Fatal(err)
	}
	if st.SystemdVersion != 257 || !strings.HasPrefix(st.GroupsVersion, "systemd 257 (Debian 257.13") || st.Source().Toolchain != st.GroupsVersion {
		t.Errorf("stack version %d %q", st.SystemdVersion, st.GroupsVersion)
	}
	st, err = ParseUnit("u.service", unit, Options{})
	if err != nil || st.SystemdVersion != DefaultVersion {
		t.Errorf("default version: %v, %v", st, err)
	}
	_, err = ParseUnit("u.service", unit, Options{SystemdVersion: 200})
	if !errors.Is(err, ErrUnknownVersion) || !strings.Contains(err.Error(), "known: 252 254 257 262") {
		t.Errorf("unknown version: %v", err)
	}
}

// TestGroupTables262: systemd 262 (Debian forky) moved open_tree from
// @mount to @file-system and added open_tree_attr to @mount.
func TestGroupTables262(t *testing.T) {
	fs, _ := GroupIn(262, "@file-system")
	mount, _ := GroupIn(262, "@mount")
	if !slices.Contains(fs, "open_tree") || slices.Contains(mount, "open_tree") || !slices.Contains(mount, "open_tree_attr") {
		t.Errorf("262: open_tree in @file-system %v, in @mount %v; open_tree_attr in @mount %v",
			slices.Contains(fs, "open_tree"), slices.Contains(mount, "open_tree"), slices.Contains(mount, "open_tree_attr"))
	}
	if m257, _ := GroupIn(257, "@mount"); !slices.Contains(m257, "open_tree") {
		t.Error("257 @mount lacks open_tree")
	}
}
