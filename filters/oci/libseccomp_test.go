//go:build libseccomp && cgo

package oci

import (
	"github.com/seccompbench/seccompbench/filters/internal/lsdiff"
	"os"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/internal/filterstest"
)

func TestLibseccompOCIDifferential(t *testing.T) {
	dd, err := DockerDefaultJSON()
	if err != nil {
		t.Fatal(err)
	}
	read := func(name string) []byte {
		b, err := os.ReadFile(filterstest.PoliciesDir + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	ops := []byte(`{"defaultAction": "SCMP_ACT_ERRNO", "defaultErrnoRet": 13,
	"architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32"],
	"syscalls": [
		{"names": ["read", "write", "close"], "action": "SCMP_ACT_ALLOW"},
		{"names": ["getppid"], "action": "SCMP_ACT_ERRNO", "errnoRet": 5},
		{"names": ["gettid"], "action": "SCMP_ACT_KILL"},
		{"names": ["getuid"], "action": "SCMP_ACT_KILL_PROCESS"},
		{"names": ["getgid"], "action": "SCMP_ACT_TRAP"},
		{"names": ["geteuid"], "action": "SCMP_ACT_TRACE"},
		{"names": ["getegid"], "action": "SCMP_ACT_LOG"},
		{"names": ["dup"], "action": "SCMP_ACT_ALLOW", "args": [{"index": 0, "value": 10, "op": "SCMP_CMP_NE"}]},
		{"names": ["dup2"], "action": "SCMP_ACT_ALLOW", "args": [{"index": 0, "value": 10, "op": "SCMP_CMP_LT"}]},
		{"names": ["dup3"], "action": "SCMP_ACT_ALLOW", "args": [{"index": 0, "value": 10, "op": "SCMP_CMP_LE"}]},
		{"names": ["fsync"], "action": "SCMP_ACT_ALLOW", "args": [{"index": 0, "value": 4294967296, "op": "SCMP_CMP_GE"}]},
		{"names": ["fdatasync"], "action": "SCMP_ACT_ALLOW", "args": [{"index": 0, "value": 4294967295, "op": "SCMP_CMP_GT"}]},
		{"names": ["umask"], "action": "SCMP_ACT_ALLOW", "args": [{"index": 0, "value": 18, "valueTwo": 2, "op": "SCMP_CMP_MASKED_EQ"}]},
		{"names": ["getpriority"], "action": "SCMP_ACT_ALLOW", "args": [{"index": 0, "value": 255, "valueTwo": 308, "op": "SCMP_CMP_MASKED_EQ"}]},
		{"names": ["setpriority"], "action": "SCMP_ACT_ALLOW", "args": [{"index": 1, "value": 280375465083135, "valueTwo": 77309411380, "op": "SCMP_CMP_MASKED_EQ"}]},
		{"names": ["setsockopt"], "action": "SCMP_ACT_ALLOW", "args": [{"index": 2, "value": 18446744069414584320, "valueTwo": 5, "op": "SCMP_CMP_MASKED_EQ"}]},
		{"names": ["kill"], "action": "SCMP_ACT_ALLOW", "args": [{"index": 0, "value": 1, "op": "SCMP_CMP_EQ"}, {"index": 1, "value": 9, "op": "SCMP_CMP_EQ"}]},
		{"names": ["tkill"], "action": "SCMP_ACT_ALLOW", "args": [{"index": 1, "value": 9, "op": "SCMP_CMP_EQ"}, {"index": 1, "value": 15, "op": "SCMP_CMP_EQ"}]},
		{"names": ["lseek"], "action": "SCMP_ACT_ALLOW", "args": [{"index": 2, "value": 4294967298, "op": "SCMP_CMP_EQ"}]},
		{"names": ["socket", "connect"], "action": "SCMP_ACT_ALLOW"},
		{"names": ["bind"], "action": "SCMP_ACT_ALLOW", "args": [{"index": 2, "value": 16, "op": "SCMP_CMP_EQ"}]},
		{"names": ["shmat", "semop"], "action": "SCMP_ACT_ALLOW"},
		{"names": ["socketpair"], "action": "SCMP_ACT_ALLOW", "args": [{"index": 0, "value": 1, "op": "SCMP_CMP_EQ"}, {"index": 1, "value": 1, "op": "SCMP_CMP_EQ"}]},
		{"names": ["recvmmsg"], "action": "SCMP_ACT_TRAP"}
	]}`)
	allCaps := Options{Caps: AllCaps}
	tests := []struct {
		name string
		data []byte
		opt  Options
	}{
		{"docker-default", dd, Options{}},
		{"docker-default all caps", dd, allCaps},
		{"docker-default kernel 4.4", dd, Options{KernelVersion: "4.4"}},
		{"docker-default no stub", dd, Options{NoENOSYSStub: true}},
		{"podman-like", read("podman-like.json"), Options{}},
		{"vmm-like", read("vmm-like.json"), Options{}},
		{"operators", ops, Options{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := resolve(tt.name, tt.data, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			native, err := Parse(tt.name, tt.data, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			lib, err := CompileLibseccomp(tt.name, tt.data, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			n, skipped := lsdiff.CompareStacks(t, filters.Stack{native}, filters.Stack{lib}, res.f.Rules, lsdiff.RuleNames(res.f.Rules))
			t.Logf("%d inputs agree (%d numbers left out where the syscall tables differ); native %d instructions, libseccomp %d",
				n, skipped, native.Len(), lib.Len())
		})
	}
}
