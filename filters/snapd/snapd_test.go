package snapd

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/internal/filterstest"
	"github.com/seccompbench/seccompbench/filters/scmp"
)

func load(t *testing.T, file string, o Options) *filters.Source {
	t.Helper()
	data, err := os.ReadFile("testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	src, err := Load(file, data, o)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// TestDefaultTemplate: an excerpt of snapd's default template simulates
// as snapd documents it (interfaces/seccomp/template.go): listed calls
// allowed, others ERRNO(EPERM) from the allow filter, argument rules
// honoured, "~" denials ERRNO(EACCES) from the deny filter even where the
// allow filter lets the call through.
func TestDefaultTemplate(t *testing.T) {
	src := load(t, "snap.hello.hello.src", Options{})
	if !src.Stacked || len(src.Filters) != 2 || src.Filters[0].Name != "snap.hello.hello/deny" || src.Filters[1].Name != "snap.hello.hello/allow" {
		t.Fatalf("source = %+v, want the stack deny, allow", src)
	}
	i386 := filters.ArchI386
	const allow, errno = filters.ActionAllow, filters.ActionErrno
	filterstest.RunVerdicts(t, filters.Stack(src.Filters), []filterstest.VerdictCase{
		{Name: "read allowed", Syscall: "read", Action: allow},
		{Name: "ptrace not listed: EPERM", Syscall: "ptrace", Action: errno, Data: 1},
		{Name: "kexec_load not listed: EPERM", Syscall: "kexec_load", Action: errno, Data: 1},
		{Name: "ioctl allowed", Syscall: "ioctl", Args: []uint64{1, 0x5401}, Action: allow},
		{Name: "~ioctl TIOCSTI: EACCES", Syscall: "ioctl", Args: []uint64{1, 0x5412}, Action: errno, Data: 13},
		{Name: "~ioctl TIOCLINUX: EACCES", Syscall: "ioctl", Args: []uint64{1, 0x541c}, Action: errno, Data: 13},
		{Name: "~ioctl TIOCSTI high bits set (CVE-2019-7303): EACCES", Syscall: "ioctl", Args: []uint64{1, 0xffffffff00005412}, Action: errno, Data: 13},
		{Name: "socket AF_UNIX", Syscall: "socket", Args: []uint64{1, 1, 0}, Action: allow},
		{Name: "socket AF_INET6", Syscall: "socket", Args: []uint64{10, 2, 0}, Action: allow},
		{Name: "socket AF_PACKET: EPERM", Syscall: "socket", Args: []uint64{17, 3, 0}, Action: errno, Data: 1},
		{Name: "socket AF_NETLINK NETLINK_ROUTE", Syscall: "socket", Args: []uint64{16, 3, 0}, Action: allow},
		{Name: "socket AF_NETLINK NETLINK_AUDIT: EPERM", Syscall: "socket", Args: []uint64{16, 3, 9}, Action: errno, Data: 1},
		{Name: "chown to root", Syscall: "chown", Args: []uint64{0, 0, 0}, Action: allow},
		{Name: "chown to 1000: EPERM", Syscall: "chown", Args: []uint64{0, 1000, 0}, Action: errno, Data: 1},
		{Name: "chgrp root (-1 masked to 32 bits)", Syscall: "chown", Args: []uint64{0, 0xffffffffffffffff, 0}, Action: allow},
		{Name: "setuid snap_daemon", Syscall: "setuid", Args: []uint64{584788}, Action: allow},
		{Name: "setuid 1000: EPERM", Syscall: "setuid", Args: []uint64{1000}, Action: errno, Data: 1},
		{Name: "mknod regular file", Syscall: "mknod", Args: []uint64{0, 0o100644, 0}, Action: allow},
		{Name: "mknod char device: EPERM", Syscall: "mknod", Args: []uint64{0, 0o020644, 0}, Action: errno, Data: 1},
		{Name: "setpriority <=19", Syscall: "setpriority", Args: []uint64{0, 0, 19}, Action: allow},
		{Name: "setpriority 20: EPERM", Syscall: "setpriority", Args: []uint64{0, 0, 20}, Action: errno, Data: 1},
		{Name: "copy_file_range flags 0", Syscall: "copy_file_range", Args: []uint64{0, 0, 0, 0, 0, 0}, Action: allow},
		{Name: "copy_file_range flags 1: EPERM", Syscall: "copy_file_range", Args: []uint64{0, 0, 0, 0, 0, 1}, Action: errno, Data: 1},
		{Name: "i386 compat read", Arch: i386, Syscall: "read", Action: allow},
		{Name: "i386 nice <=19", Arch: i386, Syscall: "nice", Args: []uint64{19}, Action: allow},
		{Name: "i386 nice 20: EPERM", Arch: i386, Syscall: "nice", Args: []uint64{20}, Action: errno, Data: 1},
		{Name: "i386 ~ioctl TIOCSTI: EACCES", Arch: i386, Syscall: "ioctl", Args: []uint64{1, 0x5412}, Action: errno, Data: 13},
		{Name: "x32 is no ABI of the filters: KILL_THREAD", Arch: filters.ArchX32, Syscall: "read", Action: filters.ActionKillThread},
	})
}

// TestModes: @complain logs what the allow filter would deny (the "~"
// denials stay), @unrestricted installs nothing, and an arm64 host gets
// aarch64 and arm.
func TestModes(t *testing.T) {
	src := load(t, "snap.devtool.devtool.src", Options{})
	filterstest.RunVerdicts(t, filters.Stack(src.Filters), []filterstest.VerdictCase{
		{Name: "complain logs ptrace", Syscall: "ptrace", Action: filters.ActionLog},
		{Name: "complain keeps ~ioctl", Syscall: "ioctl", Args: []uint64{0, 0x5412}, Action: filters.ActionErrno, Data: 13},
		{Name: "complain allows read", Syscall: "read", Action: filters.ActionAllow},
	})
	// A call denied with "~" that no allow rule lists: both filters
	// return ERRNO, and the kernel keeps the newest filter's (the allow
	// filter's EPERM; kernel/seccomp.c: seccomp_run_filters replaces the
	// result only on a strictly lower action).
	only, err := Load("snap.x.src", []byte("~ptrace\nread\nwrite\n"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	filterstest.RunVerdicts(t, filters.Stack(only.Filters), []filterstest.VerdictCase{
		{Name: "~ptrace not allowed: the allow filter's EPERM", Syscall: "ptrace", Action: filters.ActionErrno, Data: 1},
	})
	src = load(t, "snap.classic.classic.src", Options{})
	if len(src.Filters) != 0 || !src.Stacked || len(src.Warnings) != 1 || src.Warnings[0].Line != 3 {
		t.Errorf("@unrestricted: %d filters, warnings %v; want none and one warning at line 3", len(src.Filters), src.Warnings)
	}
	src = load(t, "snap.hello.hello.src", Options{Arch: filters.ArchAArch64})
	filterstest.RunVerdicts(t, filters.Stack(src.Filters), []filterstest.VerdictCase{
		{Name: "aarch64 read", Arch: filters.ArchAArch64, Syscall: "read", Action: filters.ActionAllow},
		{Name: "arm set_tls (ARM private)", Arch: filters.ArchARM, Syscall: "set_tls", Action: filters.ActionAllow},
		{Name: "x86_64 is no ABI of the filters", Syscall: "read", Action: filters.ActionKillThread},
	})
}

func TestParseLine(t *testing.T) {
	tests := []struct {
		line string
		want *scmp.Rule
		deny bool
	}{
		{"# comment", nil, false},
		{"   ", nil, false},
		{"no_such_call 1", nil, false},
		{"read", &scmp.Rule{Syscall: "read", Action: retAllow}, false},
		{"~ioctl - TIOCSTI", &scmp.Rule{Syscall: "ioctl", Action: retEACCES, Conds: []scmp.Cond{{Arg: 1, Op: scmp.EQ, Datum: 0x5412}}}, true},
		{"~ioctl - 4294967295|TIOCSTI", &scmp.Rule{Syscall: "ioctl", Action: retEACCES, Conds: []scmp.Cond{{Arg: 1, Op: scmp.MaskedEQ, Mask: 0xffffffff, Datum: 0x5412}}}, true},
		{"mknod - |S_IFREG -", &scmp.Rule{Syscall: "mknod", Action: retAllow, Conds: []scmp.Cond{{Arg: 1, Op: scmp.MaskedEQ, Mask: 0o100000, Datum: 0o100000}}}, false},
		{"prctl PR_SET_NAME !0 <5 >6 <=7 >=8", &scmp.Rule{Syscall: "prctl", Action: retAllow, Conds: []scmp.Cond{
			{Arg: 0, Op: scmp.EQ, Datum: 15}, {Arg: 1, Op: scmp.NE}, {Arg: 2, Op: scmp.LT, Datum: 5},
			{Arg: 3, Op: scmp.GT, Datum: 6}, {Arg: 4, Op: scmp.LE, Datum: 7}, {Arg: 5, Op: scmp.GE, Datum: 8}}}, false},
		{"setresuid -1 u:root -1", &scmp.Rule{Syscall: "setresuid", Action: retAllow, Conds: []scmp.Cond{
			{Arg: 0, Op: scmp.MaskedEQ, Mask: 0xffffffff, Datum: 0xffffffff}, {Arg: 1, Op: scmp.MaskedEQ, Mask: 0xffffffff},
			{Arg: 2, Op: scmp.MaskedEQ, Mask: 0xffffffff, Datum: 0xffffffff}}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			got, deny, err := parseLine(tt.line)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) || deny != tt.deny {
				t.Errorf("parseLine = %+v, %v; want %+v, %v", got, deny, tt.want, tt.deny)
			}
		})
	}
}

// TestErrors: what snap-seccomp refuses is refused with the line.
func TestErrors(t *testing.T) {
	tests := []struct{ text, want string }{
		{"read\nsocket AF_NOPE\n", "snap.x.src:2: invalid snapd seccomp profile: argument 0 of socket: \"AF_NOPE\""},
		{"socket -1\n", "negative values only for the uid/gid syscalls"},
		{"setuid >0\n", "setuid takes only equality tests"},
		{"setuid u:alice\n", "only root and snapd's system usernames"},
		{"read 1 2 3 4 5 6 7\n", "too many arguments for \"read\": 7, at most 6"},
		{"ioctl - 1|2|3\n", "want MASK|VALUE"},
		{"read 4294967296\n", "want a decimal number below 2^32"},
	}
	for _, tt := range tests {
		_, err := Load("snap.x.src", []byte(tt.text), Options{})
		var se *filters.SourceError
		if !errors.As(err, &se) || !errors.Is(err, ErrBadProfile) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Load(%q) = %v, want a *SourceError wrapping ErrBadProfile containing %q", tt.text, err, tt.want)
		}
	}
}

func TestDetect(t *testing.T) {
	for _, f := range []string{"snap.hello.hello.src", "snap.devtool.devtool.src", "snap.classic.classic.src"} {
		b, err := os.ReadFile("testdata/" + f)
		if err != nil {
			t.Fatal(err)
		}
		if !Detect(b) {
			t.Errorf("Detect(%s) = false", f)
		}
	}
	for _, s := range []string{
		"read: 1\nwrite: 1\n",                         // minijail
		"2\nallowlist\nread\nwrite\n",                 // LXC
		"default_action: errno\nsyscalls:\n",          // Beats
		"[Service]\nSystemCallFilter=read\n",          // systemd
		"hello world\nthis is prose\nnot a profile\n", // text
		"read\n", // too little to tell
	} {
		if Detect([]byte(s)) {
			t.Errorf("Detect(%q) = true", s)
		}
	}
}
