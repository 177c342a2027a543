package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/filters/systemd"
)

// TestProbeUnitModel checks that every directive of the systemd-as-init
// VM's probe unit is one the model installs filters for: 21 filters on
// x86_64 (7 directives × x86, x32, x86_64, SystemCallArchitectures= once,
// LockPersonality=, SystemCallLog= and SystemCallFilter= once each).
func TestProbeUnitModel(t *testing.T) {
	st, err := systemd.ParseUnit("probe.service", []byte(probeUnit), systemd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(st.Programs); got != 21 {
		t.Errorf("model installs %d filters, want 21", got)
	}
	for _, w := range st.Warnings {
		t.Errorf("warning: %s", w)
	}
	for _, u := range []string{checkUnit(nil, [][2]string{{"probe.service", probeComm}}), vmtestTarget, probeUnit, variantUnit, allowUnit, plusUnit} {
		if !strings.Contains(u, "DefaultDependencies=no") {
			t.Errorf("unit without DefaultDependencies=no (the initramfs has no sysinit.target):\n%s", u)
		}
	}
}

// TestProbeUnitsModel checks the model's stack for the VM's two other
// probe units. variant.service: x32 blocked by SystemCallArchitectures=
// native x86, so LockPersonality=, SystemCallLog= and SystemCallFilter=
// install one filter each for x86 and x86_64; RestrictSUIDSGID= comes
// from DynamicUser=. allowlist.service: x86 blocked, x32 kept.
func TestProbeUnitsModel(t *testing.T) {
	d := func(name string, n int) systemd.Directive { return systemd.Directive{Name: name, Count: n} }
	tests := []struct {
		name, text string
		want       []systemd.Directive
		filters    int
	}{
		{"variant.service", variantUnit, []systemd.Directive{
			d("RestrictAddressFamilies", 2), d("MemoryDenyWriteExecute", 3), d("RestrictSUIDSGID", 3),
			d("RestrictNamespaces", 3), d("ProtectKernelTunables", 2), d("ProtectKernelModules", 3),
			d("ProtectKernelLogs", 3), d("ProtectClock", 3), d("PrivateDevices", 3),
			d("SystemCallArchitectures", 1), d("LockPersonality", 2), d("SystemCallLog", 2), d("SystemCallFilter", 2),
		}, 32},
		{"allowlist.service", allowUnit, []systemd.Directive{
			d("RestrictAddressFamilies", 2), d("MemoryDenyWriteExecute", 3), d("RestrictRealtime", 3),
			d("RestrictNamespaces", 3), d("SystemCallArchitectures", 1), d("LockPersonality", 2),
			d("SystemCallLog", 2), d("SystemCallFilter", 2),
		}, 18},
		{"privileged.service", plusUnit, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := systemd.ParseUnit(tt.name, []byte(tt.text), systemd.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(st.Directives, tt.want) {
				t.Errorf("directives = %v\nwant %v", st.Directives, tt.want)
			}
			if got := len(st.Programs); got != tt.filters {
				t.Errorf("model installs %d filters, want %d", got, tt.filters)
			}
			for _, w := range st.Warnings {
				if tt.filters > 0 {
					t.Errorf("warning: %s", w)
				}
			}
		})
	}
}

func TestLddLine(t *testing.T) {
	out := "\tlinux-vdso.so.1 (0x00007ffd)\n\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f19)\n\t/lib64/ld-linux-x86-64.so.2 (0x00007f1a)\n"
	var got []string
	for _, m := range lddLine.FindAllStringSubmatch(out, -1) {
		got = append(got, m[1])
	}
	if strings.Join(got, " ") != "/lib/x86_64-linux-gnu/libc.so.6 /lib64/ld-linux-x86-64.so.2" {
		t.Errorf("got %q", got)
	}
}

func TestDeriveUnit(t *testing.T) {
	const unit = `[Unit]
Description=demo
Requires=demo.socket
ConditionCapability=CAP_SYS_TIME

[Service]
Type=notify
ExecStart=!!/usr/lib/demo --flag
BusName=org.example.demo
SystemCallFilter=@system-service \
  @clock
RestrictNamespaces=yes
# a comment
User=demo

[Install]
WantedBy=multi-user.target
`
	u := realUnit{Name: "systemd-demo.service", Comm: "demo-probe", Drop: map[string]string{"BusName": "no bus in the VM"}}
	text, changes, err := deriveUnit(u, hostUnitDir, []byte(unit))
	if err != nil {
		t.Fatal(err)
	}
	wantService := "[Service]\nType=simple\nExecStart=!!/vmtest/demo-probe\nSystemCallFilter=@system-service \\\n  @clock\nRestrictNamespaces=yes\nUser=demo\n"
	if !strings.HasSuffix(text, wantService) {
		t.Errorf("derived unit ends\n%s\nwant it to end\n%s", text, wantService)
	}
	for _, gone := range []string{"Requires=", "ConditionCapability=", "WantedBy=", "BusName=org", "/usr/lib/demo"} {
		if strings.Contains(strings.SplitN(text, "\n[Unit]\n", 2)[1], gone) {
			t.Errorf("derived unit still has %q:\n%s", gone, text)
		}
	}
	if !strings.Contains(text, "DefaultDependencies=no") {
		t.Errorf("derived unit lacks DefaultDependencies=no:\n%s", text)
	}
	wantChanges := []string{
		"[Unit] replaced by Description= and DefaultDependencies=no (its dependencies and conditions name units the VM does not have); [Install] left out",
		"Type=notify -> Type=simple (the probe daemon sends no READY=1)",
		"ExecStart=!!/usr/lib/demo --flag -> ExecStart=!!/vmtest/demo-probe (a probe daemon that only sleeps; prefix kept)",
		"BusName=org.example.demo dropped: no bus in the VM",
	}
	if strings.Join(changes, "\n") != strings.Join(wantChanges, "\n") {
		t.Errorf("changes =\n%s\nwant\n%s", strings.Join(changes, "\n"), strings.Join(wantChanges, "\n"))
	}

	errs := []struct {
		name string
		u    realUnit
		unit string
		want string
	}{
		{"seccomp directive not droppable", realUnit{Name: "a.service", Comm: "a-probe", Drop: map[string]string{"RestrictNamespaces": "x"}}, unit, "must be kept"},
		{"drop of a missing directive", realUnit{Name: "a.service", Comm: "a-probe", Drop: map[string]string{"Sockets": "x"}}, unit, "not in the unit: Sockets"},
		{"no sandboxing", realUnit{Name: "a.service", Comm: "a-probe"}, "[Service]\nExecStart=+/bin/true\n", "without sandboxing"},
		{"no ExecStart", realUnit{Name: "a.service", Comm: "a-probe"}, "[Service]\nUser=x\n", "no ExecStart="},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := deriveUnit(tt.u, hostUnitDir, []byte(tt.unit))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want one mentioning %q", err, tt.want)
			}
		})
	}
}

// TestRealUnitsKeepFilters checks on the host's own units that the VM
// copy installs, in the model, the same filters as the unit itself:
// deriveUnit changed nothing that decides a filter. With
// SECCOMPBENCH_VMTEST_ROOT set to a Debian root (the -systemd-suite
// cache, e.g. ~/.cache/seccompbench-vmtest/roots/trixie) it checks that
// root's units too, read as its systemd version.
func TestRealUnitsKeepFilters(t *testing.T) {
	seen := map[string]bool{}
	for _, u := range realUnits {
		if len(u.Comm) > 15 || !strings.HasSuffix(u.Comm, "-probe") || seen[u.Comm] {
			t.Errorf("%s: comm %q must be unique, end in -probe and fit in 15 bytes", u.Name, u.Comm)
		}
		seen[u.Comm] = true
	}
	dirs := []struct {
		dir     string
		version int
	}{{hostUnitDir, systemd.DefaultVersion}}
	if root := os.Getenv("SECCOMPBENCH_VMTEST_ROOT"); root != "" {
		r, err := prepareRoot(t.Context(), root, "", t.Logf)
		if err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, struct {
			dir     string
			version int
		}{r.unitDir(), r.SystemdMajor()})
	}
	for _, d := range dirs {
		for _, u := range realUnits {
			t.Run(fmt.Sprintf("%d/%s", d.version, u.Name), func(t *testing.T) {
				keepsFilters(t, u, d.dir, systemd.Options{SystemdVersion: d.version})
			})
		}
	}
}

// keepsFilters checks one unit of unitDir against its VM copy.
func keepsFilters(t *testing.T, u realUnit, unitDir string, opt systemd.Options) {
	data, err := os.ReadFile(filepath.Join(unitDir, u.Name))
	if err != nil {
		t.Skipf("no %s: %v", u.Name, err)
	}
	text, _, err := deriveUnit(u, unitDir, data)
	if err != nil {
		t.Fatal(err)
	}
	orig, err := systemd.ParseUnit(u.Name, data, opt)
	if err != nil {
		t.Fatal(err)
	}
	vm, err := systemd.ParseUnit(u.vmName(), []byte(text), opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(orig.Programs) == 0 {
		t.Fatalf("%s installs no filters in the model", u.Name)
	}
	if !reflect.DeepEqual(orig.Directives, vm.Directives) {
		t.Errorf("directives: unit %v, VM copy %v", orig.Directives, vm.Directives)
	}
	for i := range min(len(orig.Programs), len(vm.Programs)) {
		if !reflect.DeepEqual(orig.Programs[i].Insns, vm.Programs[i].Insns) {
			t.Errorf("filter %d (%s) differs in the VM copy", i, orig.Programs[i].Name)
		}
	}
	if orig.Privileged != vm.Privileged {
		t.Errorf("loader: unit privileged=%v, VM copy %v", orig.Privileged, vm.Privileged)
	}
}

func TestUnitSummaries(t *testing.T) {
	log := "[    4.1] systemd[1]: x\r\n    unit verdict: probe.service: 21 of 21 filters byte-identical (kernel 21, model 21)\r\n" +
		"    --- PASS: TestSystemd_probe/filter-00 (0.00s)\n" +
		"    unit verdict: vm-logind.service: no logind-probe process after 30s (the unit did not start; see systemd's messages above)\n"
	got := unitSummaries([]byte(log))
	want := []string{
		"probe.service: 21 of 21 filters byte-identical (kernel 21, model 21)",
		"vm-logind.service: no logind-probe process after 30s (the unit did not start; see systemd's messages above)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
