package filters

// foreignAudit is an AUDIT_ARCH value no ABI has (EM_NONE with the 64-bit
// and little-endian bits): what a filter returns for it is what it
// returns for an architecture it does not check.
const foreignAudit = 0xc0000000

// unknownNr is a syscall number no ABI's table has.
const unknownNr = 0x3ff

// ABIs returns the names of the ABIs p is written for, in the order
// x86_64, i386, x32, aarch64, arm, riscv64: those for which some syscall of the
// ABI's table gets another verdict (all arguments 0) than the same number
// from an architecture no ABI has. A filter that checks AUDIT_ARCH_I386
// only is for "i386". x32, which shares AUDIT_ARCH_X86_64, is listed when
// some x32 number (X32SyscallBit set) gets another verdict than an x32
// number no table has (unknownNr): a rule of its own, not x32 calls
// merely falling to the x86_64 default. (Not compared with a foreign
// arch: systemd's x32 filter returns ALLOW both for a foreign arch and
// for the x32 calls it allows.) It returns
// nil for a filter whose verdicts never depend on seccomp_data.arch
// (raw BPF without an arch check: every ABI alike), and for a program
// the kernel would refuse.
func (p *Program) ABIs() []string {
	c, err := NewExecutable(p)
	if err != nil {
		return nil
	}
	var out []string
	for _, a := range []*Arch{ArchX86_64, ArchI386, ArchX32, ArchAArch64, ArchARM, ArchRISCV64} {
		unknown := SeccompData{Nr: a.Nr(unknownNr), Arch: a.AuditArch}
		u := c.Exec(&unknown).Ret
		for _, n := range a.SortedNumbers() {
			d := a.Data(n)
			foreign := d
			foreign.Arch = foreignAudit
			r := c.Exec(&d).Ret
			if a == ArchX32 && r != u || a != ArchX32 && r != c.Exec(&foreign).Ret {
				out = append(out, a.Name)
				break
			}
		}
	}
	return out
}

// StackABIs returns the ABIs any filter of s is written for (see
// Program.ABIs), in the order Program.ABIs uses; nil means no filter
// checks the arch. A union: systemd installs one filter per ABI, each
// passing the others' calls.
func StackABIs(s Stack) []string {
	seen := map[string]bool{}
	for _, p := range s {
		for _, a := range p.ABIs() {
			seen[a] = true
		}
	}
	var out []string
	for _, a := range []*Arch{ArchX86_64, ArchI386, ArchX32, ArchAArch64, ArchARM, ArchRISCV64} {
		if seen[a.Name] {
			out = append(out, a.Name)
		}
	}
	return out
}
