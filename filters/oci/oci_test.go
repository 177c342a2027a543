package oci

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/internal/filterstest"
	"github.com/seccompbench/seccompbench/filters/scmp"
)

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
		filterstest.RunVerdicts(t, filters.Stack{def}, []filterstest.VerdictCase{
			{Name: "read allowed", Syscall: "read", Action: filters.ActionAllow},
			{Name: "clone CLONE_NEWUSER refused", Syscall: "clone", Args: []uint64{cloneNewUser | sigchld}, Action: filters.ActionErrno, Data: eperm},
			{Name: "clone CLONE_NEWNET refused", Syscall: "clone", Args: []uint64{cloneNewNet}, Action: filters.ActionErrno, Data: eperm},
			{Name: "plain fork-like clone allowed", Syscall: "clone", Args: []uint64{sigchld}, Action: filters.ActionAllow},
			{Name: "clone3 ENOSYS", Syscall: "clone3", Action: filters.ActionErrno, Data: enosys},
			{Name: "personality 0xffffffff allowed", Syscall: "personality", Args: []uint64{0xffffffff}, Action: filters.ActionAllow},
			{Name: "personality PER_LINUX32 allowed", Syscall: "personality", Args: []uint64{8}, Action: filters.ActionAllow},
			{Name: "personality other refused", Syscall: "personality", Args: []uint64{1}, Action: filters.ActionErrno, Data: eperm},
			{Name: "personality high word set refused", Syscall: "personality", Args: []uint64{0x1_0000_0000}, Action: filters.ActionErrno, Data: eperm},
			{Name: "reboot refused", Syscall: "reboot", Action: filters.ActionErrno, Data: eperm},
			{Name: "mount refused", Syscall: "mount", Action: filters.ActionErrno, Data: eperm},
			{Name: "socket AF_UNIX allowed", Syscall: "socket", Args: []uint64{1}, Action: filters.ActionAllow},
			{Name: "socket AF_VSOCK refused", Syscall: "socket", Args: []uint64{40}, Action: filters.ActionErrno, Data: eperm},
			{Name: "ptrace allowed on 6.18 (minKernel 4.8)", Syscall: "ptrace", Action: filters.ActionAllow},
			{Name: "unlisted syscall gets the default", Syscall: "vhangup", Action: filters.ActionErrno, Data: eperm},
			{Name: "number above the profile's highest gets ENOSYS (runc's stub)", Nr: 1000, Action: filters.ActionErrno, Data: enosys},
			{Name: "i386 read allowed", Arch: filters.ArchI386, Syscall: "read", Action: filters.ActionAllow},
			{Name: "i386 socketcall allowed", Arch: filters.ArchI386, Syscall: "socketcall", Action: filters.ActionAllow},
			{Name: "i386 clone CLONE_NEWUSER refused", Arch: filters.ArchI386, Syscall: "clone", Args: []uint64{cloneNewUser}, Action: filters.ActionErrno, Data: eperm},
			{Name: "x32 read allowed", Arch: filters.ArchX32, Syscall: "read", Action: filters.ActionAllow},
			{Name: "x32 reboot refused", Arch: filters.ArchX32, Syscall: "reboot", Action: filters.ActionErrno, Data: eperm},
		})
	})
	t.Run("CAP_SYS_ADMIN and CAP_SYS_BOOT", func(t *testing.T) {
		filterstest.RunVerdicts(t, filters.Stack{admin}, []filterstest.VerdictCase{
			{Name: "clone CLONE_NEWUSER allowed", Syscall: "clone", Args: []uint64{cloneNewUser}, Action: filters.ActionAllow},
			{Name: "clone3 allowed", Syscall: "clone3", Action: filters.ActionAllow},
			{Name: "mount allowed", Syscall: "mount", Action: filters.ActionAllow},
			{Name: "reboot allowed", Syscall: "reboot", Action: filters.ActionAllow},
		})
	})
	t.Run("kernel 4.4", func(t *testing.T) {
		filterstest.RunVerdicts(t, filters.Stack{old}, []filterstest.VerdictCase{
			{Name: "ptrace refused before 4.8", Syscall: "ptrace", Action: filters.ActionErrno, Data: eperm},
		})
	})
	t.Run("foreign arch", func(t *testing.T) {
		r, err := filters.Emulate(def, filters.SeccompData{Nr: 63, Arch: scmp.AARCH64.Audit})
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
	filterstest.RunVerdicts(t, filters.Stack{p}, []filterstest.VerdictCase{
		{Name: "ERRNO defaults to EPERM", Syscall: "getpid", Action: filters.ActionErrno, Data: eperm},
		{Name: "errnoRet", Syscall: "getppid", Action: filters.ActionErrno, Data: 13},
		{Name: "KILL is KILL_THREAD", Syscall: "gettid", Action: filters.ActionKillThread},
		{Name: "KILL_PROCESS", Syscall: "getuid", Action: filters.ActionKillProcess},
		{Name: "TRAP", Syscall: "getgid", Action: filters.ActionTrap},
		{Name: "TRACE defaults to EPERM data", Syscall: "geteuid", Action: filters.ActionTrace, Data: eperm},
		{Name: "LOG", Syscall: "getegid", Action: filters.ActionLog},
		{Name: "NOTIFY", Syscall: "sync", Action: filters.ActionUserNotif},
		{Name: "NE holds", Syscall: "dup", Args: []uint64{11}, Action: filters.ActionErrno, Data: eperm},
		{Name: "NE fails", Syscall: "dup", Args: []uint64{10}, Action: filters.ActionAllow},
		{Name: "NE high word differs", Syscall: "dup", Args: []uint64{0x1_0000_000a}, Action: filters.ActionErrno, Data: eperm},
		{Name: "LT holds", Syscall: "dup2", Args: []uint64{9}, Action: filters.ActionErrno, Data: eperm},
		{Name: "LT fails at equal", Syscall: "dup2", Args: []uint64{10}, Action: filters.ActionAllow},
		{Name: "LT fails with high word", Syscall: "dup2", Args: []uint64{0x1_0000_0001}, Action: filters.ActionAllow},
		{Name: "LE holds at equal", Syscall: "dup3", Args: []uint64{10}, Action: filters.ActionErrno, Data: eperm},
		{Name: "GE 2^32 holds", Syscall: "close", Args: []uint64{0x1_0000_0000}, Action: filters.ActionErrno, Data: eperm},
		{Name: "GE 2^32 fails below", Syscall: "close", Args: []uint64{0xffff_ffff}, Action: filters.ActionAllow},
		{Name: "GT holds across words", Syscall: "fsync", Args: []uint64{0x1_0000_0000}, Action: filters.ActionErrno, Data: eperm},
		{Name: "GT fails at equal", Syscall: "fsync", Args: []uint64{0xffff_ffff}, Action: filters.ActionAllow},
		{Name: "MASKED_EQ holds", Syscall: "umask", Args: []uint64{0o2 | 0o100}, Action: filters.ActionErrno, Data: eperm},
		{Name: "MASKED_EQ fails", Syscall: "umask", Args: []uint64{0x12}, Action: filters.ActionAllow},
		{Name: "two indexes are ANDed: both", Syscall: "kill", Args: []uint64{1, 9}, Action: filters.ActionErrno, Data: eperm},
		{Name: "two indexes are ANDed: one", Syscall: "kill", Args: []uint64{1, 15}, Action: filters.ActionAllow},
		{Name: "repeated index is ORed: first", Syscall: "tkill", Args: []uint64{5, 9}, Action: filters.ActionErrno, Data: eperm},
		{Name: "repeated index is ORed: second", Syscall: "tkill", Args: []uint64{5, 15}, Action: filters.ActionErrno, Data: eperm},
		{Name: "repeated index is ORed: neither", Syscall: "tkill", Args: []uint64{5, 2}, Action: filters.ActionAllow},
		// x86 compares only the low 32 bits of each argument.
		{Name: "x86 GE 2^32 is GE 0", Arch: filters.ArchI386, Syscall: "close", Args: []uint64{3}, Action: filters.ActionErrno, Data: eperm},
		{Name: "x86 GT 0xffffffff never holds", Arch: filters.ArchI386, Syscall: "fsync", Args: []uint64{3}, Action: filters.ActionAllow},
		{Name: "x32 not listed: bad arch kills", Arch: filters.ArchX32, Syscall: "read", Action: filters.ActionKillThread},
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
				t.Fatalf("error = %v, want ErrBadProfile", err)
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
				t.Fatalf("error = %v (%T), want a *SourceError wrapping ErrBadProfile", err, err)
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
// gives now (rerun `go generate ./filters/...` after a module update), and each
// profile has the verdicts its comments promise.
func TestCorpusOCI(t *testing.T) {
	want, err := DockerDefaultJSON()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filterstest.Policy("docker-default.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("testdata/policies/docker-default.json differs from DockerDefaultJSON(); run go generate ./filters/...")
	}

	load := func(name string) *filters.Program {
		t.Helper()
		b, err := os.ReadFile(filterstest.PoliciesDir + "/" + name)
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
		filterstest.RunVerdicts(t, filters.Stack{load("podman-like.json")}, []filterstest.VerdictCase{
			{Name: "read allowed", Syscall: "read", Action: filters.ActionAllow},
			{Name: "keyctl refused with EPERM", Syscall: "keyctl", Action: filters.ActionErrno, Data: eperm},
			{Name: "unlisted syscall gets ENOSYS", Syscall: "vhangup", Action: filters.ActionErrno, Data: enosys},
			{Name: "unknown number gets ENOSYS", Nr: 1000, Action: filters.ActionErrno, Data: enosys},
			{Name: "clone3 ENOSYS", Syscall: "clone3", Action: filters.ActionErrno, Data: enosys},
		})
	})
	t.Run("vmm-like", func(t *testing.T) {
		const futexWaitPrivate, futexWakePrivate, futexWait = 128, 129, 0
		filterstest.RunVerdicts(t, filters.Stack{load("vmm-like.json")}, []filterstest.VerdictCase{
			{Name: "futex WAIT_PRIVATE", Syscall: "futex", Args: []uint64{0, futexWaitPrivate}, Action: filters.ActionAllow},
			{Name: "futex WAKE_PRIVATE", Syscall: "futex", Args: []uint64{0, futexWakePrivate}, Action: filters.ActionAllow},
			{Name: "futex shared WAIT refused", Syscall: "futex", Args: []uint64{0, futexWait}, Action: filters.ActionErrno, Data: eperm},
			{Name: "ioctl KVM_RUN", Syscall: "ioctl", Args: []uint64{9, 0xae80}, Action: filters.ActionAllow},
			{Name: "ioctl KVM_GET_REGS", Syscall: "ioctl", Args: []uint64{9, 0x8090ae81}, Action: filters.ActionAllow},
			{Name: "ioctl KVM_CREATE_VM refused", Syscall: "ioctl", Args: []uint64{9, 0xae01}, Action: filters.ActionErrno, Data: eperm},
			{Name: "mmap RW allowed", Syscall: "mmap", Args: []uint64{0, 4096, 3, 0x22}, Action: filters.ActionAllow},
			{Name: "mmap RX refused", Syscall: "mmap", Args: []uint64{0, 4096, 5, 0x22}, Action: filters.ActionErrno, Data: eperm},
			{Name: "mprotect X refused", Syscall: "mprotect", Args: []uint64{0, 4096, 4}, Action: filters.ActionErrno, Data: eperm},
			{Name: "clone thread allowed", Syscall: "clone", Args: []uint64{0x3d0f00}, Action: filters.ActionAllow},
			{Name: "clone fork refused", Syscall: "clone", Args: []uint64{sigchld}, Action: filters.ActionErrno, Data: eperm},
			{Name: "openat without O_CLOEXEC refused", Syscall: "openat", Args: []uint64{0, 0, 0}, Action: filters.ActionErrno, Data: eperm},
			{Name: "openat with O_CLOEXEC allowed", Syscall: "openat", Args: []uint64{0, 0, 0x80000}, Action: filters.ActionAllow},
			{Name: "tgkill SIGKILL passes the ORed range", Syscall: "tgkill", Args: []uint64{1, 2, 9}, Action: filters.ActionAllow},
			{Name: "execve traps", Syscall: "execve", Action: filters.ActionTrap},
			{Name: "i386 not listed: bad arch kills", Arch: filters.ArchI386, Syscall: "read", Action: filters.ActionKillThread},
		})
	})
	t.Run("raw.bpf", func(t *testing.T) {
		b, err := os.ReadFile(filterstest.Policy("raw.bpf"))
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
			t.Errorf("raw.bpf is not docker-default as compiled now; run go generate ./filters/... (or the compiler is not deterministic)")
		}
		filterstest.RunVerdicts(t, filters.Stack{p}, []filterstest.VerdictCase{
			{Name: "read allowed", Syscall: "read", Action: filters.ActionAllow},
			{Name: "reboot refused", Syscall: "reboot", Action: filters.ActionErrno, Data: eperm},
			{Name: "clone3 ENOSYS", Syscall: "clone3", Action: filters.ActionErrno, Data: enosys},
		})
	})
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

// TestPrivateNamesOfListedArches: a name private to an architecture the
// profile lists (Podman's default lists "syscall" for MIPS) is no
// typo; the same name in a profile without that architecture, and a real
// typo in either, still warn (issue 12).
func TestPrivateNamesOfListedArches(t *testing.T) {
	profile := func(archMap string) []byte {
		return []byte(`{"defaultAction": "SCMP_ACT_ERRNO", "archMap": [` + archMap + `],
  "syscalls": [{"names": ["read", "syscall", "spu_run", "raed"], "action": "SCMP_ACT_ALLOW"}]}`)
	}
	x86 := `{"architecture": "SCMP_ARCH_X86_64", "subArchitectures": ["SCMP_ARCH_X86", "SCMP_ARCH_X32"]}`
	mips := `{"architecture": "SCMP_ARCH_MIPS64", "subArchitectures": ["SCMP_ARCH_MIPS", "SCMP_ARCH_MIPS64N32"]}`
	for _, tt := range []struct {
		name    string
		data    []byte
		want    []string
		notWant []string
	}{
		{"x86 only", profile(x86), []string{`"syscall"`, `"raed"`}, nil},
		{"x86 and MIPS", profile(x86 + "," + mips), []string{`"raed"`}, []string{`"syscall"`}},
		{"MIPS as a subarchitecture", profile(`{"architecture": "SCMP_ARCH_MIPSEL64", "subArchitectures": ["SCMP_ARCH_MIPSEL"]},` + x86), []string{`"raed"`}, []string{`"syscall"`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse("p.json", tt.data, Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(p.Warnings, "\n")
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("warnings %q lack %s", got, w)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(got, w) {
					t.Errorf("warnings %q mention %s", got, w)
				}
			}
			if strings.Contains(got, "spu_run") {
				t.Errorf("warnings %q mention spu_run, another architecture's name", got)
			}
		})
	}
}

// TestRuleAt: an OCI profile's program places each applicable name where
// the profile first writes it, legacy "name" entries included; names of
// entries that do not apply are left out.
func TestRuleAt(t *testing.T) {
	data := []byte(`{
  "defaultAction": "SCMP_ACT_ERRNO",
  "syscalls": [
    {"names": ["read", "write"], "action": "SCMP_ACT_ALLOW"},
    {"name": "ptrace", "action": "SCMP_ACT_KILL"},
    {"names": ["read", "mount"], "action": "SCMP_ACT_ALLOW", "includes": {"caps": ["CAP_SYS_ADMIN"]}}
  ]
}`)
	src, err := LoadSource("p.json", data, Options{}, scmp.CompilerNative)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"read": "p.json:4:16", "write": "p.json:4:24", "ptrace": "p.json:5:14"}
	if got := src.Filters[0].RuleAt; !reflect.DeepEqual(got, want) {
		t.Errorf("RuleAt = %v, want %v", got, want)
	}
}
