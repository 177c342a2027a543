package kafel

import (
	"strconv"
	"strings"
	"sync"

	"github.com/seccompbench/seccompbench/filters"
)

// sysArg is one declared argument of a syscall in Kafel's table.
type sysArg struct {
	name string
	size int // bytes: 4 compares the low word only, 8 both
}

// sysDesc is one syscall of Kafel's table of an architecture.
type sysDesc struct {
	nr   uint32
	args [6]sysArg
}

// archTable is Kafel's syscall list of one architecture.
type archTable struct {
	name  string // canonical name, as ON guards and --arch spell it
	audit uint32
	bits  int
	text  string
	once  sync.Once
	byNm  map[string]*sysDesc
}

// tables are the architectures whose Kafel syscall lists are here
// (ztables.go, from google/kafel src/syscalls/): the ones this project
// has an ABI for. Kafel also has mips, mips64 and m68k lists.
var tables = []*archTable{
	{name: "x86_64", audit: filters.AuditArchX86_64, bits: 64, text: tableX86_64},
	{name: "aarch64", audit: filters.AuditArchAArch64, bits: 64, text: tableAArch64},
	{name: "i386", audit: filters.AuditArchI386, bits: 32, text: tableI386},
	{name: "arm", audit: filters.AuditArchARM, bits: 32, text: tableARM},
	{name: "riscv64", audit: filters.AuditArchRISCV64, bits: 64, text: tableRISCV64},
}

// tableFor returns Kafel's table for the ABI a (x32 has none: Kafel
// compiles x86_64 filters only for AUDIT_ARCH_X86_64), or nil.
func tableFor(a *filters.Arch) *archTable {
	for _, t := range tables {
		if t.name == a.Name {
			return t
		}
	}
	return nil
}

// syscalls returns the table's syscalls by Kafel name, parsed once.
func (t *archTable) syscalls() map[string]*sysDesc {
	t.once.Do(func() {
		t.byNm = map[string]*sysDesc{}
		for _, l := range strings.Split(strings.TrimSpace(t.text), "\n") {
			fs := strings.Fields(l)
			nr, _ := strconv.ParseUint(fs[1], 10, 32)
			d := &sysDesc{nr: uint32(nr)}
			for i, a := range fs[2:] {
				if n, sz, ok := strings.Cut(a, ":"); ok {
					s, _ := strconv.Atoi(sz)
					d.args[i] = sysArg{name: n, size: s}
				}
			}
			t.byNm[fs[0]] = d
		}
	})
	return t.byNm
}
