package systemd

import (
	"errors"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"golang.org/x/net/bpf"
)

// verdictOf runs st for syscall nr of ABI a (x32 bit included by the
// caller) and returns the stack's return value.
func verdictOf(t *testing.T, st *Stack, a *scmp.Arch, nr uint32) uint32 {
	t.Helper()
	r, err := filters.EmulateStack(st.Stack(), filters.SeccompData{Nr: int32(nr), Arch: a.Audit})
	if err != nil {
		t.Fatal(err)
	}
	return r.Ret
}

// verdictFor is verdictOf for a syscall name a's table has.
func verdictFor(t *testing.T, st *Stack, a *scmp.Arch, name string) uint32 {
	t.Helper()
	nr, ok := a.Nr(name)
	if !ok {
		t.Fatalf("%s has no %s", a.Name, name)
	}
	return verdictOf(t, st, a, nr)
}

// outsideKnown lists the x86_64 names of our syscall table that v's
// @known lacks, lowest number first.
func outsideKnown(v int) []string {
	known, _ := GroupIn(v, "@known")
	var out []string
	for n := range scmp.X86_64.Table {
		if !slices.Contains(known, n) {
			out = append(out, n)
		}
	}
	sort.Slice(out, func(i, j int) bool { return scmp.X86_64.Table[out[i]] < scmp.X86_64.Table[out[j]] })
	return out
}

// withoutENOSYS returns a copy of v's table with AllowListENOSYS off: the
// same groups, built as 252 builds them.
func withoutENOSYS(v int) *groupTable {
	t := *groupTables[v]
	t.AllowListENOSYS = false
	return &t
}

// modelWith models unit with table tab (which need not be in
// groupTables), returning the stack and the filters before compilation.
func modelWith(t *testing.T, unit string, tab *groupTable) (*Stack, []*scmp.Filter) {
	t.Helper()
	c := newUnitContext(tab)
	if err := c.parseFile("u.service", []byte(unit)); err != nil {
		t.Fatal(err)
	}
	var fs []*scmp.Filter
	st, err := c.stack("u.service", Options{}, func(f *scmp.Filter) ([]bpf.RawInstruction, error) {
		fs = append(fs, f)
		return f.Compile()
	})
	if err != nil {
		t.Fatal(err)
	}
	return st, fs
}

// TestAllowListENOSYS: from systemd 255 on, an allow-list answers a call
// outside @known with ERRNO(ENOSYS) (src/shared/seccomp-util.c:
// override_default_action); 252 and 254 give the default action. A call in
// @known the list does not allow keeps SystemCallErrorNumber='s action.
func TestAllowListENOSYS(t *testing.T) {
	// open_tree_attr (Linux 6.15, x86_64 467) is in our table, not in
	// 257.13's syscall-list.txt (it arrives in 258).
	if out := outsideKnown(257); !slices.Contains(out, "open_tree_attr") {
		t.Fatalf("open_tree_attr is in 257's @known or not in our table: outside %v", out)
	}
	for _, tc := range []struct {
		unit string
		neg  uint32
	}{
		{"[Service]\nSystemCallFilter=@system-service\n", retKillProcess},
		{"[Service]\nSystemCallFilter=@system-service\nSystemCallErrorNumber=EPERM\n", retEPERM},
	} {
		for _, v := range Versions() {
			st, err := ParseUnit("u.service", []byte(tc.unit), Options{SystemdVersion: v})
			if err != nil {
				t.Fatal(err)
			}
			want := tc.neg
			if v >= 255 {
				want = retENOSYS
			}
			outside := outsideKnown(v)
			if len(outside) == 0 {
				t.Fatalf("systemd %d: our x86_64 table has no name outside @known", v)
			}
			svc, _ := GroupIn(v, "@system-service")
			def, _ := GroupIn(v, "@default")
			for _, n := range outside {
				if slices.Contains(svc, n) || slices.Contains(def, n) {
					// An entry, though outside @known (252.39's
					// @default has uretprobe): allowed.
					if got := verdictFor(t, st, scmp.X86_64, n); got != retAllow {
						t.Errorf("systemd %d: allowed %s = %#x", v, n, got)
					}
					continue
				}
				for _, a := range []*scmp.Arch{scmp.X86_64, scmp.X32} {
					if _, ok := a.Nr(n); !ok {
						continue
					}
					if got := verdictFor(t, st, a, n); got != want {
						t.Errorf("systemd %d %q: %s %s = %#x, want %#x", v, tc.unit, a.Name, n, got, want)
					}
				}
			}
			// A number no table names.
			if got := verdictOf(t, st, scmp.X86_64, 1000); got != want {
				t.Errorf("systemd %d: x86_64 nr 1000 = %#x, want %#x", v, got, want)
			}
			// In @known, not allowed: the requested action on every ABI.
			for _, a := range []*scmp.Arch{scmp.X86_64, scmp.X32, scmp.X86} {
				if got := verdictFor(t, st, a, "mount"); got != tc.neg {
					t.Errorf("systemd %d: %s mount = %#x, want %#x", v, a.Name, got, tc.neg)
				}
				if got := verdictFor(t, st, a, "read"); got != retAllow {
					t.Errorf("systemd %d: %s read = %#x, want ALLOW", v, a.Name, got)
				}
			}
			// vm86 is in @known but x86_64 has no such call, so
			// seccomp_syscall_resolve_name fails and systemd adds no rule:
			// on x86 it gets the filter's default, ENOSYS from 255 on.
			known, _ := GroupIn(v, "@known")
			if !slices.Contains(known, "vm86") {
				t.Fatalf("systemd %d @known lacks vm86", v)
			}
			if got := verdictFor(t, st, scmp.X86, "vm86"); got != want {
				t.Errorf("systemd %d: x86 vm86 = %#x, want %#x", v, got, want)
			}
			// vserver is in @known only through its "@obsolete" entry, a
			// group name seccomp_syscall_resolve_name cannot resolve, so
			// systemd adds no rule for it: ENOSYS from 255 on, as
			// systemd 257's installed filters answer it (internal/vmtest
			// -systemd-suite trixie).
			if slices.Contains(groupTables[v].Groups["@known"].Items, "vserver") ||
				!slices.Contains(groupTables[v].Groups["@obsolete"].Items, "vserver") {
				t.Fatalf("systemd %d: vserver is not @obsolete-only", v)
			}
			if got := verdictFor(t, st, scmp.X86_64, "vserver"); got != want {
				t.Errorf("systemd %d %q: x86_64 vserver = %#x, want %#x", v, tc.unit, got, want)
			}
		}
	}
}

// TestAllowListENOSYSScope: the override leaves deny-lists and
// SystemCallLog= alone (their default is ALLOW or LOG), and with
// SystemCallErrorNumber=ENOSYS it adds no rules (systemd adds the @known
// rules only when the default changed).
func TestAllowListENOSYSScope(t *testing.T) {
	same := []string{
		"[Service]\nSystemCallFilter=~@mount @reboot\n",
		"[Service]\nSystemCallFilter=~@mount\nSystemCallErrorNumber=EPERM\n",
		"[Service]\nSystemCallLog=@file-system\n",
		"[Service]\nSystemCallLog=~@file-system\n",
		"[Service]\nSystemCallFilter=@system-service\nSystemCallErrorNumber=ENOSYS\n",
	}
	for _, unit := range same {
		with, fs := modelWith(t, unit, groupTables[257])
		without, _ := modelWith(t, unit, withoutENOSYS(257))
		if len(with.Programs) == 0 || len(with.Programs) != len(without.Programs) {
			t.Fatalf("%q: %d filters, %d without the override", unit, len(with.Programs), len(without.Programs))
		}
		for i := range with.Programs {
			if !slices.Equal(with.Programs[i].Insns, without.Programs[i].Insns) {
				t.Errorf("%q: filter %d differs from 252's construction", unit, i)
			}
			if len(with.Programs[i].Notes) != 0 {
				t.Errorf("%q: filter %d has notes %q", unit, i, with.Programs[i].Notes)
			}
		}
		if strings.Contains(unit, "SystemCallFilter=~") {
			if got := verdictFor(t, with, scmp.X86_64, "open_tree_attr"); got != retAllow {
				t.Errorf("%q: open_tree_attr = %#x, want ALLOW", unit, got)
			}
		}
		if strings.Contains(unit, "ENOSYS") {
			c := newUnitContext(groupTables[257])
			if err := c.parseFile("u.service", []byte(unit)); err != nil {
				t.Fatal(err)
			}
			if n := len(fs[len(fs)-1].Rules); n != len(c.filter) {
				t.Errorf("%q: %d rules for %d entries", unit, n, len(c.filter))
			}
		}
	}
	// The allow-list itself does change: ENOSYS default, one rule per
	// @known name x86_64 resolves that the list lacks, with the
	// requested action.
	unit := "[Service]\nSystemCallFilter=@system-service\nSystemCallFilter=~@resources\n"
	_, fs := modelWith(t, unit, groupTables[257])
	_, old := modelWith(t, unit, withoutENOSYS(257))
	f, o := fs[len(fs)-1], old[len(old)-1]
	if f.DefAction != retENOSYS || o.DefAction != retKillProcess {
		t.Fatalf("default %#x (252's construction %#x)", f.DefAction, o.DefAction)
	}
	allowed := map[string]bool{}
	for _, r := range o.Rules {
		allowed[r.Syscall] = true
	}
	added := map[string]bool{}
	for _, r := range f.Rules[len(o.Rules):] {
		if r.Action != retKillProcess || allowed[r.Syscall] {
			t.Errorf("extra rule %s %#x", r.Syscall, r.Action)
		}
		added[r.Syscall] = true
	}
	// @known's own names, not its "@obsolete" entry (a group name, which
	// systemd's resolve skips).
	own := map[string]bool{}
	for _, n := range groupTables[257].Groups["@known"].Items {
		own[n] = true
	}
	known, _ := GroupIn(257, "@known")
	for _, n := range known {
		_, native := scmp.X86_64.Table[n]
		if want := native && own[n] && !allowed[n]; added[n] != want {
			t.Errorf("@known %s: rule %v, want %v", n, added[n], want)
		}
	}
	if !added["setrlimit"] || !added["mount"] {
		t.Errorf("no KILL rule for setrlimit (removed by ~@resources) or mount")
	}
}

// TestAllowListENOSYSNote: the stack says why a 255+ allow-list returns
// ENOSYS, at the SystemCallFilter= line; 252 says nothing.
func TestAllowListENOSYSNote(t *testing.T) {
	unit := []byte("[Service]\nSystemCallFilter=@system-service\n")
	const why = "systemd 257 answers calls it does not know with ENOSYS"
	st, err := ParseUnit("u.service", unit, Options{SystemdVersion: 257})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range st.Programs {
		if len(p.Notes) != 1 || !strings.HasPrefix(p.Notes[0], "u.service:2: "+why) || !strings.Contains(p.Notes[0], "get KILL_PROCESS") {
			t.Errorf("%s notes %q", p.Name, p.Notes)
		}
	}
	if s := st.String(); strings.Count(s, why) != 1 {
		t.Errorf("stack listing does not say it once:\n%s", s)
	}
	st, err = ParseUnit("u.service", unit, Options{SystemdVersion: 252})
	if err != nil {
		t.Fatal(err)
	}
	if s := st.String(); strings.Contains(s, "ENOSYS") {
		t.Errorf("252 listing mentions ENOSYS:\n%s", s)
	}
}

// TestSetFilterTree: from systemd 255 on, the filters built from a system
// call set ask libseccomp for its binary tree (SCMP_FLTATR_CTL_OPTIMIZE
// 2); the other directives' filters, and every filter before 255, keep
// libseccomp's default layout.
func TestSetFilterTree(t *testing.T) {
	unit := "[Service]\nProtectHostname=yes\nProtectClock=yes\nProtectKernelModules=yes\nPrivateDevices=yes\nLockPersonality=yes\nSystemCallLog=@privileged\nSystemCallFilter=~@mount\n"
	setBased := map[string]bool{"ProtectClock": true, "ProtectKernelModules": true, "PrivateDevices": true, "SystemCallLog": true, "SystemCallFilter": true}
	for _, v := range Versions() {
		tab := groupTables[v]
		if tab.SetFilterTree != (v >= 255) {
			t.Errorf("systemd %d: SetFilterTree %v", v, tab.SetFilterTree)
		}
		st, fs := modelWith(t, unit, tab)
		seen := map[string]bool{}
		for i, f := range fs {
			d := directiveOf(st, i)
			seen[d] = true
			if want := setBased[d] && tab.SetFilterTree; f.Tree != want {
				t.Errorf("systemd %d: %s filter %d Tree %v, want %v", v, d, i, f.Tree, want)
			}
		}
		for d := range setBased {
			if !seen[d] {
				t.Errorf("systemd %d: no %s filter", v, d)
			}
		}
	}
}

// TestHandoffWrite: systemd 256.2 and later put write into every allow
// list and take it out of every deny list before loading
// SystemCallFilter= (src/core/exec-invoke.c: apply_syscall_filter, for the
// handoff timestamp); an allow list giving write an errno fails the unit
// with EEXIST. 255 loads the lists as written.
func TestHandoffWrite(t *testing.T) {
	for _, v := range Versions() {
		if got, want := groupTables[v].HandoffWrite, v >= 256; got != want { // the 256 table is 256.17
			t.Errorf("systemd %d: HandoffWrite %v, want %v", v, got, want)
		}
	}
	model := func(unit string, v int) *Stack {
		t.Helper()
		st, err := ParseUnit("u.service", []byte(unit), Options{SystemdVersion: v})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	// An allow list without write.
	if mount, _ := GroupIn(257, "@mount"); slices.Contains(mount, "write") {
		t.Fatal("@mount has write")
	}
	for v, want := range map[int]uint32{255: retKillProcess, 257: retAllow} {
		st := model("[Service]\nSystemCallFilter=@mount\n", v)
		for _, a := range []*scmp.Arch{scmp.X86_64, scmp.X32, scmp.X86} {
			if got := verdictFor(t, st, a, "write"); got != want {
				t.Errorf("systemd %d allow list without write: %s write = %#x, want %#x", v, a.Name, got, want)
			}
		}
	}
	// A deny list with write: 257 refuses read but not write.
	unit := "[Service]\nSystemCallFilter=~@basic-io\n"
	for v, want := range map[int]uint32{255: retKillProcess, 257: retAllow} {
		st := model(unit, v)
		if got := verdictFor(t, st, scmp.X86_64, "write"); got != want {
			t.Errorf("systemd %d deny list: write = %#x, want %#x", v, got, want)
		}
		if got := verdictFor(t, st, scmp.X86_64, "read"); got != retKillProcess {
			t.Errorf("systemd %d deny list: read = %#x, want KILL_PROCESS", v, got)
		}
		warned := strings.Contains(strings.Join(st.Warnings, "\n"), "u.service:2: SystemCallFilter=: systemd 257 takes write out of a deny list")
		if warned != (v == 257) {
			t.Errorf("systemd %d: warnings %q", v, st.Warnings)
		}
	}
	// Only write: nothing is left, so 257 installs no filter.
	if st := model("[Service]\nSystemCallFilter=~write\n", 257); len(st.Programs) != 0 {
		t.Errorf("257 ~write: %d filters", len(st.Programs))
	}
	// ~write:EROFS on an allow list: 255 answers EROFS, 257 fails.
	unit = "[Service]\nSystemCallFilter=@system-service\nSystemCallFilter=~write:EROFS\n"
	if got := verdictFor(t, model(unit, 255), scmp.X86_64, "write"); got != errnoRet(30) {
		t.Errorf("255: write = %#x, want ERRNO(30)", got)
	}
	_, err := ParseUnit("u.service", []byte(unit), Options{SystemdVersion: 257})
	var se *filters.SourceError
	if !errors.Is(err, ErrHandoffWrite) || !errors.Is(err, ErrBadUnit) || !errors.As(err, &se) || se.Line != 3 {
		t.Errorf("257 ~write:EROFS on an allow list: %v", err)
	}
}
