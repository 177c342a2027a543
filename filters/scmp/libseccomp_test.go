//go:build libseccomp && cgo

package scmp

import (
	"os"
	"sort"
	"testing"

	libseccomp "github.com/seccomp/libseccomp-golang"
	"golang.org/x/net/bpf"
)

// The differential tests compile the same profile or unit natively and
// with libseccomp and compare the verdicts through EmulateStack on every
// syscall number of the x86 ABIs with zero arguments, and on argument
// values taken from the rules. Numbers where our syscall table (Linux
// 6.18) and the linked libseccomp's table disagree are left out and
// counted: there the two compilers are expected to differ (a name
// libseccomp does not know is skipped, as runc and systemd skip it).

// diffABI is one x86 ABI as both tables see it.
type diffABI struct {
	arch *Arch
	scmp *Arch
	ls   libseccomp.ScmpArch
}

var diffABIs = []diffABI{
	{ArchX86_64, X86_64, libseccomp.ArchAMD64},
	{ArchI386, X86, libseccomp.ArchX86},
	{ArchX32, X32, libseccomp.ArchX32},
}

// tableDisagreements returns, for one ABI, the seccomp_data.nr values
// (x32 bit included) whose syscall the two tables name differently: a
// name ours has at n that libseccomp puts elsewhere or lacks, or the
// reverse for the names in extra.
func tableDisagreements(t *testing.T, abi diffABI, extra []string) map[uint32]bool {
	t.Helper()
	out := map[uint32]bool{}
	names := map[string]bool{}
	for n := range abi.arch.Names {
		names[n] = true
	}
	for _, n := range extra {
		names[n] = true
	}
	for n := range names {
		ours, ok := abi.scmp.Nr(n)
		lib, err := libseccomp.GetSyscallFromNameByArch(n, abi.ls)
		libOK := err == nil && lib >= 0
		switch {
		case ok && libOK && uint32(lib) == ours:
		case ok && libOK:
			out[ours], out[uint32(lib)] = true, true
		case ok:
			out[ours] = true
		case libOK:
			out[uint32(lib)] = true
		}
	}
	return out
}

// argSamples returns argument vectors that exercise the rules' conditions:
// each condition's datum, its neighbours, its mask, values across the
// 32-bit boundary, in the condition's own argument (others zero), in every
// argument at once, and all conditions of a rule satisfied together.
func argSamples(rules []Rule) [][6]uint64 {
	seen := map[[6]uint64]bool{}
	var out [][6]uint64
	add := func(v [6]uint64) {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	for _, r := range rules {
		var all [6]uint64
		for _, c := range r.Conds {
			vals := []uint64{c.Datum, c.Datum + 1, c.Datum - 1, c.Mask, c.Datum | ^c.Mask, c.Datum | 1<<32,
				c.Datum &^ (1 << 32), c.Datum ^ 0xffffffff, c.Datum & c.Mask, 0, 0xffffffff, 1 << 32, ^uint64(0)}
			for _, v := range vals {
				var one [6]uint64
				one[c.Arg] = v
				add(one)
				add([6]uint64{v, v, v, v, v, v})
			}
			all[c.Arg] = c.Datum
		}
		add(all)
	}
	return out
}

// i386 multiplexer syscall numbers (arch/x86/entry/syscalls/syscall_32.tbl).
const (
	i386Socketcall = 102
	i386IPC        = 117
)

// compareStacks runs both stacks on every input and reports the first
// differences; it returns how many inputs it compared and how many it left
// out for table disagreements.
func compareStacks(t *testing.T, native, lib Stack, rules []Rule, names []string) (compared, skipped int) {
	t.Helper()
	samples := argSamples(rules)
	ruleNrs := map[*Arch]map[uint32]bool{}
	for _, abi := range diffABIs {
		ruleNrs[abi.arch] = map[uint32]bool{}
		for _, r := range rules {
			if nr, ok := abi.scmp.Nr(r.Syscall); ok && len(r.Conds) > 0 {
				ruleNrs[abi.arch][nr] = true
			}
		}
	}
	bad := 0
	check := func(d SeccompData, what string) {
		compared++
		a, err := EmulateStack(native, d)
		if err != nil {
			t.Fatal(err)
		}
		b, err := EmulateStack(lib, d)
		if err != nil {
			t.Fatal(err)
		}
		if a.Ret != b.Ret {
			bad++
			if bad <= 20 {
				t.Errorf("%s nr %#x args %#x: native %s(%d), libseccomp %s(%d)", what, uint32(d.Nr), d.Args, a.Action, a.Data, b.Action, b.Data)
			}
		}
	}
	for _, abi := range diffABIs {
		skip := tableDisagreements(t, abi, names)
		mask := abi.arch.Mask
		var nrs []uint32
		for n := uint32(0); n < 1100; n++ {
			nrs = append(nrs, n|mask)
		}
		nrs = append(nrs, 0x3fffffff|mask, 0xffffffff)
		if mask == 0 {
			nrs = append(nrs, X32SyscallBit|1) // an x32 number seen by an x86_64-only filter
		}
		for _, nr := range nrs {
			if skip[nr] {
				skipped++
				continue
			}
			d := SeccompData{Nr: int32(nr), Arch: abi.arch.AuditArch}
			check(d, abi.arch.Name)
			if abi.arch == ArchI386 && (nr == i386Socketcall || nr == i386IPC) {
				// x86 multiplexes socket and SysV IPC calls: try
				// every call number.
				for call := uint64(0); call < 26; call++ {
					for _, a1 := range []uint64{0, 1} {
						d.Args = [6]uint64{call, a1, 16}
						check(d, abi.arch.Name)
					}
				}
				d.Args = [6]uint64{}
			}
			if ruleNrs[abi.arch][nr] {
				for _, args := range samples {
					d.Args = args
					check(d, abi.arch.Name)
				}
			}
		}
	}
	check(SeccompData{Nr: 63, Arch: auditArchAARCH64}, "aarch64")
	if bad > 20 {
		t.Errorf("... %d differences in all", bad)
	}
	return compared, skipped
}

func ruleNames(rules []Rule) []string {
	var out []string
	for _, r := range rules {
		out = append(out, r.Syscall)
	}
	return out
}

func TestLibseccompOCIDifferential(t *testing.T) {
	dd, err := DockerDefaultJSON()
	if err != nil {
		t.Fatal(err)
	}
	read := func(name string) []byte {
		b, err := os.ReadFile("../testdata/policies/" + name)
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
	allCaps := OCIOptions{Caps: AllCaps}
	tests := []struct {
		name string
		data []byte
		opt  OCIOptions
	}{
		{"docker-default", dd, OCIOptions{}},
		{"docker-default all caps", dd, allCaps},
		{"docker-default kernel 4.4", dd, OCIOptions{KernelVersion: "4.4"}},
		{"docker-default no stub", dd, OCIOptions{NoENOSYSStub: true}},
		{"podman-like", read("podman-like.json"), OCIOptions{}},
		{"vmm-like", read("vmm-like.json"), OCIOptions{}},
		{"operators", ops, OCIOptions{}},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			res, err := resolveOCI(tt.Name, tt.data, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			native, err := ParseOCI(tt.Name, tt.data, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			lib, err := CompileOCILibseccomp(tt.Name, tt.data, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			n, skipped := compareStacks(t, Stack{native}, Stack{lib}, res.f.Rules, ruleNames(res.f.Rules))
			t.Logf("%d inputs agree (%d numbers left out where the syscall tables differ); native %d instructions, libseccomp %d",
				n, skipped, native.Len(), lib.Len())
		})
	}
}

// systemdFilters models a unit and returns its filters before compilation
// (the same model ParseSystemdUnit compiles).
func systemdFilters(t *testing.T, name string, data []byte) []*Filter {
	t.Helper()
	c, err := parseUnit(name, data)
	if err != nil {
		t.Fatal(err)
	}
	var out []*Filter
	_, err = c.stack(name, SystemdOptions{}, func(f *Filter) ([]bpf.RawInstruction, error) {
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
		b, err := os.ReadFile("../testdata/policies/" + name)
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
		t.Run(tt.Name, func(t *testing.T) {
			native, err := ParseSystemdUnit(tt.Name, tt.data, SystemdOptions{})
			if err != nil {
				t.Fatal(err)
			}
			lib, err := CompileSystemdLibseccomp(tt.Name, tt.data, SystemdOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(native.Programs) != len(lib.Programs) {
				t.Fatalf("native stack has %d filters, libseccomp %d", len(native.Programs), len(lib.Programs))
			}
			fs := systemdFilters(t, tt.Name, tt.data)
			var rules []Rule
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
			n, skipped := compareStacks(t, native.Stack(), lib.Stack(), rules, names)
			nl, ll := 0, 0
			for i := range native.Programs {
				nl += native.Programs[i].Len()
				ll += lib.Programs[i].Len()
			}
			t.Logf("%d inputs agree (%d left out); %d filters: native %d instructions in all, libseccomp %d", n, skipped, len(native.Programs), nl, ll)
		})
	}
}
