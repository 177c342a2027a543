package systemd

import (
	"errors"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
)

func mustSystemd(t *testing.T, text string) *Stack {
	t.Helper()
	st, err := ParseDirectives("--systemd", text, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestSystemdSystemService is the example: an allow list of
// @system-service with SystemCallErrorNumber=EPERM refuses reboot with EPERM
// and allows read, on every ABI, one filter per local architecture.
func TestSystemdSystemService(t *testing.T) {
	st := mustSystemd(t, "SystemCallFilter=@system-service\nSystemCallErrorNumber=EPERM\n")
	if got, want := st.Directives, []Directive{{"SystemCallFilter", 3}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("directives = %v, want %v", got, want)
	}
	if got, want := st.Arches, []string{"x86", "x32", "x86_64"}; !reflect.DeepEqual(got, want) {
		t.Errorf("arches = %v, want %v (systemd's seccomp_local_archs order, native last)", got, want)
	}
	var cases []verdictCase
	for _, a := range []*filters.Arch{filters.ArchX86_64, filters.ArchI386, filters.ArchX32} {
		cases = append(cases,
			verdictCase{name: a.Name + " reboot", arch: a, syscall: "reboot", action: filters.ActionErrno, data: eperm},
			verdictCase{name: a.Name + " read", arch: a, syscall: "read", action: filters.ActionAllow},
			verdictCase{name: a.Name + " getpid (@default)", arch: a, syscall: "getpid", action: filters.ActionAllow},
			verdictCase{name: a.Name + " mount", arch: a, syscall: "mount", action: filters.ActionErrno, data: eperm},
		)
	}
	runVerdicts(t, st.Stack(), cases)
	if !strings.HasSuffix(st.String(), "\n3 filters\n") {
		t.Errorf("String() does not end with \"3 filters\":\n%s", st)
	}
}

// TestSystemdFilterMerging follows config_parse_syscall_filter and
// seccomp_parse_syscall_filter: the first line decides allow or deny list,
// later lines add or remove, name:errno sets a per-call errno, an empty
// assignment resets, and the errno defaults to killing the process.
func TestSystemdFilterMerging(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		cases []verdictCase
	}{
		{"deny list", "SystemCallFilter=~@mount\nSystemCallErrorNumber=EPERM", []verdictCase{
			{name: "mount refused", syscall: "mount", action: filters.ActionErrno, data: eperm},
			{name: "read allowed", syscall: "read", action: filters.ActionAllow},
		}},
		{"deny list, later allow line removes", "SystemCallFilter=~@mount\nSystemCallFilter=umount2\nSystemCallErrorNumber=EPERM", []verdictCase{
			{name: "mount refused", syscall: "mount", action: filters.ActionErrno, data: eperm},
			{name: "umount2 allowed again", syscall: "umount2", action: filters.ActionAllow},
		}},
		{"allow list, later deny line removes", "SystemCallFilter=@system-service\nSystemCallFilter=~@file-system\nSystemCallErrorNumber=EPERM", []verdictCase{
			{name: "openat removed", syscall: "openat", action: filters.ActionErrno, data: eperm},
			{name: "read kept", syscall: "read", action: filters.ActionAllow},
		}},
		{"deny list with errno per call", "SystemCallFilter=~reboot:EACCES sethostname\nSystemCallErrorNumber=EPERM", []verdictCase{
			{name: "reboot EACCES", syscall: "reboot", action: filters.ActionErrno, data: 13},
			{name: "sethostname EPERM", syscall: "sethostname", action: filters.ActionErrno, data: eperm},
		}},
		{"allow list with ~name:errno", "SystemCallFilter=@basic-io\nSystemCallFilter=~write:EROFS", []verdictCase{
			{name: "write EROFS", syscall: "write", action: filters.ActionErrno, data: 30},
			{name: "read allowed", syscall: "read", action: filters.ActionAllow},
			{name: "unlisted killed (default errno is kill)", syscall: "openat", action: filters.ActionKillProcess},
		}},
		{"empty assignment resets", "SystemCallFilter=@basic-io\nSystemCallFilter=\nSystemCallFilter=~@reboot\nSystemCallErrorNumber=EPERM", []verdictCase{
			{name: "openat allowed after reset", syscall: "openat", action: filters.ActionAllow},
			{name: "reboot refused", syscall: "reboot", action: filters.ActionErrno, data: eperm},
		}},
		{"allow list takes no errno", "SystemCallFilter=read:EPERM\nSystemCallErrorNumber=ENOSYS", []verdictCase{
			{name: "read not added", syscall: "read", action: filters.ActionErrno, data: enosys},
			{name: "getpid from @default", syscall: "getpid", action: filters.ActionAllow},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runVerdicts(t, mustSystemd(t, tt.text).Stack(), tt.cases)
		})
	}
}

// TestSystemdHardening checks each hardening directive's own filter against
// what seccomp-util.c says it refuses, including the documented exceptions.
func TestSystemdHardening(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		dirs  []Directive
		cases []verdictCase
	}{
		{"RestrictNamespaces=yes", "RestrictNamespaces=yes", []Directive{{"RestrictNamespaces", 3}}, []verdictCase{
			{name: "unshare user", syscall: "unshare", args: []uint64{cloneNewUser}, action: filters.ActionErrno, data: eperm},
			{name: "clone newnet", syscall: "clone", args: []uint64{cloneNewNet}, action: filters.ActionErrno, data: eperm},
			{name: "clone plain", syscall: "clone", args: []uint64{sigchld}, action: filters.ActionAllow},
			{name: "clone3 ENOSYS", syscall: "clone3", action: filters.ActionErrno, data: enosys},
			{name: "setns any", syscall: "setns", args: []uint64{3, cloneNewNet}, action: filters.ActionErrno, data: eperm},
			{name: "i386 unshare user", arch: filters.ArchI386, syscall: "unshare", args: []uint64{cloneNewUser}, action: filters.ActionErrno, data: eperm},
		}},
		{"RestrictNamespaces=net", "RestrictNamespaces=net", []Directive{{"RestrictNamespaces", 3}}, []verdictCase{
			{name: "unshare net kept", syscall: "unshare", args: []uint64{cloneNewNet}, action: filters.ActionAllow},
			{name: "unshare user refused", syscall: "unshare", args: []uint64{cloneNewUser}, action: filters.ActionErrno, data: eperm},
			{name: "setns net kept", syscall: "setns", args: []uint64{3, cloneNewNet}, action: filters.ActionAllow},
			{name: "setns flags 0 refused", syscall: "setns", args: []uint64{3, 0}, action: filters.ActionErrno, data: eperm},
		}},
		{"RestrictAddressFamilies skips x86", "RestrictAddressFamilies=AF_UNIX AF_INET", []Directive{{"RestrictAddressFamilies", 2}}, []verdictCase{
			{name: "inet6 refused", syscall: "socket", args: []uint64{10}, action: filters.ActionErrno, data: 97},
			{name: "inet allowed", syscall: "socket", args: []uint64{2}, action: filters.ActionAllow},
			{name: "above the last refused", syscall: "socket", args: []uint64{45}, action: filters.ActionErrno, data: 97},
			{name: "x32 inet6 refused", arch: filters.ArchX32, syscall: "socket", args: []uint64{10}, action: filters.ActionErrno, data: 97},
			{name: "i386 inet6 not filtered (socketcall)", arch: filters.ArchI386, syscall: "socket", args: []uint64{10}, action: filters.ActionAllow},
		}},
		{"RestrictAddressFamilies deny list", "RestrictAddressFamilies=~AF_PACKET", []Directive{{"RestrictAddressFamilies", 2}}, []verdictCase{
			{name: "packet refused", syscall: "socket", args: []uint64{17}, action: filters.ActionErrno, data: 97},
			{name: "inet6 allowed", syscall: "socket", args: []uint64{10}, action: filters.ActionAllow},
		}},
		{"MemoryDenyWriteExecute", "MemoryDenyWriteExecute=yes", []Directive{{"MemoryDenyWriteExecute", 3}}, []verdictCase{
			{name: "mmap WX refused", syscall: "mmap", args: []uint64{0, 4096, 6}, action: filters.ActionErrno, data: eperm},
			{name: "mmap RW allowed", syscall: "mmap", args: []uint64{0, 4096, 3}, action: filters.ActionAllow},
			{name: "mprotect X refused", syscall: "mprotect", args: []uint64{0, 4096, 5}, action: filters.ActionErrno, data: eperm},
			{name: "shmat SHM_EXEC refused", syscall: "shmat", args: []uint64{1, 0, 0o100000}, action: filters.ActionErrno, data: eperm},
			{name: "i386 old mmap refused outright", arch: filters.ArchI386, syscall: "mmap", action: filters.ActionErrno, data: eperm},
			{name: "i386 mmap2 WX refused", arch: filters.ArchI386, syscall: "mmap2", args: []uint64{0, 4096, 6}, action: filters.ActionErrno, data: eperm},
			{name: "i386 shmat not filtered", arch: filters.ArchI386, syscall: "shmat", args: []uint64{1, 0, 0o100000}, action: filters.ActionAllow},
		}},
		{"RestrictRealtime", "RestrictRealtime=yes", []Directive{{"RestrictRealtime", 3}}, []verdictCase{
			{name: "SCHED_FIFO refused", syscall: "sched_setscheduler", args: []uint64{0, 1}, action: filters.ActionErrno, data: eperm},
			{name: "SCHED_BATCH allowed", syscall: "sched_setscheduler", args: []uint64{0, 3}, action: filters.ActionAllow},
			{name: "SCHED_DEADLINE refused", syscall: "sched_setscheduler", args: []uint64{0, 6}, action: filters.ActionErrno, data: eperm},
		}},
		{"DynamicUser implies RestrictSUIDSGID", "DynamicUser=yes", []Directive{{"RestrictSUIDSGID", 3}}, []verdictCase{
			{name: "chmod setuid refused", syscall: "chmod", args: []uint64{0, 0o4755}, action: filters.ActionErrno, data: eperm},
			{name: "chmod plain allowed", syscall: "chmod", args: []uint64{0, 0o755}, action: filters.ActionAllow},
			{name: "openat O_CREAT setgid refused", syscall: "openat", args: []uint64{0, 0, 0o100, 0o2755}, action: filters.ActionErrno, data: eperm},
			{name: "openat setgid without O_CREAT allowed", syscall: "openat", args: []uint64{0, 0, 0, 0o2755}, action: filters.ActionAllow},
			{name: "openat2 ENOSYS", syscall: "openat2", action: filters.ActionErrno, data: enosys},
		}},
		{"ProtectKernelTunables skips x32", "ProtectKernelTunables=yes", []Directive{{"ProtectKernelTunables", 2}}, []verdictCase{
			{name: "_sysctl refused", syscall: "_sysctl", action: filters.ActionErrno, data: eperm},
		}},
		{"ProtectClock", "ProtectClock=yes", []Directive{{"ProtectClock", 3}}, []verdictCase{
			{name: "clock_settime refused", syscall: "clock_settime", action: filters.ActionErrno, data: eperm},
			{name: "clock_gettime allowed", syscall: "clock_gettime", action: filters.ActionAllow},
		}},
		{"LockPersonality", "LockPersonality=yes", []Directive{{"LockPersonality", 3}}, []verdictCase{
			{name: "PER_LINUX allowed", syscall: "personality", args: []uint64{0}, action: filters.ActionAllow},
			{name: "PER_LINUX32 refused", syscall: "personality", args: []uint64{8}, action: filters.ActionErrno, data: eperm},
		}},
		{"SystemCallArchitectures=native blocks the others", "SystemCallArchitectures=native\nLockPersonality=yes\nProtectHostname=yes",
			[]Directive{{"ProtectHostname", 3}, {"SystemCallArchitectures", 1}, {"LockPersonality", 1}}, []verdictCase{
				{name: "i386 getpid killed", arch: filters.ArchI386, syscall: "getpid", action: filters.ActionKillThread},
				{name: "x32 getpid killed", arch: filters.ArchX32, syscall: "getpid", action: filters.ActionKillThread},
				{name: "x86_64 getpid allowed", syscall: "getpid", action: filters.ActionAllow},
				{name: "sethostname refused", syscall: "sethostname", action: filters.ActionErrno, data: eperm},
			}},
		{"SystemCallLog allow list", "SystemCallLog=@reboot", []Directive{{"SystemCallLog", 3}}, []verdictCase{
			{name: "reboot logged", syscall: "reboot", action: filters.ActionLog},
			{name: "read allowed", syscall: "read", action: filters.ActionAllow},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := mustSystemd(t, tt.text)
			if !reflect.DeepEqual(st.Directives, tt.dirs) {
				t.Errorf("directives = %v, want %v", st.Directives, tt.dirs)
			}
			runVerdicts(t, st.Stack(), tt.cases)
		})
	}
}

// TestSystemdCorpusUnits models the corpus units. The expected counts follow
// systemd 252's rules (src/core/execute.c: exec_child order;
// src/shared/seccomp-util.c: one filter per local arch x86, x32, x86_64):
//
// hardened.service:
//
//	ProtectHostname           3  sethostname/setdomainname, every arch
//	RestrictAddressFamilies   2  x86 skipped: socket() goes through socketcall()
//	MemoryDenyWriteExecute    3
//	RestrictRealtime          3
//	RestrictSUIDSGID          3
//	RestrictNamespaces        3
//	ProtectKernelTunables     2  x32 skipped: it has no _sysctl
//	ProtectKernelModules      3  @module
//	ProtectKernelLogs         3  syslog
//	ProtectClock              3  @clock
//	PrivateDevices            3  @raw-io
//	SystemCallArchitectures   1  one filter for all arches; blocks x86 and x32
//	LockPersonality           1  only x86_64 is left
//	SystemCallLog             1
//	SystemCallFilter          1
//	                         --
//	                         35
//
// timesyncd-like.service: RestrictAddressFamilies 2, RestrictRealtime 3,
// RestrictNamespaces 3, ProtectKernelModules 3, ProtectKernelLogs 3,
// PrivateDevices 3, SystemCallArchitectures 1, LockPersonality 1,
// SystemCallFilter 1: 20.
func TestSystemdCorpusUnits(t *testing.T) {
	load := func(name string) *Stack {
		t.Helper()
		b, err := os.ReadFile("../testdata/policies/" + name)
		if err != nil {
			t.Fatal(err)
		}
		st, err := ParseUnit(name, b, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	t.Run("hardened", func(t *testing.T) {
		st := load("hardened.service")
		want := []Directive{
			{"ProtectHostname", 3}, {"RestrictAddressFamilies", 2}, {"MemoryDenyWriteExecute", 3},
			{"RestrictRealtime", 3}, {"RestrictSUIDSGID", 3}, {"RestrictNamespaces", 3},
			{"ProtectKernelTunables", 2}, {"ProtectKernelModules", 3}, {"ProtectKernelLogs", 3},
			{"ProtectClock", 3}, {"PrivateDevices", 3}, {"SystemCallArchitectures", 1},
			{"LockPersonality", 1}, {"SystemCallLog", 1}, {"SystemCallFilter", 1},
		}
		if !reflect.DeepEqual(st.Directives, want) {
			t.Errorf("directives = %v\nwant %v", st.Directives, want)
		}
		if got := len(st.Programs); got != 35 {
			t.Errorf("filters = %d, want 35", got)
		}
		if p := st.Prefixes(); len(p) != len(want) || p[0] != 3 || p[len(p)-1] != 35 {
			t.Errorf("prefixes = %v", p)
		}
		if !strings.HasSuffix(st.String(), "\n35 filters\n") {
			t.Errorf("String() does not end with \"35 filters\"")
		}
		if _, err := filters.BuildStack(st.Programs, len(st.Programs)); err != nil {
			t.Errorf("the modeled stack breaks a kernel limit: %v", err)
		}
		runVerdicts(t, st.Stack(), []verdictCase{
			{name: "read allowed", syscall: "read", action: filters.ActionAllow},
			{name: "reboot EACCES (~reboot:EACCES)", syscall: "reboot", action: filters.ActionErrno, data: 13},
			{name: "setrlimit removed by ~@resources", syscall: "setrlimit", action: filters.ActionErrno, data: eperm},
			{name: "socket AF_NETLINK removed again", syscall: "socket", args: []uint64{16}, action: filters.ActionErrno, data: 97},
			{name: "socket AF_INET6 allowed", syscall: "socket", args: []uint64{10}, action: filters.ActionAllow},
			{name: "uselib logged (@obsolete), then refused by the allow list", syscall: "uselib", action: filters.ActionErrno, data: eperm},
			{name: "i386 read killed (SystemCallArchitectures=native)", arch: filters.ArchI386, syscall: "read", action: filters.ActionKillThread},
			{name: "mmap WX refused", syscall: "mmap", args: []uint64{0, 4096, 6}, action: filters.ActionErrno, data: eperm},
		})
	})
	t.Run("timesyncd-like", func(t *testing.T) {
		st := load("timesyncd-like.service")
		if got := len(st.Programs); got != 20 {
			t.Errorf("filters = %d, want 20 (%v)", got, st.Directives)
		}
		runVerdicts(t, st.Stack(), []verdictCase{
			{name: "clock_settime allowed", syscall: "clock_settime", action: filters.ActionAllow},
			{name: "adjtimex allowed", syscall: "adjtimex", action: filters.ActionAllow},
			{name: "reboot refused", syscall: "reboot", action: filters.ActionErrno, data: eperm},
			{name: "ptrace refused (@debug)", syscall: "ptrace", action: filters.ActionErrno, data: eperm},
			{name: "ioperm refused (@raw-io)", syscall: "ioperm", action: filters.ActionErrno, data: eperm},
		})
	})
}

func TestSystemdErrors(t *testing.T) {
	tests := []struct {
		name     string
		text     string
		wantLine int
		want     string
	}{
		{"missing =", "[Service]\nSystemCallFilter @basic-io\n", 2, "missing '='"},
		{"bad section", "\n\n[Service\n", 3, "section header"},
		{"bad boolean", "[Service]\n# comment\nLockPersonality=maybe\n", 3, "invalid boolean"},
		{"bad errno", "[Service]\nSystemCallErrorNumber=EWHATEVER\n", 2, "invalid errno"},
		{"bad namespace", "RestrictNamespaces=net time2\n", 1, "namespace type"},
		{"continuation keeps first line number", "[Service]\nSystemCallFilter=@basic-io \\\n  read\nProtectClock=perhaps\n", 4, "invalid boolean"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseUnit("x.service", []byte(tt.text), Options{})
			var se *filters.SourceError
			if !errors.Is(err, ErrBadUnit) || !errors.As(err, &se) {
				t.Fatalf("error = %v, want a *SourceError wrapping ErrBadUnit", err)
			}
			if se.Line != tt.wantLine || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %q (line %d), want line %d mentioning %q", err, se.Line, tt.wantLine, tt.want)
			}
		})
	}
}

func TestSystemdWarnings(t *testing.T) {
	st := mustSystemd(t, "[Service]\nSystemCallFilter=read no_such_call @no-such-group\n[Unit]\nSystemCallFilter=~read\n")
	want := []string{
		`--systemd:2: SystemCallFilter: unknown system call "no_such_call", ignoring`,
		`--systemd:2: SystemCallFilter: unknown system call group "@no-such-group", ignoring`,
		`--systemd:4: SystemCallFilter= is no [Unit] directive, ignoring (systemd does too); put it in [Service]`,
	}
	if !reflect.DeepEqual(st.Warnings, want) {
		t.Errorf("warnings = %q\nwant %q", st.Warnings, want)
	}
	// The [Unit] line is not an exec directive: read stays allowed.
	runVerdicts(t, st.Stack(), []verdictCase{{name: "read", syscall: "read", action: filters.ActionAllow}})
}

// TestSystemdUnknownKeys: keys that start like a hardening directive but
// are none get a warning (with the closest directive); keys systemd knows,
// and keys that look like no hardening directive, stay silent.
func TestSystemdUnknownKeys(t *testing.T) {
	tests := []struct {
		name, unit string
		want       []string
	}{
		{"known keys we do not model", "[Unit]\nDescription=x\nAfter=network.target\n[Service]\nExecStart=/bin/true\nUser=nobody\nPrivateTmp=yes\nProtectSystem=strict\nProtectHome=yes\nRestrictFileSystems=ext4\n[Install]\nWantedBy=multi-user.target\n", nil},
		{"key like no hardening directive", "[Service]\nFooBar=1\n", nil},
		{"plural typo", "[Service]\nSystemCallFilters=@system-service\n",
			[]string{`--systemd:2: unknown directive "SystemCallFilters", ignoring (systemd does too); did you mean "SystemCallFilter"?`}},
		{"wrong case", "systemCallFilter=read\n",
			[]string{`--systemd:1: unknown directive "systemCallFilter", ignoring (systemd does too); did you mean "SystemCallFilter"?`}},
		{"singular typo", "[Service]\nExecStart=/bin/true\nRestrictNamespace=yes\n",
			[]string{`--systemd:3: unknown directive "RestrictNamespace", ignoring (systemd does too); did you mean "RestrictNamespaces"?`}},
		{"unmodeled neighbour", "[Socket]\nProtectKernelModule=yes\n",
			[]string{`--systemd:2: unknown directive "ProtectKernelModule", ignoring (systemd does too); did you mean "ProtectKernelModules"?`}},
		{"no close directive", "[Service]\nProtectEverything=yes\n",
			[]string{`--systemd:2: unknown directive "ProtectEverything", ignoring (systemd does too)`}},
		{"directive in [Install]", "[Service]\nExecStart=/bin/true\n[Install]\nPrivateTmp=yes\n",
			[]string{`--systemd:4: PrivateTmp= is no [Install] directive, ignoring (systemd does too); put it in [Service]`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := mustSystemd(t, tt.unit)
			if !reflect.DeepEqual(st.Warnings, tt.want) {
				t.Errorf("warnings = %q\nwant %q", st.Warnings, tt.want)
			}
		})
	}
}

func TestSystemdGroups(t *testing.T) {
	names, ok := Group("@system-service")
	if !ok || !slices.Contains(names, "read") || !slices.Contains(names, "epoll_wait") || slices.Contains(names, "reboot") {
		t.Errorf("@system-service expansion wrong: ok=%v, %d names", ok, len(names))
	}
	if _, ok := Group("@nope"); ok {
		t.Error("@nope found")
	}
	if !strings.HasPrefix(GroupsVersion, "systemd 252") {
		t.Errorf("group data from %q, want systemd 252", GroupsVersion)
	}
}
