package oci

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/formats"
)

// verdictCase is one syscall and its expected outcome through a stack.
type verdictCase struct {
	name    string
	arch    *filters.Arch
	syscall string
	nr      int // used when syscall is ""
	args    []uint64
	action  filters.Action
	data    uint16
}

func runVerdicts(t *testing.T, s filters.Stack, cases []verdictCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := tc.arch
			if a == nil {
				a = filters.ArchX86_64
			}
			n := tc.nr
			if tc.syscall != "" {
				var ok bool
				if n, ok = a.Lookup(tc.syscall); !ok {
					t.Fatalf("%s has no syscall %q", a.Name, tc.syscall)
				}
			}
			r, err := filters.EmulateStack(s, a.Data(n, tc.args...))
			if err != nil {
				t.Fatal(err)
			}
			if r.Action != tc.action || r.Data != tc.data {
				t.Errorf("%s %s%v = %s(%d), want %s(%d)", a.Name, tc.syscall, tc.args, r.Action, r.Data, tc.action, tc.data)
			}
		})
	}
}

const (
	cloneNewUser = 0x10000000
	cloneNewNet  = 0x40000000
	sigchld      = 17
	eperm        = 1
	enosys       = 38
)

// TestDockerDefaultVerdicts checks Docker's default profile against its
// documented behaviour (docs.docker.com "Seccomp security profiles for
// Docker"): namespaces refused without CAP_SYS_ADMIN, clone3 reporting
// ENOSYS so libc falls back to clone, personality limited to a few values,
// and rules that depend on capabilities, kernel version and arch.
func TestDockerDefaultVerdicts(t *testing.T) {
	def, err := DockerDefault(Options{})
	if err != nil {
		t.Fatal(err)
	}
	admin, err := DockerDefault(Options{Caps: append(append([]string(nil), DockerDefaultCaps...), "CAP_SYS_ADMIN", "CAP_SYS_BOOT")})
	if err != nil {
		t.Fatal(err)
	}
	old, err := DockerDefault(Options{KernelVersion: "4.4"})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("default caps", func(t *testing.T) {
		runVerdicts(t, filters.Stack{def}, []verdictCase{
			{name: "read allowed", syscall: "read", action: filters.ActionAllow},
			{name: "clone CLONE_NEWUSER refused", syscall: "clone", args: []uint64{cloneNewUser | sigchld}, action: filters.ActionErrno, data: eperm},
			{name: "clone CLONE_NEWNET refused", syscall: "clone", args: []uint64{cloneNewNet}, action: filters.ActionErrno, data: eperm},
			{name: "plain fork-like clone allowed", syscall: "clone", args: []uint64{sigchld}, action: filters.ActionAllow},
			{name: "clone3 ENOSYS", syscall: "clone3", action: filters.ActionErrno, data: enosys},
			{name: "personality 0xffffffff allowed", syscall: "personality", args: []uint64{0xffffffff}, action: filters.ActionAllow},
			{name: "personality PER_LINUX32 allowed", syscall: "personality", args: []uint64{8}, action: filters.ActionAllow},
			{name: "personality other refused", syscall: "personality", args: []uint64{1}, action: filters.ActionErrno, data: eperm},
			{name: "personality high word set refused", syscall: "personality", args: []uint64{0x1_0000_0000}, action: filters.ActionErrno, data: eperm},
			{name: "reboot refused", syscall: "reboot", action: filters.ActionErrno, data: eperm},
			{name: "mount refused", syscall: "mount", action: filters.ActionErrno, data: eperm},
			{name: "socket AF_UNIX allowed", syscall: "socket", args: []uint64{1}, action: filters.ActionAllow},
			{name: "socket AF_VSOCK refused", syscall: "socket", args: []uint64{40}, action: filters.ActionErrno, data: eperm},
			{name: "ptrace allowed on 6.18 (minKernel 4.8)", syscall: "ptrace", action: filters.ActionAllow},
			{name: "unlisted syscall gets the default", syscall: "vhangup", action: filters.ActionErrno, data: eperm},
			{name: "number above the profile's highest gets ENOSYS (runc's stub)", nr: 1000, action: filters.ActionErrno, data: enosys},
			{name: "i386 read allowed", arch: filters.ArchI386, syscall: "read", action: filters.ActionAllow},
			{name: "i386 socketcall allowed", arch: filters.ArchI386, syscall: "socketcall", action: filters.ActionAllow},
			{name: "i386 clone CLONE_NEWUSER refused", arch: filters.ArchI386, syscall: "clone", args: []uint64{cloneNewUser}, action: filters.ActionErrno, data: eperm},
			{name: "x32 read allowed", arch: filters.ArchX32, syscall: "read", action: filters.ActionAllow},
			{name: "x32 reboot refused", arch: filters.ArchX32, syscall: "reboot", action: filters.ActionErrno, data: eperm},
		})
	})
	t.Run("CAP_SYS_ADMIN and CAP_SYS_BOOT", func(t *testing.T) {
		runVerdicts(t, filters.Stack{admin}, []verdictCase{
			{name: "clone CLONE_NEWUSER allowed", syscall: "clone", args: []uint64{cloneNewUser}, action: filters.ActionAllow},
			{name: "clone3 allowed", syscall: "clone3", action: filters.ActionAllow},
			{name: "mount allowed", syscall: "mount", action: filters.ActionAllow},
			{name: "reboot allowed", syscall: "reboot", action: filters.ActionAllow},
		})
	})
	t.Run("kernel 4.4", func(t *testing.T) {
		runVerdicts(t, filters.Stack{old}, []verdictCase{
			{name: "ptrace refused before 4.8", syscall: "ptrace", action: filters.ActionErrno, data: eperm},
		})
	})
	t.Run("foreign arch", func(t *testing.T) {
		r, err := filters.Emulate(def, filters.SeccompData{Nr: 63, Arch: auditArchAARCH64})
		if err != nil {
			t.Fatal(err)
		}
		if got := filters.KernelAction(r.Ret); got != filters.ActionKillThread {
			t.Errorf("aarch64 syscall = %s, want kill_thread (libseccomp's default bad-arch action, which runc keeps)", got)
		}
	})
}

// TestOCIOperators covers every action, errnoRet, every operator with
// valueTwo, runc's splitting of repeated argument indexes, 64-bit compares on
// x86_64 and 32-bit compares on x86 in a small profile.
func TestOCIOperators(t *testing.T) {
	prof := `{
	"defaultAction": "SCMP_ACT_ALLOW",
	"architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86"],
	"syscalls": [
		{"names": ["getpid"], "action": "SCMP_ACT_ERRNO"},
		{"names": ["getppid"], "action": "SCMP_ACT_ERRNO", "errnoRet": 13},
		{"names": ["gettid"], "action": "SCMP_ACT_KILL"},
		{"names": ["getuid"], "action": "SCMP_ACT_KILL_PROCESS"},
		{"names": ["getgid"], "action": "SCMP_ACT_TRAP"},
		{"names": ["geteuid"], "action": "SCMP_ACT_TRACE"},
		{"names": ["getegid"], "action": "SCMP_ACT_LOG"},
		{"names": ["sync"], "action": "SCMP_ACT_NOTIFY"},
		{"names": ["dup"], "action": "SCMP_ACT_ERRNO", "args": [{"index": 0, "value": 10, "op": "SCMP_CMP_NE"}]},
		{"names": ["dup2"], "action": "SCMP_ACT_ERRNO", "args": [{"index": 0, "value": 10, "op": "SCMP_CMP_LT"}]},
		{"names": ["dup3"], "action": "SCMP_ACT_ERRNO", "args": [{"index": 0, "value": 10, "op": "SCMP_CMP_LE"}]},
		{"names": ["close"], "action": "SCMP_ACT_ERRNO", "args": [{"index": 0, "value": 4294967296, "op": "SCMP_CMP_GE"}]},
		{"names": ["fsync"], "action": "SCMP_ACT_ERRNO", "args": [{"index": 0, "value": 4294967295, "op": "SCMP_CMP_GT"}]},
		{"names": ["umask"], "action": "SCMP_ACT_ERRNO", "args": [{"index": 0, "value": 18, "valueTwo": 2, "op": "SCMP_CMP_MASKED_EQ"}]},
		{"names": ["kill"], "action": "SCMP_ACT_ERRNO", "args": [{"index": 0, "value": 1, "op": "SCMP_CMP_EQ"}, {"index": 1, "value": 9, "op": "SCMP_CMP_EQ"}]},
		{"names": ["tkill"], "action": "SCMP_ACT_ERRNO", "args": [{"index": 1, "value": 9, "op": "SCMP_CMP_EQ"}, {"index": 1, "value": 15, "op": "SCMP_CMP_EQ"}]}
	]
}`
	p, err := Parse("ops.json", []byte(prof), Options{})
	if err != nil {
		t.Fatal(err)
	}
	runVerdicts(t, filters.Stack{p}, []verdictCase{
		{name: "ERRNO defaults to EPERM", syscall: "getpid", action: filters.ActionErrno, data: eperm},
		{name: "errnoRet", syscall: "getppid", action: filters.ActionErrno, data: 13},
		{name: "KILL is KILL_THREAD", syscall: "gettid", action: filters.ActionKillThread},
		{name: "KILL_PROCESS", syscall: "getuid", action: filters.ActionKillProcess},
		{name: "TRAP", syscall: "getgid", action: filters.ActionTrap},
		{name: "TRACE defaults to EPERM data", syscall: "geteuid", action: filters.ActionTrace, data: eperm},
		{name: "LOG", syscall: "getegid", action: filters.ActionLog},
		{name: "NOTIFY", syscall: "sync", action: filters.ActionUserNotif},
		{name: "NE holds", syscall: "dup", args: []uint64{11}, action: filters.ActionErrno, data: eperm},
		{name: "NE fails", syscall: "dup", args: []uint64{10}, action: filters.ActionAllow},
		{name: "NE high word differs", syscall: "dup", args: []uint64{0x1_0000_000a}, action: filters.ActionErrno, data: eperm},
		{name: "LT holds", syscall: "dup2", args: []uint64{9}, action: filters.ActionErrno, data: eperm},
		{name: "LT fails at equal", syscall: "dup2", args: []uint64{10}, action: filters.ActionAllow},
		{name: "LT fails with high word", syscall: "dup2", args: []uint64{0x1_0000_0001}, action: filters.ActionAllow},
		{name: "LE holds at equal", syscall: "dup3", args: []uint64{10}, action: filters.ActionErrno, data: eperm},
		{name: "GE 2^32 holds", syscall: "close", args: []uint64{0x1_0000_0000}, action: filters.ActionErrno, data: eperm},
		{name: "GE 2^32 fails below", syscall: "close", args: []uint64{0xffff_ffff}, action: filters.ActionAllow},
		{name: "GT holds across words", syscall: "fsync", args: []uint64{0x1_0000_0000}, action: filters.ActionErrno, data: eperm},
		{name: "GT fails at equal", syscall: "fsync", args: []uint64{0xffff_ffff}, action: filters.ActionAllow},
		{name: "MASKED_EQ holds", syscall: "umask", args: []uint64{0o2 | 0o100}, action: filters.ActionErrno, data: eperm},
		{name: "MASKED_EQ fails", syscall: "umask", args: []uint64{0x12}, action: filters.ActionAllow},
		{name: "two indexes are ANDed: both", syscall: "kill", args: []uint64{1, 9}, action: filters.ActionErrno, data: eperm},
		{name: "two indexes are ANDed: one", syscall: "kill", args: []uint64{1, 15}, action: filters.ActionAllow},
		{name: "repeated index is ORed: first", syscall: "tkill", args: []uint64{5, 9}, action: filters.ActionErrno, data: eperm},
		{name: "repeated index is ORed: second", syscall: "tkill", args: []uint64{5, 15}, action: filters.ActionErrno, data: eperm},
		{name: "repeated index is ORed: neither", syscall: "tkill", args: []uint64{5, 2}, action: filters.ActionAllow},
		// x86 compares only the low 32 bits of each argument.
		{name: "x86 GE 2^32 is GE 0", arch: filters.ArchI386, syscall: "close", args: []uint64{3}, action: filters.ActionErrno, data: eperm},
		{name: "x86 GT 0xffffffff never holds", arch: filters.ArchI386, syscall: "fsync", args: []uint64{3}, action: filters.ActionAllow},
		{name: "x32 not listed: bad arch kills", arch: filters.ArchX32, syscall: "read", action: filters.ActionKillThread},
	})
}

func TestOCIErrors(t *testing.T) {
	tests := []struct {
		name       string
		data       string
		wantLine   int
		wantSubstr string
	}{
		{"syntax", "{\n  \"defaultAction\": \"SCMP_ACT_ALLOW\",\n  \"syscalls\": [,]\n}", 3, "invalid character"},
		{"type", "{\n  \"defaultAction\": \"SCMP_ACT_ALLOW\",\n  \"syscalls\": [{\"names\": \"read\"}]\n}", 3, "cannot use"},
		{"unknown action", "{\n  \"defaultAction\": \"SCMP_ACT_ALLOW\",\n  \"syscalls\": [\n    {\"names\": [\"read\"], \"action\": \"SCMP_ACT_NOPE\"}\n  ]\n}", 4, "unknown action"},
		{"unknown operator", "{\"defaultAction\": \"SCMP_ACT_ALLOW\",\n\"syscalls\": [{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ERRNO\",\n \"args\": [{\"index\": 0, \"value\": 1, \"op\": \"SCMP_CMP_ALMOST\"}]}]}", 3, "unknown operator"},
		{"arg index", "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ERRNO\", \"args\": [{\"index\": 6, \"value\": 1, \"op\": \"SCMP_CMP_EQ\"}]}]}", 1, "out of range"},
		{"errnoRet on allow", "{\"defaultAction\": \"SCMP_ACT_ERRNO\",\n\"syscalls\": [{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\", \"errnoRet\": 5}]}", 2, "errnoRet"},
		{"unknown arch", "{\"defaultAction\": \"SCMP_ACT_ALLOW\",\n\"architectures\": [\"SCMP_ARCH_VAX\"], \"syscalls\": []}", 2, "unknown architecture"},
		{"no default action", "{\"syscalls\": []}", 1, "defaultAction"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("p.json", []byte(tt.data), Options{})
			if !errors.Is(err, ErrBadProfile) {
				t.Fatalf("error = %v, want ErrBadOCI", err)
			}
			var se *filters.SourceError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is no *SourceError", err)
			}
			if se.Line != tt.wantLine {
				t.Errorf("line = %d, want %d (%v)", se.Line, tt.wantLine, err)
			}
			if !strings.Contains(err.Error(), tt.wantSubstr) || !strings.HasPrefix(err.Error(), "p.json:") {
				t.Errorf("error %q does not start with p.json: and mention %q", err, tt.wantSubstr)
			}
		})
	}
}

// TestOCIErrorLocations checks the whole message, line and column of OCI
// errors about values that are no unique string (numbers, nulls, "").
func TestOCIErrorLocations(t *testing.T) {
	tests := []struct {
		name      string
		data      string
		line, col int
		want      string
	}{
		{"arg index", `{"defaultAction": "SCMP_ACT_ALLOW",
"syscalls": [{"names": ["read"], "action": "SCMP_ACT_ERRNO",
  "args": [{"index": 0, "value": 1, "op": "SCMP_CMP_EQ"}, {"index": 9, "value": 1, "op": "SCMP_CMP_EQ"}]}]}`,
			3, 69, "d9.json:3:69: invalid OCI seccomp profile: syscalls[0].args[1]: index 9 out of range 0-5"},
		{"arg index in a runtime config", `{"linux": {"seccomp": {"defaultAction": "SCMP_ACT_ALLOW",
"syscalls": [{"names": ["read"], "action": "SCMP_ACT_ERRNO", "args": [{"index": 7, "op": "SCMP_CMP_EQ"}]}]}}}`,
			2, 81, "d9.json:2:81: invalid OCI seccomp profile: syscalls[0].args[0]: index 7 out of range 0-5"},
		{"null entry", `{"defaultAction": "SCMP_ACT_ALLOW",
"syscalls": [{"names": ["read"], "action": "SCMP_ACT_ERRNO"},
  null]}`,
			3, 3, "d9.json:3:3: invalid OCI seccomp profile: syscalls[1] is null"},
		{"empty name", `{"defaultAction": "SCMP_ACT_ALLOW",
"syscalls": [{"names": ["read", ""], "action": "SCMP_ACT_ERRNO"}]}`,
			2, 33, `d9.json:2:33: invalid OCI seccomp profile: syscalls[0]: empty syscall name`},
		{"negative errnoRet", `{"defaultAction": "SCMP_ACT_ALLOW",
"syscalls": [{"names": ["read"], "action": "SCMP_ACT_ERRNO"},
  {"names": ["write"], "action": "SCMP_ACT_ERRNO", "errnoRet": -5}]}`,
			3, 64, "d9.json:3:64: invalid OCI seccomp profile: syscalls[1]: errnoRet -5: want an errno from 0 to 65535"},
		{"errnoRet over 16 bits", `{"defaultAction": "SCMP_ACT_ALLOW",
"syscalls": [{"names": ["read"], "action": "SCMP_ACT_ERRNO", "errnoRet": 65536}]}`,
			2, 74, "d9.json:2:74: invalid OCI seccomp profile: syscalls[0]: errnoRet 65536: want an errno from 0 to 65535"},
		{"fractional errnoRet", `{"defaultAction": "SCMP_ACT_ALLOW",
"syscalls": [{"names": ["read"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1.5}]}`,
			2, 74, "d9.json:2:74: invalid OCI seccomp profile: syscalls[0]: errnoRet 1.5: want an errno from 0 to 65535"},
		{"negative defaultErrnoRet", `{"defaultAction": "SCMP_ACT_ERRNO", "defaultErrnoRet": -1, "syscalls": []}`,
			1, 56, "d9.json:1:56: invalid OCI seccomp profile: defaultErrnoRet -1: want an errno from 0 to 65535"},
		{"errnoRet in a runtime config", `{"linux": {"seccomp": {"defaultAction": "SCMP_ACT_ALLOW",
"syscalls": [{"names": ["read"], "action": "SCMP_ACT_ERRNO", "errnoRet": -5}]}}}`,
			2, 74, "d9.json:2:74: invalid OCI seccomp profile: syscalls[0]: errnoRet -5: want an errno from 0 to 65535"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("d9.json", []byte(tt.data), Options{})
			var se *filters.SourceError
			if !errors.Is(err, ErrBadProfile) || !errors.As(err, &se) {
				t.Fatalf("error = %v (%T), want a *SourceError wrapping ErrBadOCI", err, err)
			}
			if se.Line != tt.line || se.Col != tt.col {
				t.Errorf("at %d:%d, want %d:%d", se.Line, se.Col, tt.line, tt.col)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("error = %q\nwant      %q", got, tt.want)
			}
		})
	}
}

func TestParseCaps(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  bool
	}{
		{"none", []string{}, false},
		{"sys_admin,CAP_KILL", []string{"CAP_KILL", "CAP_SYS_ADMIN"}, false},
		{"default,-net_raw,+SYS_ADMIN", nil, false},
		{"CAP_FLY", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseCaps(tt.in)
			if (err != nil) != tt.err {
				t.Fatalf("err = %v, want error %v", err, tt.err)
			}
			if tt.want != nil && strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
	got, _ := ParseCaps("default,-net_raw,+SYS_ADMIN")
	if len(got) != len(DockerDefaultCaps) || !slices.Contains(got, "CAP_SYS_ADMIN") || slices.Contains(got, "CAP_NET_RAW") {
		t.Errorf("default,-net_raw,+SYS_ADMIN = %v", got)
	}
}

// TestCorpusOCI checks the generated and hand-written OCI entries of
// testdata/policies: docker-default.json is byte-for-byte what the module
// gives now (rerun `go generate ./filters/` after a module update), and each
// profile has the verdicts its comments promise.
func TestCorpusOCI(t *testing.T) {
	want, err := DockerDefaultJSON()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../testdata/policies/docker-default.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("testdata/policies/docker-default.json differs from DockerDefaultJSON(); run go generate ./filters/")
	}

	load := func(name string) *filters.Program {
		t.Helper()
		b, err := os.ReadFile("../testdata/policies/" + name)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Parse(name, b, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	t.Run("podman-like", func(t *testing.T) {
		runVerdicts(t, filters.Stack{load("podman-like.json")}, []verdictCase{
			{name: "read allowed", syscall: "read", action: filters.ActionAllow},
			{name: "keyctl refused with EPERM", syscall: "keyctl", action: filters.ActionErrno, data: eperm},
			{name: "unlisted syscall gets ENOSYS", syscall: "vhangup", action: filters.ActionErrno, data: enosys},
			{name: "unknown number gets ENOSYS", nr: 1000, action: filters.ActionErrno, data: enosys},
			{name: "clone3 ENOSYS", syscall: "clone3", action: filters.ActionErrno, data: enosys},
		})
	})
	t.Run("vmm-like", func(t *testing.T) {
		const futexWaitPrivate, futexWakePrivate, futexWait = 128, 129, 0
		runVerdicts(t, filters.Stack{load("vmm-like.json")}, []verdictCase{
			{name: "futex WAIT_PRIVATE", syscall: "futex", args: []uint64{0, futexWaitPrivate}, action: filters.ActionAllow},
			{name: "futex WAKE_PRIVATE", syscall: "futex", args: []uint64{0, futexWakePrivate}, action: filters.ActionAllow},
			{name: "futex shared WAIT refused", syscall: "futex", args: []uint64{0, futexWait}, action: filters.ActionErrno, data: eperm},
			{name: "ioctl KVM_RUN", syscall: "ioctl", args: []uint64{9, 0xae80}, action: filters.ActionAllow},
			{name: "ioctl KVM_GET_REGS", syscall: "ioctl", args: []uint64{9, 0x8090ae81}, action: filters.ActionAllow},
			{name: "ioctl KVM_CREATE_VM refused", syscall: "ioctl", args: []uint64{9, 0xae01}, action: filters.ActionErrno, data: eperm},
			{name: "mmap RW allowed", syscall: "mmap", args: []uint64{0, 4096, 3, 0x22}, action: filters.ActionAllow},
			{name: "mmap RX refused", syscall: "mmap", args: []uint64{0, 4096, 5, 0x22}, action: filters.ActionErrno, data: eperm},
			{name: "mprotect X refused", syscall: "mprotect", args: []uint64{0, 4096, 4}, action: filters.ActionErrno, data: eperm},
			{name: "clone thread allowed", syscall: "clone", args: []uint64{0x3d0f00}, action: filters.ActionAllow},
			{name: "clone fork refused", syscall: "clone", args: []uint64{sigchld}, action: filters.ActionErrno, data: eperm},
			{name: "openat without O_CLOEXEC refused", syscall: "openat", args: []uint64{0, 0, 0}, action: filters.ActionErrno, data: eperm},
			{name: "openat with O_CLOEXEC allowed", syscall: "openat", args: []uint64{0, 0, 0x80000}, action: filters.ActionAllow},
			{name: "tgkill SIGKILL passes the ORed range", syscall: "tgkill", args: []uint64{1, 2, 9}, action: filters.ActionAllow},
			{name: "execve traps", syscall: "execve", action: filters.ActionTrap},
			{name: "i386 not listed: bad arch kills", arch: filters.ArchI386, syscall: "read", action: filters.ActionKillThread},
		})
	})
	t.Run("raw.bpf", func(t *testing.T) {
		b, err := os.ReadFile("../testdata/policies/raw.bpf")
		if err != nil {
			t.Fatal(err)
		}
		p, err := filters.ParseRaw("raw.bpf", b)
		if err != nil {
			t.Fatal(err)
		}
		dd, err := DockerDefault(Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, dd.Bytes()) {
			t.Errorf("raw.bpf is not docker-default as compiled now; run go generate ./filters/ (or the compiler is not deterministic)")
		}
		runVerdicts(t, filters.Stack{p}, []verdictCase{
			{name: "read allowed", syscall: "read", action: filters.ActionAllow},
			{name: "reboot refused", syscall: "reboot", action: filters.ActionErrno, data: eperm},
			{name: "clone3 ENOSYS", syscall: "clone3", action: filters.ActionErrno, data: enosys},
		})
	})
}

// TestCorpusPathological: pathological.yaml is sized so that the kernel's
// path limit bites at 32 filters: (len+4)*32 > 32768 >= (len+4)*31.
func TestCorpusPathological(t *testing.T) {
	p, err := formats.Open("../testdata/policies/pathological.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := filters.MaxStackCount([]*filters.Program{p}); got != 31 {
		t.Errorf("MaxStackCount = %d (len %d), want 31", got, p.Len())
	}
	_, err = filters.BuildStack([]*filters.Program{p}, 32)
	var le *filters.LimitError
	if !errors.As(err, &le) || le.Limit != "MAX_INSNS_PER_PATH" || le.MaxCount != 31 {
		t.Errorf("BuildStack(32) = %v, want a MAX_INSNS_PER_PATH LimitError with MaxCount 31", err)
	}
}

func TestOCIRuleSummary(t *testing.T) {
	got, err := RuleSummary("p.json", []byte(`{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [
		{"names": ["umask"], "action": "SCMP_ACT_ALLOW", "args": [{"index": 0, "value": 18, "valueTwo": 2, "op": "SCMP_CMP_MASKED_EQ"}]},
		{"names": ["read", "getpid"], "action": "SCMP_ACT_ALLOW"},
		{"names": ["write"], "action": "SCMP_ACT_ERRNO"}]}`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"getpid SCMP_ACT_ALLOW", "read SCMP_ACT_ALLOW", "umask SCMP_ACT_ALLOW a0&0x12==0x2"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q (rules with the default action dropped)", got, want)
	}
}

// TestOCIUnknownSyscallWarnings: a name no syscall table knows is left out
// of the filter, as runc does, with a located warning; names real on some
// architecture are silent.
func TestOCIUnknownSyscallWarnings(t *testing.T) {
	tests := []struct {
		name, data string
		want       []string
	}{
		{"unknown name", `{"defaultAction": "SCMP_ACT_ERRNO",
"syscalls": [{"names": ["read", "notasyscall"], "action": "SCMP_ACT_ALLOW"}]}`,
			[]string{`x.json:2:33: syscall "notasyscall" is unknown on every architecture of the profile; runc skips it too`}},
		{"typo, named twice", `{"defaultAction": "SCMP_ACT_ERRNO",
"syscalls": [{"names": ["getpdi"], "action": "SCMP_ACT_ALLOW"},
  {"name": "getpdi", "action": "SCMP_ACT_LOG"}]}`,
			[]string{`x.json:2:25: syscall "getpdi" is unknown on every architecture of the profile; runc skips it too; did you mean "getpid"?`}},
		{"name key", `{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"name": "frobnicate", "action": "SCMP_ACT_ALLOW"}]}`,
			[]string{`x.json:1:59: syscall "frobnicate" is unknown on every architecture of the profile; runc skips it too`}},
		{"runtime config", `{"linux": {"seccomp": {"defaultAction": "SCMP_ACT_ERRNO",
"syscalls": [{"names": ["nosuch"], "action": "SCMP_ACT_ALLOW"}]}}}`,
			[]string{`x.json:2:25: syscall "nosuch" is unknown on every architecture of the profile; runc skips it too`}},
		{"excluded entry", `{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names": ["nosuch"], "action": "SCMP_ACT_ALLOW", "includes": {"arches": ["arm64"]}}]}`, nil},
		{"other architectures' names", `{"defaultAction": "SCMP_ACT_ERRNO",
"syscalls": [{"names": ["riscv_hwprobe", "s390_runtime_instr", "sync_file_range2", "mmap2", "arm_fadvise64_64", "socketcall", "recv"], "action": "SCMP_ACT_ALLOW"}]}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse("x.json", []byte(tt.data), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(p.Warnings, tt.want) {
				t.Errorf("warnings = %q\nwant %q", p.Warnings, tt.want)
			}
		})
	}
	// Past 16 names, one warning counts the rest.
	var names []string
	for i := range 18 {
		names = append(names, fmt.Sprintf("%q", fmt.Sprintf("nosuch%d", i)))
	}
	p, err := Parse("x.json", []byte(`{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"action": "SCMP_ACT_ALLOW", "names": [`+strings.Join(names, ", ")+`]}]}`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "x.json: 2 more syscall names are unknown on every architecture of the profile; runc skips them too"; len(p.Warnings) != 17 || p.Warnings[16] != want {
		t.Errorf("18 unknown names: %d warnings, last %q; want 17, last %q", len(p.Warnings), p.Warnings[len(p.Warnings)-1], want)
	}
	// The filter is built without the unknown name: same bytes.
	with, _ := Parse("x.json", []byte(`{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names": ["read", "notasyscall"], "action": "SCMP_ACT_ALLOW"}]}`), Options{})
	without, _ := Parse("x.json", []byte(`{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names": ["read"], "action": "SCMP_ACT_ALLOW"}]}`), Options{})
	if !slices.Equal(with.Insns, without.Insns) {
		t.Error("the unknown name changed the filter")
	}
	for _, arch := range []string{"x86_64", "aarch64", "x86", "arm"} {
		if p, err := DockerDefault(Options{Arch: arch}); err != nil || len(p.Warnings) != 0 {
			t.Errorf("docker-default on %s: %v, warnings %q; want none", arch, err, p.Warnings)
		}
	}
}
