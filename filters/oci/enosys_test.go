package oci

import (
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/internal/filterstest"
	"github.com/seccompbench/seccompbench/filters/scmp"
)

// TestOCIENOSYSStub checks runc's -ENOSYS stub as Parse models it
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
	for _, a := range []*scmp.Arch{scmp.X86_64, scmp.X86, scmp.X32} {
		if bound[a] == 0 {
			t.Fatalf("docker-default has no ENOSYS bound for %s", a.Name)
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
	filterstest.RunVerdicts(t, filters.Stack{def}, []filterstest.VerdictCase{
		{Name: "x86_64 highest named syscall keeps its rule", Nr: x8664, Action: filters.ActionAllow},
		{Name: "x86_64 above the bound", Nr: x8664 + 1, Action: filters.ActionErrno, Data: enosys},
		{Name: "x86_64 far above", Nr: 100000, Action: filters.ActionErrno, Data: enosys},
		{Name: "x86_64 unlisted below the bound gets the default", Syscall: "vhangup", Action: filters.ActionErrno, Data: eperm},
		{Name: "i386 above the bound", Arch: filters.ArchI386, Nr: i386 + 1, Action: filters.ActionErrno, Data: enosys},
		{Name: "i386 highest keeps its rule", Arch: filters.ArchI386, Nr: i386, Action: filters.ActionAllow},
		{Name: "x32 above the bound", Arch: filters.ArchX32, Nr: x32 + 1, Action: filters.ActionErrno, Data: enosys},
		{Name: "x32 read allowed", Arch: filters.ArchX32, Syscall: "read", Action: filters.ActionAllow},
	})
	filterstest.RunVerdicts(t, filters.Stack{nostub}, []filterstest.VerdictCase{
		{Name: "no stub: far above gets the default", Nr: 100000, Action: filters.ActionErrno, Data: eperm},
	})

	small := []byte(`{"defaultAction": "SCMP_ACT_ERRNO",
		"architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86"],
		"syscalls": [{"names": ["read", "write", "socket"], "action": "SCMP_ACT_ALLOW"}]}`)
	p, err := Parse("small.json", small, Options{})
	if err != nil {
		t.Fatal(err)
	}
	filterstest.RunVerdicts(t, filters.Stack{p}, []filterstest.VerdictCase{
		{Name: "x86_64 socket is the highest", Syscall: "socket", Action: filters.ActionAllow},
		{Name: "x86_64 above socket", Syscall: "connect", Action: filters.ActionErrno, Data: enosys},
		{Name: "x86_64 below socket, unlisted", Syscall: "close", Action: filters.ActionErrno, Data: eperm},
		// libseccomp resolves x86 socket calls to pseudo-syscalls, so
		// runc's x86 bound is write (4): direct socket() and even
		// socketcall() are above it.
		{Name: "i386 write is the bound", Arch: filters.ArchI386, Syscall: "write", Action: filters.ActionAllow},
		{Name: "i386 direct socket above the bound", Arch: filters.ArchI386, Syscall: "socket", Action: filters.ActionErrno, Data: enosys},
		{Name: "i386 socketcall above the bound", Arch: filters.ArchI386, Syscall: "socketcall", Args: []uint64{1}, Action: filters.ActionErrno, Data: enosys},
		{Name: "i386 exit below the bound", Arch: filters.ArchI386, Syscall: "exit", Action: filters.ActionErrno, Data: eperm},
		{Name: "nr -1 is not x32: default, past the stub", Nr: -1, Action: filters.ActionErrno, Data: eperm},
	})

	allow := []byte(`{"defaultAction": "SCMP_ACT_LOG", "syscalls": [{"names": ["reboot"], "action": "SCMP_ACT_ERRNO"}]}`)
	q, err := Parse("log.json", allow, Options{})
	if err != nil {
		t.Fatal(err)
	}
	filterstest.RunVerdicts(t, filters.Stack{q}, []filterstest.VerdictCase{
		{Name: "LOG default: no stub", Nr: 1000, Action: filters.ActionLog},
		{Name: "rule kept", Syscall: "reboot", Action: filters.ActionErrno, Data: eperm},
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
	filterstest.RunVerdicts(t, filters.Stack{p}, []filterstest.VerdictCase{
		{Name: "ipc(SHMAT) allowed", Arch: filters.ArchI386, Syscall: "ipc", Args: []uint64{shmatCall}, Action: filters.ActionAllow},
		{Name: "ipc(SHMDT) refused", Arch: filters.ArchI386, Syscall: "ipc", Args: []uint64{22}, Action: filters.ActionErrno, Data: eperm},
		{Name: "direct shmat allowed", Arch: filters.ArchI386, Syscall: "shmat", Action: filters.ActionAllow},
		{Name: "socketcall(BIND) with a2 16: a0 test replaced", Arch: filters.ArchI386, Syscall: "socketcall", Args: []uint64{sysBind, 0, 16}, Action: filters.ActionAllow},
		{Name: "socketcall(BIND) with a2 8", Arch: filters.ArchI386, Syscall: "socketcall", Args: []uint64{sysBind, 0, 8}, Action: filters.ActionErrno, Data: eperm},
		{Name: "direct bind keeps both tests", Arch: filters.ArchI386, Syscall: "bind", Args: []uint64{3, 0, 16}, Action: filters.ActionAllow},
		{Name: "direct bind a0 4", Arch: filters.ArchI386, Syscall: "bind", Args: []uint64{4, 0, 16}, Action: filters.ActionErrno, Data: eperm},
		{Name: "x86_64 has no multiplexer", Syscall: "bind", Args: []uint64{3, 0, 16}, Action: filters.ActionAllow},
	})
}

// TestRuntimeModels: crun adds no ENOSYS stub, so a number above the
// profile's gets the default errno; runc 1.1 keeps the stub without the
// binary tree, which changes the layout, never a verdict.
func TestRuntimeModels(t *testing.T) {
	eperm, enosys := uint16(1), uint16(filters.ENOSYS)
	for _, tc := range []struct {
		rt   Runtime
		data uint16
	}{{RuntimeRunc, enosys}, {RuntimeRunc11, enosys}, {RuntimeCrun, eperm}} {
		t.Run(string(tc.rt), func(t *testing.T) {
			p, err := DockerDefault(Options{Runtime: tc.rt})
			if err != nil {
				t.Fatal(err)
			}
			filterstest.RunVerdicts(t, filters.Stack{p}, []filterstest.VerdictCase{
				{Name: "far above", Nr: 100000, Action: filters.ActionErrno, Data: tc.data},
				{Name: "getpid", Syscall: "getpid", Action: filters.ActionAllow},
			})
		})
	}
	runc, _ := DockerDefault(Options{})
	runc11, _ := DockerDefault(Options{Runtime: RuntimeRunc11})
	if runc.SHA256() == runc11.SHA256() {
		t.Error("runc and runc-1.1 lay docker-default out the same; runc 1.2 asks for the binary tree")
	}
	if _, err := ParseRuntime("kata"); err == nil {
		t.Error("ParseRuntime accepted kata")
	}
}
