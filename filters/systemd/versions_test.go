package systemd

import (
	"errors"
	"fmt"
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
	for _, v := range Versions() {
		if got, want := groupTables[v].AllowListENOSYS, v >= 255; got != want {
			t.Errorf("systemd %d: AllowListENOSYS %v, want %v (override_default_action is in 255 and later)", v, got, want)
		}
	}
	if w := FirstVersionWith(252, "@sandbox"); w != 254 {
		t.Errorf("FirstVersionWith(252, @sandbox) = %d, want 254", w)
	}
	if _, ok := GroupIn(249, "@sandbox"); ok {
		t.Error("249 has @sandbox")
	}
	if w := FirstVersionWith(249, "@sandbox"); w != 254 {
		t.Errorf("FirstVersionWith(249, @sandbox) = %d, want 254", w)
	}
}

// TestGroupTablesLabels: each table names the source it was generated
// from, so a header says which release's groups were used.
func TestGroupTablesLabels(t *testing.T) {
	want := map[int]string{
		249: "systemd 249 (Ubuntu 249.11-0ubuntu3 (jammy))",
		252: "systemd 252 (Debian 252.39-1~deb12u2 (bookworm))",
		255: "systemd 255 (Ubuntu 255.4-1ubuntu8 (noble))",
		256: "systemd 256 (upstream 256.17 (stable tag v256.17))",
		258: "systemd 258 (upstream 258.10 (stable tag v258.10))",
		259: "systemd 259 (Ubuntu 259.5-0ubuntu3.4 (resolute-security))",
	}
	for _, v := range Versions() {
		got := groupTables[v].Label()
		if w, ok := want[v]; ok && got != w {
			t.Errorf("Label(%d) = %q, want %q", v, got, w)
		}
		if got == fmt.Sprintf("systemd %d", v) {
			t.Errorf("table %d does not name its source: %q", v, groupTables[v].Source)
		}
	}
}

// versionDelta is a fact read in two releases' sources: in version in,
// group has name; in version out, it does not.
type versionDelta struct {
	group, name string
	in, out     int
}

// TestGroupTablesDeltas checks, per table, names that tell it from its
// neighbours (each read in testdata/groups/N: syscall_filter_sets.c and
// syscall-list.txt), so a table generated from the wrong release fails.
func TestGroupTablesDeltas(t *testing.T) {
	for _, d := range []versionDelta{
		// 249.11 → 252.39: names added to the sets after 249.
		{"@file-system", "fchmodat2", 252, 249},
		{"@privileged", "quotactl_fd", 252, 249},
		{"@resources", "set_mempolicy_home_node", 252, 249},
		{"@system-service", "arm_fadvise64_64", 252, 249},
		{"@default", "futex_waitv", 252, 249},
		// 249 lists s390 names under #if defined __s390__, compiled out on
		// x86_64; 252 lists them unconditionally.
		{"@debug", "s390_runtime_instr", 252, 249},
		{"@raw-io", "s390_pci_mmio_read", 252, 249},
		// 249's syscall-list.txt still has quotactl_path; 252's does not.
		{"@known", "quotactl_path", 249, 252},
		// 255.4 has @sandbox but not yet inside @default; the 254.26 and
		// 256.17 stable releases have it there, and uretprobe.
		{"@sandbox", "landlock_create_ruleset", 255, 252},
		{"@default", "landlock_create_ruleset", 254, 255},
		{"@default", "landlock_create_ruleset", 256, 255},
		{"@default", "uretprobe", 256, 255},
		// 256.17 → 257.13.
		{"@known", "mseal", 256, 255},
		{"@default", "mseal", 257, 256},
		{"@file-system", "listmount", 257, 256},
		// 257.13 → 258.10: open_tree moved from @mount to @file-system.
		{"@file-system", "open_tree", 258, 257},
		{"@system-service", "open_tree", 258, 257},
		{"@mount", "open_tree", 257, 258},
		{"@mount", "open_tree_attr", 258, 257},
		// 258.10 → 259.5: only syscall-list.txt grew.
		{"@known", "listns", 259, 258},
		{"@known", "uprobe", 259, 258},
		// 259.5 → 262.
		{"@known", "rseq_slice_yield", 262, 259},
		{"@known", "fchroot", 262, 259},
	} {
		in, ok := GroupIn(d.in, d.group)
		if !ok || !slices.Contains(in, d.name) {
			t.Errorf("systemd %d %s lacks %s", d.in, d.group, d.name)
		}
		if out, _ := GroupIn(d.out, d.group); slices.Contains(out, d.name) {
			t.Errorf("systemd %d %s has %s", d.out, d.group, d.name)
		}
	}
	// 258's and 259's sets are the same; @known is not.
	for _, g := range groupTables[259].Order {
		a, _ := GroupIn(258, g)
		b, _ := GroupIn(259, g)
		if g != "@known" && !slices.Equal(a, b) {
			t.Errorf("%s differs between 258 and 259", g)
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
	if !errors.Is(err, ErrUnknownVersion) || !strings.Contains(err.Error(), "no table for 200; tables: 249 252 254 255 256 257 258 259 262; nearest: 249") {
		t.Errorf("unknown version: %v", err)
	}
}

// TestNoTableTextNearest: a version with no table names the tables just
// below and above it, or the one at the end of the range when it is
// outside it.
func TestNoTableTextNearest(t *testing.T) {
	for v, want := range map[int]string{
		200: "nearest: 249",
		250: "nearest: 249, 252",
		251: "nearest: 249, 252",
		253: "nearest: 252, 254",
		260: "nearest: 259, 262",
		261: "nearest: 259, 262",
		999: "nearest: 262",
	} {
		got := NoTableText(v)
		if !strings.HasPrefix(got, fmt.Sprintf("no table for %d; tables: 249 252 254 255 256 257 258 259 262; ", v)) || !strings.HasSuffix(got, "; "+want) {
			t.Errorf("NoTableText(%d) = %q, want the tables and %q", v, got, want)
		}
	}
	if got := NearestVersions(255); !slices.Equal(got, []int{254, 256}) {
		t.Errorf("NearestVersions(255) = %v, want its neighbours [254 256]", got)
	}
}

// TestGroupTables262: systemd 262 (Debian forky) has open_tree in
// @file-system, not @mount, and open_tree_attr in @mount (since 258).
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
