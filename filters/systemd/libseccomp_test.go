//go:build libseccomp && cgo

package systemd

import (
	"os"
	"slices"
	"sort"
	"testing"

	libseccomp "github.com/seccomp/libseccomp-golang"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/internal/lsdiff"

	"github.com/seccompbench/seccompbench/filters/internal/filterstest"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"golang.org/x/net/bpf"
)

// systemdFilters models a unit and returns its filters before compilation
// (the same model ParseUnit compiles).
func systemdFilters(t *testing.T, name string, data []byte, opt Options) []*scmp.Filter {
	t.Helper()
	tab, err := tableFor(opt.SystemdVersion)
	if err != nil {
		t.Fatal(err)
	}
	c, err := parseUnit(name, data, tab)
	if err != nil {
		t.Fatal(err)
	}
	var out []*scmp.Filter
	_, err = c.stack(name, opt, func(f *scmp.Filter) ([]bpf.RawInstruction, error) {
		out = append(out, f)
		return f.Compile()
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestLibseccompSystemdDifferential(t *testing.T) {
	read := func(name string) []byte {
		b, err := os.ReadFile(filterstest.PoliciesDir + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tests := []struct {
		name    string
		data    []byte
		version int // 0: DefaultVersion
	}{
		{"hardened.service", read("hardened.service"), 0},
		{"timesyncd-like.service", read("timesyncd-like.service"), 0},
		{"allow list with errno", []byte("SystemCallFilter=@system-service\nSystemCallFilter=~@privileged:EACCES\nSystemCallErrorNumber=EPERM\n"), 0},
		{"deny list, log and archs", []byte("SystemCallFilter=~@mount @reboot\nSystemCallLog=@file-system\nSystemCallArchitectures=native x32\n"), 0},
		{"address families allow", []byte("RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6\nRestrictNamespaces=net uts\n"), 0},
		{"address families deny", []byte("RestrictAddressFamilies=~AF_PACKET AF_NETLINK\nRestrictNamespaces=yes\n"), 0},
		// Socket and SysV IPC calls that x86 multiplexes: libseccomp
		// resolves them to pseudo-numbers there (socket -101) and still
		// adds the rules.
		{"multiplexed calls denied", []byte("SystemCallFilter=~socket connect bind semop shmat\n"), 0},
		{"multiplexed calls allowed", []byte("SystemCallFilter=socket read write semop\nSystemCallErrorNumber=EACCES\n"), 0},
		// systemd 255+: ENOSYS default, @known calls not allowed get
		// the requested action (override_default_action).
		{"257 allow list", []byte("SystemCallFilter=@system-service\n"), 257},
		{"257 allow list with errno", []byte("SystemCallFilter=@system-service\nSystemCallFilter=~@privileged:EACCES\nSystemCallErrorNumber=EPERM\n"), 257},
		{"257 multiplexed calls allowed", []byte("SystemCallFilter=socket read write semop\nSystemCallErrorNumber=EACCES\n"), 257},
		{"257 deny list", []byte("SystemCallFilter=~@mount @reboot\n"), 257},
		{"255 hardened.service", read("hardened.service"), 255},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opt := Options{SystemdVersion: tt.version}
			native, err := ParseUnit(tt.name, tt.data, opt)
			if err != nil {
				t.Fatal(err)
			}
			lib, err := CompileLibseccomp(tt.name, tt.data, opt)
			if err != nil {
				t.Fatal(err)
			}
			if len(native.Programs) != len(lib.Programs) {
				t.Fatalf("native stack has %d filters, libseccomp %d", len(native.Programs), len(lib.Programs))
			}
			fs := systemdFilters(t, tt.name, tt.data, opt)
			var rules []scmp.Rule
			seen := map[string]bool{}
			for _, f := range fs {
				for _, r := range f.Rules {
					rules = append(rules, r)
					seen[r.Syscall] = true
				}
			}
			names := make([]string, 0, len(seen))
			for n := range seen {
				names = append(names, n)
			}
			sort.Strings(names)
			n, skipped := lsdiff.CompareStacks(t, native.Stack(), lib.Stack(), rules, names)
			nl, ll := 0, 0
			for i := range native.Programs {
				nl += native.Programs[i].Len()
				ll += lib.Programs[i].Len()
			}
			t.Logf("%d inputs agree (%d left out); %d filters: native %d instructions in all, libseccomp %d", n, skipped, len(native.Programs), nl, ll)
		})
	}
}

// parseUnit (tests) parses one unit file into a fresh context with tab's
// system call groups.
func parseUnit(name string, data []byte, tab *groupTable) (*unitContext, error) {
	c := newUnitContext(tab)
	if err := c.parseFile(name, data); err != nil {
		return nil, err
	}
	return c, nil
}

// TestLibseccompAllowListENOSYS: compiled by libseccomp as systemd 257
// does, an allow-list answers a call outside @known with ERRNO(ENOSYS)
// and a known call it does not allow with KILL_PROCESS, except a known
// call this libseccomp cannot name, or one @known holds only through its
// "@obsolete" entry: systemd skips both (seccomp_syscall_resolve_name
// fails), so they get ENOSYS too. With 252
// every call the list does not allow is killed.
func TestLibseccompAllowListENOSYS(t *testing.T) {
	unit := []byte("SystemCallFilter=@system-service\n")
	svc, _ := GroupIn(257, "@system-service")
	known, _ := GroupIn(257, "@known")
	var unnamed []string
	for _, v := range []int{252, 257} {
		st, err := CompileLibseccomp("u.service", unit, Options{SystemdVersion: v})
		if err != nil {
			t.Fatal(err)
		}
		if got := verdictFor(t, st, scmp.X86_64, "open_tree_attr"); got != map[int]uint32{252: retKillProcess, 257: retENOSYS}[v] {
			t.Errorf("systemd %d: open_tree_attr = %#x", v, got)
		}
		for _, n := range known {
			if _, ok := scmp.X86_64.Table[n]; !ok || slices.Contains(svc, n) {
				continue
			}
			want := retKillProcess
			if v == 257 && !slices.Contains(groupTables[v].Groups["@known"].Items, n) {
				// Known only through @known's "@obsolete" entry, which
				// systemd's resolve skips.
				want = retENOSYS
			} else if _, err := libseccomp.GetSyscallFromName(n); err != nil && v == 257 {
				want = retENOSYS
				unnamed = append(unnamed, n)
			}
			if got := verdictFor(t, st, scmp.X86_64, n); got != want {
				t.Errorf("systemd %d: %s = %#x, want %#x", v, n, got, want)
			}
		}
	}
	t.Logf("257's @known calls outside @system-service that this libseccomp cannot name, so ENOSYS: %v", unnamed)
}

// TestLibseccompSetFilterTree: compiled by libseccomp, systemd 257's
// ProtectClock= filter for x86 tests the syscall number with a jgt (the
// binary tree systemd asks for since 255); 252's is a list of jeq.
func TestLibseccompSetFilterTree(t *testing.T) {
	unit := []byte("ProtectClock=yes\n")
	for _, v := range []int{252, 257} {
		st, err := CompileLibseccomp("u.service", unit, Options{SystemdVersion: v})
		if err != nil {
			t.Fatal(err)
		}
		p := st.Programs[0]
		if st.Arches[0] != "x86" || directiveOf(st, 0) != "ProtectClock" {
			t.Fatalf("filter 0 is %s %s", directiveOf(st, 0), st.Arches[0])
		}
		jgt := 0
		for _, in := range p.Insns {
			if in.Op == filters.Jmp|filters.Jgt|filters.K && in.K < 1000 {
				jgt++
			}
		}
		if (jgt > 0) != (v >= 255) {
			t.Errorf("systemd %d: ProtectClock x86 has %d jgt on a syscall number", v, jgt)
		}
	}
}
