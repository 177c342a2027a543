//go:build libseccomp && cgo

// Package lsdiff holds the helpers of the differential tests that compare
// the native compiler (filters/scmp) with libseccomp, for the tests of
// filters/oci and filters/systemd.
package lsdiff

import (
	"testing"

	libseccomp "github.com/seccomp/libseccomp-golang"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/scmp"
)

// The differential tests compile the same profile or unit natively and
// with libseccomp and compare the verdicts through EmulateStack on every
// syscall number of the x86 ABIs with zero arguments, and on argument
// values taken from the rules. Numbers where our syscall table (Linux
// 6.18) and the linked libseccomp's table disagree are left out and
// counted: there the two compilers are expected to differ (a name
// libseccomp does not know is skipped, as runc and systemd skip it).

// ABI is one x86 ABI as both tables see it.
type ABI struct {
	Arch *filters.Arch
	Scmp *scmp.Arch
	LS   libseccomp.ScmpArch
}

// ABIs are the three x86 ABIs.
var ABIs = []ABI{
	{filters.ArchX86_64, scmp.X86_64, libseccomp.ArchAMD64},
	{filters.ArchI386, scmp.X86, libseccomp.ArchX86},
	{filters.ArchX32, scmp.X32, libseccomp.ArchX32},
}

// TableDisagreements returns, for one ABI, the seccomp_data.nr values
// (x32 bit included) whose syscall the two tables name differently: a
// name ours has at n that libseccomp puts elsewhere or lacks, or the
// reverse for the names in extra.
func TableDisagreements(t *testing.T, abi ABI, extra []string) map[uint32]bool {
	t.Helper()
	out := map[uint32]bool{}
	names := map[string]bool{}
	for n := range abi.Arch.Names {
		names[n] = true
	}
	for _, n := range extra {
		names[n] = true
	}
	for n := range names {
		ours, ok := abi.Scmp.Nr(n)
		lib, err := libseccomp.GetSyscallFromNameByArch(n, abi.LS)
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

// ArgSamples returns argument vectors that exercise the rules' conditions:
// each condition's datum, its neighbours, its mask, values across the
// 32-bit boundary, in the condition's own argument (others zero), in every
// argument at once, and all conditions of a rule satisfied together.
func ArgSamples(rules []scmp.Rule) [][6]uint64 {
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

// CompareStacks runs both stacks on every input and reports the first
// differences; it returns how many inputs it compared and how many it left
// out for table disagreements.
func CompareStacks(t *testing.T, native, lib filters.Stack, rules []scmp.Rule, names []string) (compared, skipped int) {
	t.Helper()
	samples := ArgSamples(rules)
	ruleNrs := map[*filters.Arch]map[uint32]bool{}
	for _, abi := range ABIs {
		ruleNrs[abi.Arch] = map[uint32]bool{}
		for _, r := range rules {
			if nr, ok := abi.Scmp.Nr(r.Syscall); ok && len(r.Conds) > 0 {
				ruleNrs[abi.Arch][nr] = true
			}
		}
	}
	bad := 0
	check := func(d filters.SeccompData, what string) {
		compared++
		a, err := filters.EmulateStack(native, d)
		if err != nil {
			t.Fatal(err)
		}
		b, err := filters.EmulateStack(lib, d)
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
	for _, abi := range ABIs {
		skip := TableDisagreements(t, abi, names)
		mask := abi.Arch.Mask
		var nrs []uint32
		for n := uint32(0); n < 1100; n++ {
			nrs = append(nrs, n|mask)
		}
		nrs = append(nrs, 0x3fffffff|mask, 0xffffffff)
		if mask == 0 {
			nrs = append(nrs, filters.X32SyscallBit|1) // an x32 number seen by an x86_64-only filter
		}
		for _, nr := range nrs {
			if skip[nr] {
				skipped++
				continue
			}
			d := filters.SeccompData{Nr: int32(nr), Arch: abi.Arch.AuditArch}
			check(d, abi.Arch.Name)
			if abi.Arch == filters.ArchI386 && (nr == i386Socketcall || nr == i386IPC) {
				// x86 multiplexes socket and SysV IPC calls: try
				// every call number.
				for call := uint64(0); call < 26; call++ {
					for _, a1 := range []uint64{0, 1} {
						d.Args = [6]uint64{call, a1, 16}
						check(d, abi.Arch.Name)
					}
				}
				d.Args = [6]uint64{}
			}
			if ruleNrs[abi.Arch][nr] {
				for _, args := range samples {
					d.Args = args
					check(d, abi.Arch.Name)
				}
			}
		}
	}
	check(filters.SeccompData{Nr: 63, Arch: scmp.AARCH64.Audit}, "aarch64")
	if bad > 20 {
		t.Errorf("... %d differences in all", bad)
	}
	return compared, skipped
}

// RuleNames returns the syscall name of each rule, in order.
func RuleNames(rules []scmp.Rule) []string {
	var out []string
	for _, r := range rules {
		out = append(out, r.Syscall)
	}
	return out
}
