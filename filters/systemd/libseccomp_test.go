//go:build libseccomp && cgo

package systemd

import (
	"github.com/seccompbench/seccompbench/filters/internal/lsdiff"
	"os"
	"sort"
	"testing"

	"github.com/seccompbench/seccompbench/filters/internal/filterstest"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"golang.org/x/net/bpf"
)

// systemdFilters models a unit and returns its filters before compilation
// (the same model ParseUnit compiles).
func systemdFilters(t *testing.T, name string, data []byte) []*scmp.Filter {
	t.Helper()
	c, err := parseUnit(name, data, groupTables[DefaultVersion])
	if err != nil {
		t.Fatal(err)
	}
	var out []*scmp.Filter
	_, err = c.stack(name, Options{}, func(f *scmp.Filter) ([]bpf.RawInstruction, error) {
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
		name string
		data []byte
	}{
		{"hardened.service", read("hardened.service")},
		{"timesyncd-like.service", read("timesyncd-like.service")},
		{"allow list with errno", []byte("SystemCallFilter=@system-service\nSystemCallFilter=~@privileged:EACCES\nSystemCallErrorNumber=EPERM\n")},
		{"deny list, log and archs", []byte("SystemCallFilter=~@mount @reboot\nSystemCallLog=@file-system\nSystemCallArchitectures=native x32\n")},
		{"address families allow", []byte("RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6\nRestrictNamespaces=net uts\n")},
		{"address families deny", []byte("RestrictAddressFamilies=~AF_PACKET AF_NETLINK\nRestrictNamespaces=yes\n")},
		// Socket and SysV IPC calls that x86 multiplexes: libseccomp
		// resolves them to pseudo-numbers there (socket -101) and still
		// adds the rules.
		{"multiplexed calls denied", []byte("SystemCallFilter=~socket connect bind semop shmat\n")},
		{"multiplexed calls allowed", []byte("SystemCallFilter=socket read write semop\nSystemCallErrorNumber=EACCES\n")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			native, err := ParseUnit(tt.name, tt.data, Options{})
			if err != nil {
				t.Fatal(err)
			}
			lib, err := CompileLibseccomp(tt.name, tt.data, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(native.Programs) != len(lib.Programs) {
				t.Fatalf("native stack has %d filters, libseccomp %d", len(native.Programs), len(lib.Programs))
			}
			fs := systemdFilters(t, tt.name, tt.data)
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
