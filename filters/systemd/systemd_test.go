package systemd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/internal/filterstest"
)

const (
	cloneNewUser = 0x10000000
	cloneNewNet  = 0x40000000
	cloneNewTime = 0x80 // include/uapi/linux/sched.h
	sigchld      = 17
	eperm        = 1
	enosys       = 38
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
	var cases []filterstest.VerdictCase
	for _, a := range []*filters.Arch{filters.ArchX86_64, filters.ArchI386, filters.ArchX32} {
		cases = append(cases,
			filterstest.VerdictCase{Name: a.Name + " reboot", Arch: a, Syscall: "reboot", Action: filters.ActionErrno, Data: eperm},
			filterstest.VerdictCase{Name: a.Name + " read", Arch: a, Syscall: "read", Action: filters.ActionAllow},
			filterstest.VerdictCase{Name: a.Name + " getpid (@default)", Arch: a, Syscall: "getpid", Action: filters.ActionAllow},
			filterstest.VerdictCase{Name: a.Name + " mount", Arch: a, Syscall: "mount", Action: filters.ActionErrno, Data: eperm},
		)
	}
	filterstest.RunVerdicts(t, st.Stack(), cases)
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
		cases []filterstest.VerdictCase
	}{
		{"deny list", "SystemCallFilter=~@mount\nSystemCallErrorNumber=EPERM", []filterstest.VerdictCase{
			{Name: "mount refused", Syscall: "mount", Action: filters.ActionErrno, Data: eperm},
			{Name: "read allowed", Syscall: "read", Action: filters.ActionAllow},
		}},
		{"deny list, later allow line removes", "SystemCallFilter=~@mount\nSystemCallFilter=umount2\nSystemCallErrorNumber=EPERM", []filterstest.VerdictCase{
			{Name: "mount refused", Syscall: "mount", Action: filters.ActionErrno, Data: eperm},
			{Name: "umount2 allowed again", Syscall: "umount2", Action: filters.ActionAllow},
		}},
		{"allow list, later deny line removes", "SystemCallFilter=@system-service\nSystemCallFilter=~@file-system\nSystemCallErrorNumber=EPERM", []filterstest.VerdictCase{
			{Name: "openat removed", Syscall: "openat", Action: filters.ActionErrno, Data: eperm},
			{Name: "read kept", Syscall: "read", Action: filters.ActionAllow},
		}},
		{"deny list with errno per call", "SystemCallFilter=~reboot:EACCES sethostname\nSystemCallErrorNumber=EPERM", []filterstest.VerdictCase{
			{Name: "reboot EACCES", Syscall: "reboot", Action: filters.ActionErrno, Data: 13},
			{Name: "sethostname EPERM", Syscall: "sethostname", Action: filters.ActionErrno, Data: eperm},
		}},
		{"allow list with ~name:errno", "SystemCallFilter=@basic-io\nSystemCallFilter=~write:EROFS", []filterstest.VerdictCase{
			{Name: "write EROFS", Syscall: "write", Action: filters.ActionErrno, Data: 30},
			{Name: "read allowed", Syscall: "read", Action: filters.ActionAllow},
			{Name: "unlisted killed (default errno is kill)", Syscall: "openat", Action: filters.ActionKillProcess},
		}},
		{"empty assignment resets", "SystemCallFilter=@basic-io\nSystemCallFilter=\nSystemCallFilter=~@reboot\nSystemCallErrorNumber=EPERM", []filterstest.VerdictCase{
			{Name: "openat allowed after reset", Syscall: "openat", Action: filters.ActionAllow},
			{Name: "reboot refused", Syscall: "reboot", Action: filters.ActionErrno, Data: eperm},
		}},
		{"allow list takes no errno", "SystemCallFilter=read:EPERM\nSystemCallErrorNumber=ENOSYS", []filterstest.VerdictCase{
			{Name: "read not added", Syscall: "read", Action: filters.ActionErrno, Data: enosys},
			{Name: "getpid from @default", Syscall: "getpid", Action: filters.ActionAllow},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			filterstest.RunVerdicts(t, mustSystemd(t, tt.text).Stack(), tt.cases)
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
		cases []filterstest.VerdictCase
	}{
		{"RestrictNamespaces=yes", "RestrictNamespaces=yes", []Directive{{"RestrictNamespaces", 3}}, []filterstest.VerdictCase{
			{Name: "unshare user", Syscall: "unshare", Args: []uint64{cloneNewUser}, Action: filters.ActionErrno, Data: eperm},
			{Name: "clone newnet", Syscall: "clone", Args: []uint64{cloneNewNet}, Action: filters.ActionErrno, Data: eperm},
			{Name: "clone plain", Syscall: "clone", Args: []uint64{sigchld}, Action: filters.ActionAllow},
			{Name: "clone3 ENOSYS", Syscall: "clone3", Action: filters.ActionErrno, Data: enosys},
			{Name: "setns any", Syscall: "setns", Args: []uint64{3, cloneNewNet}, Action: filters.ActionErrno, Data: eperm},
			{Name: "i386 unshare user", Arch: filters.ArchI386, Syscall: "unshare", Args: []uint64{cloneNewUser}, Action: filters.ActionErrno, Data: eperm},
			// namespace_info has "time", NAMESPACE_FLAGS_ALL does not:
			// =yes retains nothing, so CLONE_NEWTIME is refused too.
			{Name: "unshare newtime", Syscall: "unshare", Args: []uint64{cloneNewTime}, Action: filters.ActionErrno, Data: eperm},
			{Name: "clone newtime", Syscall: "clone", Args: []uint64{cloneNewTime | sigchld}, Action: filters.ActionErrno, Data: eperm},
			{Name: "x32 unshare newtime", Arch: filters.ArchX32, Syscall: "unshare", Args: []uint64{cloneNewTime}, Action: filters.ActionErrno, Data: eperm},
			// clone3 is refused whatever its (indirect) flags say: ENOSYS on
			// every arch, so glibc falls back to clone.
			{Name: "clone3 no flags ENOSYS", Syscall: "clone3", Args: []uint64{0, 88}, Action: filters.ActionErrno, Data: enosys},
			{Name: "i386 clone3 ENOSYS", Arch: filters.ArchI386, Syscall: "clone3", Action: filters.ActionErrno, Data: enosys},
			{Name: "x32 clone3 ENOSYS", Arch: filters.ArchX32, Syscall: "clone3", Action: filters.ActionErrno, Data: enosys},
		}},
		{"RestrictNamespaces=net", "RestrictNamespaces=net", []Directive{{"RestrictNamespaces", 3}}, []filterstest.VerdictCase{
			{Name: "unshare net kept", Syscall: "unshare", Args: []uint64{cloneNewNet}, Action: filters.ActionAllow},
			{Name: "unshare user refused", Syscall: "unshare", Args: []uint64{cloneNewUser}, Action: filters.ActionErrno, Data: eperm},
			{Name: "setns net kept", Syscall: "setns", Args: []uint64{3, cloneNewNet}, Action: filters.ActionAllow},
			{Name: "setns flags 0 refused", Syscall: "setns", Args: []uint64{3, 0}, Action: filters.ActionErrno, Data: eperm},
			{Name: "setns newtime refused", Syscall: "setns", Args: []uint64{3, cloneNewTime}, Action: filters.ActionErrno, Data: eperm},
			{Name: "unshare newtime refused", Syscall: "unshare", Args: []uint64{cloneNewTime}, Action: filters.ActionErrno, Data: eperm},
			{Name: "clone3 ENOSYS", Syscall: "clone3", Action: filters.ActionErrno, Data: enosys},
		}},
		// Only CLONE_NEWTIME retained: nothing of NAMESPACE_FLAGS_ALL is,
		// so setns is refused outright, yet unshare(CLONE_NEWTIME) passes.
		{"RestrictNamespaces=time", "RestrictNamespaces=time", []Directive{{"RestrictNamespaces", 3}}, []filterstest.VerdictCase{
			{Name: "unshare newtime kept", Syscall: "unshare", Args: []uint64{cloneNewTime}, Action: filters.ActionAllow},
			{Name: "unshare net refused", Syscall: "unshare", Args: []uint64{cloneNewNet}, Action: filters.ActionErrno, Data: eperm},
			{Name: "setns newtime refused (setns blocked)", Syscall: "setns", Args: []uint64{3, cloneNewTime}, Action: filters.ActionErrno, Data: eperm},
		}},
		// ~time on a fresh value is (~CLONE_NEWTIME) & NAMESPACE_FLAGS_ALL
		// = every flag of NAMESPACE_FLAGS_ALL: no restriction, no filter.
		{"RestrictNamespaces=~time installs nothing", "RestrictNamespaces=~time", nil, []filterstest.VerdictCase{
			{Name: "unshare newtime allowed", Syscall: "unshare", Args: []uint64{cloneNewTime}, Action: filters.ActionAllow},
		}},
		// fchmodat2(dirfd, path, mode, flags): the mode is args[2], as for
		// fchmodat (seccomp-util.c: seccomp_restrict_sxid).
		{"RestrictSUIDSGID fchmodat2", "RestrictSUIDSGID=yes", []Directive{{"RestrictSUIDSGID", 3}}, []filterstest.VerdictCase{
			{Name: "fchmodat2 S_ISUID refused", Syscall: "fchmodat2", Args: []uint64{100, 0, 0o4755, 0}, Action: filters.ActionErrno, Data: eperm},
			{Name: "fchmodat2 S_ISGID refused", Syscall: "fchmodat2", Args: []uint64{100, 0, 0o2750, 0}, Action: filters.ActionErrno, Data: eperm},
			{Name: "fchmodat2 plain allowed", Syscall: "fchmodat2", Args: []uint64{100, 0, 0o755, 0}, Action: filters.ActionAllow},
			{Name: "fchmodat2 S_ISUID in flags is no mode", Syscall: "fchmodat2", Args: []uint64{100, 0, 0o644, 0o4000}, Action: filters.ActionAllow},
			{Name: "i386 fchmodat2 S_ISUID refused", Arch: filters.ArchI386, Syscall: "fchmodat2", Args: []uint64{100, 0, 0o4755, 0}, Action: filters.ActionErrno, Data: eperm},
			{Name: "x32 fchmodat2 S_ISGID refused", Arch: filters.ArchX32, Syscall: "fchmodat2", Args: []uint64{100, 0, 0o2755, 0}, Action: filters.ActionErrno, Data: eperm},
			{Name: "fchmodat S_ISUID refused", Syscall: "fchmodat", Args: []uint64{100, 0, 0o4755}, Action: filters.ActionErrno, Data: eperm},
		}},
		{"RestrictAddressFamilies skips x86", "RestrictAddressFamilies=AF_UNIX AF_INET", []Directive{{"RestrictAddressFamilies", 2}}, []filterstest.VerdictCase{
			{Name: "inet6 refused", Syscall: "socket", Args: []uint64{10}, Action: filters.ActionErrno, Data: 97},
			{Name: "inet allowed", Syscall: "socket", Args: []uint64{2}, Action: filters.ActionAllow},
			{Name: "above the last refused", Syscall: "socket", Args: []uint64{45}, Action: filters.ActionErrno, Data: 97},
			{Name: "x32 inet6 refused", Arch: filters.ArchX32, Syscall: "socket", Args: []uint64{10}, Action: filters.ActionErrno, Data: 97},
			{Name: "i386 inet6 not filtered (socketcall)", Arch: filters.ArchI386, Syscall: "socket", Args: []uint64{10}, Action: filters.ActionAllow},
		}},
		{"RestrictAddressFamilies deny list", "RestrictAddressFamilies=~AF_PACKET", []Directive{{"RestrictAddressFamilies", 2}}, []filterstest.VerdictCase{
			{Name: "packet refused", Syscall: "socket", Args: []uint64{17}, Action: filters.ActionErrno, Data: 97},
			{Name: "inet6 allowed", Syscall: "socket", Args: []uint64{10}, Action: filters.ActionAllow},
		}},
		{"MemoryDenyWriteExecute", "MemoryDenyWriteExecute=yes", []Directive{{"MemoryDenyWriteExecute", 3}}, []filterstest.VerdictCase{
			{Name: "mmap WX refused", Syscall: "mmap", Args: []uint64{0, 4096, 6}, Action: filters.ActionErrno, Data: eperm},
			{Name: "mmap RW allowed", Syscall: "mmap", Args: []uint64{0, 4096, 3}, Action: filters.ActionAllow},
			{Name: "mprotect X refused", Syscall: "mprotect", Args: []uint64{0, 4096, 5}, Action: filters.ActionErrno, Data: eperm},
			{Name: "shmat SHM_EXEC refused", Syscall: "shmat", Args: []uint64{1, 0, 0o100000}, Action: filters.ActionErrno, Data: eperm},
			{Name: "i386 old mmap refused outright", Arch: filters.ArchI386, Syscall: "mmap", Action: filters.ActionErrno, Data: eperm},
			{Name: "i386 mmap2 WX refused", Arch: filters.ArchI386, Syscall: "mmap2", Args: []uint64{0, 4096, 6}, Action: filters.ActionErrno, Data: eperm},
			{Name: "i386 shmat not filtered", Arch: filters.ArchI386, Syscall: "shmat", Args: []uint64{1, 0, 0o100000}, Action: filters.ActionAllow},
		}},
		{"RestrictRealtime", "RestrictRealtime=yes", []Directive{{"RestrictRealtime", 3}}, []filterstest.VerdictCase{
			{Name: "SCHED_FIFO refused", Syscall: "sched_setscheduler", Args: []uint64{0, 1}, Action: filters.ActionErrno, Data: eperm},
			{Name: "SCHED_BATCH allowed", Syscall: "sched_setscheduler", Args: []uint64{0, 3}, Action: filters.ActionAllow},
			{Name: "SCHED_DEADLINE refused", Syscall: "sched_setscheduler", Args: []uint64{0, 6}, Action: filters.ActionErrno, Data: eperm},
		}},
		{"DynamicUser implies RestrictSUIDSGID", "DynamicUser=yes", []Directive{{"RestrictSUIDSGID", 3}}, []filterstest.VerdictCase{
			{Name: "chmod setuid refused", Syscall: "chmod", Args: []uint64{0, 0o4755}, Action: filters.ActionErrno, Data: eperm},
			{Name: "chmod plain allowed", Syscall: "chmod", Args: []uint64{0, 0o755}, Action: filters.ActionAllow},
			{Name: "openat O_CREAT setgid refused", Syscall: "openat", Args: []uint64{0, 0, 0o100, 0o2755}, Action: filters.ActionErrno, Data: eperm},
			{Name: "openat setgid without O_CREAT allowed", Syscall: "openat", Args: []uint64{0, 0, 0, 0o2755}, Action: filters.ActionAllow},
			{Name: "openat2 ENOSYS", Syscall: "openat2", Action: filters.ActionErrno, Data: enosys},
		}},
		{"ProtectKernelTunables skips x32", "ProtectKernelTunables=yes", []Directive{{"ProtectKernelTunables", 2}}, []filterstest.VerdictCase{
			{Name: "_sysctl refused", Syscall: "_sysctl", Action: filters.ActionErrno, Data: eperm},
		}},
		{"ProtectClock", "ProtectClock=yes", []Directive{{"ProtectClock", 3}}, []filterstest.VerdictCase{
			{Name: "clock_settime refused", Syscall: "clock_settime", Action: filters.ActionErrno, Data: eperm},
			{Name: "clock_gettime allowed", Syscall: "clock_gettime", Action: filters.ActionAllow},
		}},
		{"LockPersonality", "LockPersonality=yes", []Directive{{"LockPersonality", 3}}, []filterstest.VerdictCase{
			{Name: "PER_LINUX allowed", Syscall: "personality", Args: []uint64{0}, Action: filters.ActionAllow},
			{Name: "PER_LINUX32 refused", Syscall: "personality", Args: []uint64{8}, Action: filters.ActionErrno, Data: eperm},
		}},
		{"SystemCallArchitectures=native blocks the others", "SystemCallArchitectures=native\nLockPersonality=yes\nProtectHostname=yes",
			[]Directive{{"ProtectHostname", 3}, {"SystemCallArchitectures", 1}, {"LockPersonality", 1}}, []filterstest.VerdictCase{
				{Name: "i386 getpid killed", Arch: filters.ArchI386, Syscall: "getpid", Action: filters.ActionKillThread},
				{Name: "x32 getpid killed", Arch: filters.ArchX32, Syscall: "getpid", Action: filters.ActionKillThread},
				{Name: "x86_64 getpid allowed", Syscall: "getpid", Action: filters.ActionAllow},
				{Name: "sethostname refused", Syscall: "sethostname", Action: filters.ActionErrno, Data: eperm},
			}},
		{"SystemCallLog allow list", "SystemCallLog=@reboot", []Directive{{"SystemCallLog", 3}}, []filterstest.VerdictCase{
			{Name: "reboot logged", Syscall: "reboot", Action: filters.ActionLog},
			{Name: "read allowed", Syscall: "read", Action: filters.ActionAllow},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := mustSystemd(t, tt.text)
			if !reflect.DeepEqual(st.Directives, tt.dirs) {
				t.Errorf("directives = %v, want %v", st.Directives, tt.dirs)
			}
			filterstest.RunVerdicts(t, st.Stack(), tt.cases)
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
		b, err := os.ReadFile(filterstest.PoliciesDir + "/" + name)
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
		filterstest.RunVerdicts(t, st.Stack(), []filterstest.VerdictCase{
			{Name: "read allowed", Syscall: "read", Action: filters.ActionAllow},
			{Name: "reboot EACCES (~reboot:EACCES)", Syscall: "reboot", Action: filters.ActionErrno, Data: 13},
			{Name: "setrlimit removed by ~@resources", Syscall: "setrlimit", Action: filters.ActionErrno, Data: eperm},
			{Name: "socket AF_NETLINK removed again", Syscall: "socket", Args: []uint64{16}, Action: filters.ActionErrno, Data: 97},
			{Name: "socket AF_INET6 allowed", Syscall: "socket", Args: []uint64{10}, Action: filters.ActionAllow},
			{Name: "uselib logged (@obsolete), then refused by the allow list", Syscall: "uselib", Action: filters.ActionErrno, Data: eperm},
			{Name: "i386 read killed (SystemCallArchitectures=native)", Arch: filters.ArchI386, Syscall: "read", Action: filters.ActionKillThread},
			{Name: "mmap WX refused", Syscall: "mmap", Args: []uint64{0, 4096, 6}, Action: filters.ActionErrno, Data: eperm},
		})
	})
	t.Run("timesyncd-like", func(t *testing.T) {
		st := load("timesyncd-like.service")
		if got := len(st.Programs); got != 20 {
			t.Errorf("filters = %d, want 20 (%v)", got, st.Directives)
		}
		filterstest.RunVerdicts(t, st.Stack(), []filterstest.VerdictCase{
			{Name: "clock_settime allowed", Syscall: "clock_settime", Action: filters.ActionAllow},
			{Name: "adjtimex allowed", Syscall: "adjtimex", Action: filters.ActionAllow},
			{Name: "reboot refused", Syscall: "reboot", Action: filters.ActionErrno, Data: eperm},
			{Name: "ptrace refused (@debug)", Syscall: "ptrace", Action: filters.ActionErrno, Data: eperm},
			{Name: "ioperm refused (@raw-io)", Syscall: "ioperm", Action: filters.ActionErrno, Data: eperm},
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
	st := mustSystemd(t, "[Service]\nSystemCallFilter=read no_such_call @no-such-group\n[Unit]\nSystemCallFilter=~read\n[Service]\nRestrictNamespaces=net time2\n")
	want := []string{
		`--systemd:2: SystemCallFilter: unknown system call "no_such_call", ignoring`,
		`--systemd:2: SystemCallFilter: unknown system call group "@no-such-group", ignoring (unknown to systemd 252)`,
		`--systemd:4: SystemCallFilter= is no [Unit] directive, ignoring (systemd does too); put it in [Service]`,
		`--systemd:6: RestrictNamespaces: unknown namespace type "time2", ignoring the line (systemd does too); want cgroup, ipc, net, mnt, pid, user, uts or time`,
	}
	// config_parse_restrict_namespaces ignores the whole bad line: no filter.
	for _, d := range st.Directives {
		if d.Name == "RestrictNamespaces" {
			t.Errorf("RestrictNamespaces installed %d filters from an ignored line", d.Count)
		}
	}
	if !reflect.DeepEqual(st.Warnings, want) {
		t.Errorf("warnings = %q\nwant %q", st.Warnings, want)
	}
	// The [Unit] line is not an exec directive: read stays allowed.
	filterstest.RunVerdicts(t, st.Stack(), []filterstest.VerdictCase{{Name: "read", Syscall: "read", Action: filters.ActionAllow}})
}

// TestSystemdUnknownKeys: every key the section does not have in systemd
// gets a warning, with the closest key of the section; keys systemd
// knows and X- keys stay silent.
func TestSystemdUnknownKeys(t *testing.T) {
	tests := []struct {
		name, unit string
		want       []string
	}{
		{"known keys we do not model", "[Unit]\nDescription=x\nAfter=network.target\n[Service]\nExecStart=/bin/true\nUser=nobody\nPrivateTmp=yes\nProtectSystem=strict\nProtectHome=yes\nRestrictFileSystems=ext4\n[Install]\nWantedBy=multi-user.target\n", nil},
		{"any unknown key", "[Service]\nFooBarBaz=1\nX-Mine=1\n[X-Vendor]\nAnything=1\n[Unit]\nDescriptio=x\n",
			[]string{`--systemd:2: unknown directive "FooBarBaz" in [Service], ignoring (systemd does too)`,
				`--systemd:7: unknown directive "Descriptio" in [Unit], ignoring (systemd does too); did you mean "Description"?`}},
		{"plural typo", "[Service]\nSystemCallFilters=@system-service\n",
			[]string{`--systemd:2: unknown directive "SystemCallFilters" in [Service], ignoring (systemd does too); did you mean "SystemCallFilter"?`}},
		{"wrong case", "systemCallFilter=read\n",
			[]string{`--systemd:1: unknown directive "systemCallFilter" in [Service], ignoring (systemd does too); did you mean "SystemCallFilter"?`}},
		{"singular typo", "[Service]\nExecStart=/bin/true\nRestrictNamespace=yes\n",
			[]string{`--systemd:3: unknown directive "RestrictNamespace" in [Service], ignoring (systemd does too); did you mean "RestrictNamespaces"?`}},
		{"unmodeled neighbour", "[Socket]\nProtectKernelModule=yes\n",
			[]string{`--systemd:2: unknown directive "ProtectKernelModule" in [Socket], ignoring (systemd does too); did you mean "ProtectKernelModules"?`}},
		{"no close directive", "[Service]\nProtectEverything=yes\n",
			[]string{`--systemd:2: unknown directive "ProtectEverything" in [Service], ignoring (systemd does too)`}},
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
	if gv := groupTables[DefaultVersion].Label(); !strings.HasPrefix(gv, "systemd 252") {
		t.Errorf("group data from %q, want systemd 252", gv)
	}
}

// TestTemplatePlaceholders: a unit template as systemd's source tree
// holds it (units/systemd-resolved.service.in) loads with one warning per
// placeholder line, at its line, and the placeholders change nothing else.
func TestTemplatePlaceholders(t *testing.T) {
	tmpl := "[Unit]\nDescription=Network Name Resolution\n\n[Service]\n" +
		"@SERVICE_WATCHDOG@\n" +
		"{{SERVICE_WATCHDOG}}\n" +
		"ExecStart={{LIBEXECDIR}}/systemd-resolved\n" +
		"SystemCallArchitectures=native\nSystemCallErrorNumber=EPERM\nSystemCallFilter=@system-service\n"
	built := "[Unit]\nDescription=Network Name Resolution\n\n[Service]\n" +
		"SystemCallArchitectures=native\nSystemCallErrorNumber=EPERM\nSystemCallFilter=@system-service\n"
	got, err := ParseUnit("systemd-resolved.service.in", []byte(tmpl), Options{})
	if err != nil {
		t.Fatalf("ParseUnit(template): %v", err)
	}
	want, err := ParseUnit("systemd-resolved.service.in", []byte(built), Options{})
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(got.Warnings, "\n")
	for _, at := range []string{"systemd-resolved.service.in:5: template placeholder @SERVICE_WATCHDOG@", "systemd-resolved.service.in:6: template placeholder {{SERVICE_WATCHDOG}}", "systemd-resolved.service.in:7: template placeholder {{LIBEXECDIR}}"} {
		if !strings.Contains(joined, at) {
			t.Errorf("warnings %q lack %q", joined, at)
		}
	}
	if len(got.Programs) != len(want.Programs) {
		t.Fatalf("template: %d filters, built unit: %d", len(got.Programs), len(want.Programs))
	}
	for i := range got.Programs {
		if got.Programs[i].SHA256() != want.Programs[i].SHA256() {
			t.Errorf("filter %d differs between the template and the built unit", i)
		}
	}
}

// TestSystemdExecStartPrefix: exec_child applies no sandboxing, so no
// filter, to a command with the "+" prefix (EXEC_COMMAND_FULLY_PRIVILEGED);
// "!" and "!!" change credentials only and keep every filter.
func TestSystemdExecStartPrefix(t *testing.T) {
	const dirs = "SystemCallFilter=@system-service\nRestrictNamespaces=yes\n"
	tests := []struct {
		name     string
		text     string
		filters  int
		warnings []string
	}{
		{"plain", "ExecStart=/bin/x\n" + dirs, 6, nil},
		{"!! keeps the filters", "ExecStart=!!/bin/x\n" + dirs, 6, nil},
		{"-! keeps the filters", "ExecStart=-!/bin/x\n" + dirs, 6, nil},
		{"+ installs none", "ExecStart=+/bin/x\n" + dirs, 0, []string{
			"--systemd:1: ExecStart=+ runs the command fully privileged: systemd installs no seccomp filters for it"}},
		{"-+ installs none", dirs + "ExecStart=-+/bin/x\n", 0, []string{
			"--systemd:3: ExecStart=+ runs the command fully privileged: systemd installs no seccomp filters for it"}},
		{"empty ExecStart= resets", "ExecStart=+/bin/x\nExecStart=\nExecStart=/bin/y\n" + dirs, 6, nil},
		{"mixed prefixes follow the first", "ExecStart=/bin/x\nExecStart=+/bin/y\n" + dirs, 6, []string{
			`--systemd:2: ExecStart= commands differ in the "+" prefix, so systemd gives them different filters; the model follows the first (line 1)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := mustSystemd(t, tt.text)
			if got := len(st.Programs); got != tt.filters {
				t.Errorf("filters = %d, want %d", got, tt.filters)
			}
			if !reflect.DeepEqual(st.Warnings, tt.warnings) {
				t.Errorf("warnings = %q\nwant %q", st.Warnings, tt.warnings)
			}
		})
	}
}

// TestTemplateFiles: unit templates of the meson/autoconf class
// (testdata/templates/README.md), with @name@ placeholders in either case,
// as whole lines of [Service] and inside values, load with one warning per
// placeholder line naming file:line, and model the same stack as the
// template without those lines.
func TestTemplateFiles(t *testing.T) {
	tests := []struct {
		tmpl, built string
		lines       []int
		names       []string
	}{
		{"fwupd.service.in", "fwupd.service", []int{13, 16, 26}, []string{"@motd_dir@", "@libexecdir@", "@dynamic_options@"}},
		{"daemon.service.in", "daemon.service", []int{11, 12, 17}, []string{"@libexecdir@", "@DAEMON_USER@", "@SYSTEMD_FILTER@"}},
	}
	for _, tt := range tests {
		t.Run(tt.tmpl, func(t *testing.T) {
			read := func(f string) []byte {
				b, err := os.ReadFile(filepath.Join("testdata/templates", f))
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
			got, err := ParseUnit(tt.tmpl, read(tt.tmpl), Options{})
			if err != nil {
				t.Fatalf("ParseUnit(%s): %v", tt.tmpl, err)
			}
			want, err := ParseUnit(tt.built, read(tt.built), Options{})
			if err != nil {
				t.Fatal(err)
			}
			var wantWarn []string
			for i, l := range tt.lines {
				wantWarn = append(wantWarn, fmt.Sprintf("%s:%d: template placeholder %s", tt.tmpl, l, tt.names[i]))
			}
			var gotWarn []string
			for _, w := range got.Warnings {
				if strings.Contains(w, "template placeholder") {
					gotWarn = append(gotWarn, w)
				}
			}
			if len(gotWarn) != len(wantWarn) {
				t.Fatalf("placeholder warnings = %q\nwant %q", gotWarn, wantWarn)
			}
			for i := range gotWarn {
				if !strings.HasPrefix(gotWarn[i], wantWarn[i]+" ") {
					t.Errorf("warning %d = %q, want it to start with %q", i, gotWarn[i], wantWarn[i])
				}
			}
			if len(got.Programs) != len(want.Programs) || len(got.Programs) == 0 {
				t.Fatalf("template: %d filters, built unit: %d", len(got.Programs), len(want.Programs))
			}
			for i := range got.Programs {
				if got.Programs[i].SHA256() != want.Programs[i].SHA256() {
					t.Errorf("filter %d differs between the template and the built unit", i)
				}
			}
		})
	}
}

// TestSystemdWarningsFailOpen: an entry systemd ignores on a
// SystemCallFilter= or RestrictAddressFamilies= "~" line (on a deny list,
// or taken off an allow list) would have denied something, so its warning
// FailsOpen; an ignored allow-list entry or SystemCallLog= entry does not.
// Misspelt names, groups and families get the closest known one.
func TestSystemdWarningsFailOpen(t *testing.T) {
	st := mustSystemd(t, "[Service]\nSystemCallFilter=@system-service reed\nSystemCallFilter=~@mont ptrce\nSystemCallLog=~ptrce\nSystemCallFilter=~@mount mount:EBOGUS\nRestrictAddressFamilies=AF_UNIX AF_INET6X\nRestrictAddressFamilies=~AF_PAKCET\n")
	type w struct {
		line      int
		msg, hint string
		failsOpen bool
	}
	want := []w{
		{2, `SystemCallFilter: unknown system call "reed", ignoring`, `did you mean "read"?`, false},
		{3, `SystemCallFilter: unknown system call group "@mont", ignoring (unknown to systemd 252)`, `did you mean "@mount"?`, true},
		{3, `SystemCallFilter: unknown system call "ptrce", ignoring`, `did you mean "ptrace"?`, true},
		{4, `SystemCallLog: unknown system call "ptrce", ignoring`, `did you mean "ptrace"?`, false},
		{5, `SystemCallFilter: failed to parse syscall:errno "mount:EBOGUS", ignoring`, "", true},
		{6, `RestrictAddressFamilies: unknown address family "AF_INET6X", ignoring`, `did you mean "AF_INET6"?`, false},
		{7, `RestrictAddressFamilies: unknown address family "AF_PAKCET", ignoring`, `did you mean "AF_PACKET"?`, true},
	}
	var got []w
	for _, e := range st.Source().Warnings {
		got = append(got, w{e.Line, e.Msg, e.Hint, e.FailsOpen})
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("warnings:\n%+v\nwant\n%+v", got, want)
	}
}

// TestParseUnitSkipsBOM: systemd skips a UTF-8 byte order mark at the
// start of a unit (src/shared/conf-parser.c), so ParseUnit, which
// estimate and run --systemd-unit call directly, does too.
func TestParseUnitSkipsBOM(t *testing.T) {
	unit := []byte("[Service]\nSystemCallFilter=~getpid\n")
	want, err := ParseUnit("u.service", unit, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseUnit("u.service", append([]byte("\xef\xbb\xbf"), unit...), Options{})
	if err != nil {
		t.Fatalf("with a BOM: %v", err)
	}
	if len(got.Programs) != len(want.Programs) || len(want.Programs) == 0 {
		t.Fatalf("with a BOM: %d filters, want %d", len(got.Programs), len(want.Programs))
	}
	for i := range want.Programs {
		if got.Programs[i].SHA256() != want.Programs[i].SHA256() {
			t.Errorf("filter %d differs with a BOM", i)
		}
	}
}

// TestIsUnitName: unit type suffixes only, with a stem.
func TestIsUnitName(t *testing.T) {
	for p, want := range map[string]bool{"foo.service": true, "/lib/systemd/system/getty@.service": true, "sshd.socket": true,
		"x.timer": true, "foo.json": false, ".service": false, "foo": false, "dir.service/x.conf": false, "foo.service.d": false} {
		if got := IsUnitName(p); got != want {
			t.Errorf("IsUnitName(%q) = %v, want %v", p, got, want)
		}
	}
}
