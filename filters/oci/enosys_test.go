package oci

import (
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"golang.org/x/net/bpf"
)

// TestOCIENOSYSStub checks runc's -ENOSYS stub as ParseOCI models it
// (runc libcontainer/seccomp/patchbpf): numbers above the highest one the
// profile names, per listed ABI, return ENOSYS; the rest keep their
// verdicts.
func TestOCIENOSYSStub(t *testing.T) {
	dd, err := DockerDefaultJSON()
	if err != nil {
		t.Fatal(err)
	}
	res, err := resolve("docker-default", dd, Options{})
	if err != nil {
		t.Fatal(err)
	}
	bound := res.f.ENOSYSAbove
	for _, a := range []*filters.Arch{scmp.X86_64, scmp.X86, scmp.X32} {
		if bound[a] == 0 {
			t.Fatalf("docker-default has no ENOSYS bound for %s", a.name)
		}
	}
	def, err := DockerDefault(Options{})
	if err != nil {
		t.Fatal(err)
	}
	nostub, err := DockerDefault(Options{NoENOSYSStub: true})
	if err != nil {
		t.Fatal(err)
	}
	if def.Len() <= nostub.Len() {
		t.Errorf("stub adds no instructions: %d with, %d without", def.Len(), nostub.Len())
	}
	x8664 := int(bound[scmp.X86_64])
	i386 := int(bound[scmp.X86])
	x32 := int(bound[scmp.X32] &^ filters.X32SyscallBit)
	runVerdicts(t, filters.Stack{def}, []verdictCase{
		{name: "x86_64 highest named syscall keeps its rule", nr: x8664, action: filters.ActionAllow},
		{name: "x86_64 above the bound", nr: x8664 + 1, action: filters.ActionErrno, data: enosys},
		{name: "x86_64 far above", nr: 100000, action: filters.ActionErrno, data: enosys},
		{name: "x86_64 unlisted below the bound gets the default", syscall: "vhangup", action: filters.ActionErrno, data: eperm},
		{name: "i386 above the bound", arch: filters.ArchI386, nr: i386 + 1, action: filters.ActionErrno, data: enosys},
		{name: "i386 highest keeps its rule", arch: filters.ArchI386, nr: i386, action: filters.ActionAllow},
		{name: "x32 above the bound", arch: filters.ArchX32, nr: x32 + 1, action: filters.ActionErrno, data: enosys},
		{name: "x32 read allowed", arch: filters.ArchX32, syscall: "read", action: filters.ActionAllow},
	})
	runVerdicts(t, filters.Stack{nostub}, []verdictCase{
		{name: "no stub: far above gets the default", nr: 100000, action: filters.ActionErrno, data: eperm},
	})

	small := []byte(`{"defaultAction": "SCMP_ACT_ERRNO",
		"architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86"],
		"syscalls": [{"names": ["read", "write", "socket"], "action": "SCMP_ACT_ALLOW"}]}`)
	p, err := Parse("small.json", small, Options{})
	if err != nil {
		t.Fatal(err)
	}
	runVerdicts(t, filters.Stack{p}, []verdictCase{
		{name: "x86_64 socket is the highest", syscall: "socket", action: filters.ActionAllow},
		{name: "x86_64 above socket", syscall: "connect", action: filters.ActionErrno, data: enosys},
		{name: "x86_64 below socket, unlisted", syscall: "close", action: filters.ActionErrno, data: eperm},
		// libseccomp resolves x86 socket calls to pseudo-syscalls, so
		// runc's x86 bound is write (4): direct socket() and even
		// socketcall() are above it.
		{name: "i386 write is the bound", arch: filters.ArchI386, syscall: "write", action: filters.ActionAllow},
		{name: "i386 direct socket above the bound", arch: filters.ArchI386, syscall: "socket", action: filters.ActionErrno, data: enosys},
		{name: "i386 socketcall above the bound", arch: filters.ArchI386, syscall: "socketcall", args: []uint64{1}, action: filters.ActionErrno, data: enosys},
		{name: "i386 exit below the bound", arch: filters.ArchI386, syscall: "exit", action: filters.ActionErrno, data: eperm},
		{name: "nr -1 is not x32: default, past the stub", nr: -1, action: filters.ActionErrno, data: eperm},
	})

	allow := []byte(`{"defaultAction": "SCMP_ACT_LOG", "syscalls": [{"names": ["reboot"], "action": "SCMP_ACT_ERRNO"}]}`)
	q, err := Parse("log.json", allow, Options{})
	if err != nil {
		t.Fatal(err)
	}
	runVerdicts(t, filters.Stack{q}, []verdictCase{
		{name: "LOG default: no stub", nr: 1000, action: filters.ActionLog},
		{name: "rule kept", syscall: "reboot", action: filters.ActionErrno, data: eperm},
	})
}

// TestX86Multiplexed checks the socketcall and ipc rules libseccomp adds on
// x86 for socket and SysV IPC calls (src/arch-x86.c: x86_rule_add).
func TestX86Multiplexed(t *testing.T) {
	prof := []byte(`{"defaultAction": "SCMP_ACT_ERRNO",
		"architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86"],
		"syscalls": [
			{"names": ["exit_group", "shmat"], "action": "SCMP_ACT_ALLOW"},
			{"names": ["bind"], "action": "SCMP_ACT_ALLOW", "args": [{"index": 0, "value": 3, "op": "SCMP_CMP_EQ"}, {"index": 2, "value": 16, "op": "SCMP_CMP_EQ"}]}
		]}`)
	p, err := Parse("mux.json", prof, Options{NoENOSYSStub: true})
	if err != nil {
		t.Fatal(err)
	}
	const sysBind, shmatCall = 2, 21
	runVerdicts(t, filters.Stack{p}, []verdictCase{
		{name: "ipc(SHMAT) allowed", arch: filters.ArchI386, syscall: "ipc", args: []uint64{shmatCall}, action: filters.ActionAllow},
		{name: "ipc(SHMDT) refused", arch: filters.ArchI386, syscall: "ipc", args: []uint64{22}, action: filters.ActionErrno, data: eperm},
		{name: "direct shmat allowed", arch: filters.ArchI386, syscall: "shmat", action: filters.ActionAllow},
		{name: "socketcall(BIND) with a2 16: a0 test replaced", arch: filters.ArchI386, syscall: "socketcall", args: []uint64{sysBind, 0, 16}, action: filters.ActionAllow},
		{name: "socketcall(BIND) with a2 8", arch: filters.ArchI386, syscall: "socketcall", args: []uint64{sysBind, 0, 8}, action: filters.ActionErrno, data: eperm},
		{name: "direct bind keeps both tests", arch: filters.ArchI386, syscall: "bind", args: []uint64{3, 0, 16}, action: filters.ActionAllow},
		{name: "direct bind a0 4", arch: filters.ArchI386, syscall: "bind", args: []uint64{4, 0, 16}, action: filters.ActionErrno, data: eperm},
		{name: "x86_64 has no multiplexer", syscall: "bind", args: []uint64{3, 0, 16}, action: filters.ActionAllow},
	})
}

// TestRuncENOSYSStub checks the layout of runc's stub as
// CompileOCILibseccomp prepends it: its length for each shape and, run in
// front of `ret ALLOW`, its verdicts.
func TestRuncENOSYSStub(t *testing.T) {
	tests := []struct {
		name    string
		bounds  []scmp.StubBound
		wantLen int
		cases   []verdictCase
	}{
		{"no arch", nil, 4, []verdictCase{{name: "anything passes", nr: 5000, action: filters.ActionAllow}}},
		{"x86_64, x86, x32", []scmp.StubBound{{filters.AuditArchX86_64, 435, filters.X32SyscallBit | 547}, {filters.AuditArchI386, 435, 0}}, 1 + 2 + 1 + 5 + 3 + 2, []verdictCase{
			{name: "x86_64 at bound", nr: 435, action: filters.ActionAllow},
			{name: "x86_64 above", nr: 436, action: filters.ActionErrno, data: enosys},
			{name: "x32 at bound", arch: filters.ArchX32, nr: 547, action: filters.ActionAllow},
			{name: "x32 above", arch: filters.ArchX32, nr: 548, action: filters.ActionErrno, data: enosys},
			{name: "i386 above", arch: filters.ArchI386, nr: 436, action: filters.ActionErrno, data: enosys},
			{name: "i386 below", arch: filters.ArchI386, nr: 3, action: filters.ActionAllow},
		}},
		{"x86_64 only", []scmp.StubBound{{filters.AuditArchX86_64, 10, 0}}, 1 + 1 + 1 + 4 + 2, []verdictCase{
			{name: "above", nr: 11, action: filters.ActionErrno, data: enosys},
			{name: "x32 numbers skip the test", arch: filters.ArchX32, nr: 600, action: filters.ActionAllow},
			{name: "other arch passes", arch: filters.ArchI386, nr: 600, action: filters.ActionAllow},
		}},
		{"x32 only", []scmp.StubBound{{filters.AuditArchX86_64, 0, filters.X32SyscallBit | 20}}, 1 + 1 + 1 + 4 + 2, []verdictCase{
			{name: "x32 above", arch: filters.ArchX32, nr: 21, action: filters.ActionErrno, data: enosys},
			{name: "x86_64 numbers skip the test", nr: 600, action: filters.ActionAllow},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stub, err := scmp.RuncENOSYSStub(tt.bounds)
			if err != nil {
				t.Fatal(err)
			}
			if len(stub) != tt.wantLen {
				t.Errorf("stub has %d instructions, want %d", len(stub), tt.wantLen)
			}
			p := &filters.Program{Name: tt.name, Insns: append(stub, bpf.RawInstruction{Op: filters.Ret | filters.K, K: uint32(filters.ActionAllow)})}
			if err := filters.Validate(p.Insns); err != nil {
				t.Fatal(err)
			}
			runVerdicts(t, filters.Stack{p}, tt.cases)
		})
	}
}
