package filters

import (
	"fmt"
	"runtime"
	"slices"

	seccomp "github.com/elastic/go-seccomp-bpf"
	elarch "github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
)

// elasticArch maps our ABIs to go-seccomp-bpf's for CompileFor.
var elasticArch = map[*Arch]*elarch.Info{
	ArchX86_64:  elarch.X86_64,
	ArchI386:    elarch.I386,
	ArchAArch64: elarch.AARCH64,
	ArchARM:     elarch.ARM,
}

// CompileFor compiles a Beats policy the way
// github.com/elastic/go-seccomp-bpf assembles it on a host whose native ABI
// is a, whatever this host is: the program checks seccomp_data.arch against
// a's audit arch (any other arch gets the default action), adds the x32
// ENOSYS guard only for x86_64, and numbers syscalls from a's table.
// Compile is CompileFor(runtime.GOARCH's ABI) as go-seccomp-bpf does it.
//
// Names a's table lacks (on aarch64: open, stat, fork, epoll_wait and the
// other legacy calls asm-generic never had) are dropped from their groups,
// as a process of that ABI cannot make them, and each drop is listed in
// the program's Warnings; go-seccomp-bpf itself would reject the policy
// ("found unknown syscalls for arch"). A group left empty is dropped too.
// Errors: the *PolicyError values of Validate, an error wrapping
// ErrUnknownArch for an ABI go-seccomp-bpf cannot target (x32), or an
// assembler error wrapped as "compile policy NAME for ARCH: ...".
func (p *Policy) CompileFor(a *Arch) (*Program, error) {
	info, ok := elasticArch[a]
	if !ok {
		return nil, fmt.Errorf("compile policy %q for %s: %w (go-seccomp-bpf targets x86_64, i386, aarch64 and arm)", p.Name, a, ErrUnknownArch)
	}
	sp, err := p.ToSeccomp()
	if err != nil {
		return nil, err
	}
	var warnings []string
	groups := sp.Syscalls[:0]
	for _, g := range sp.Syscalls {
		keep := g.Names[:0]
		for _, n := range g.Names {
			if _, ok := info.SyscallNames[n]; ok {
				keep = append(keep, n)
			} else {
				warnings = append(warnings, fmt.Sprintf("%s: syscall %q does not exist on %s; dropped from its %s group", p.Name, n, a, g.Action))
			}
		}
		g.Names = keep
		g.NamesWithCondtions = slices.DeleteFunc(g.NamesWithCondtions, func(n seccomp.NameWithConditions) bool {
			if _, ok := info.SyscallNames[n.Name]; ok {
				return false
			}
			warnings = append(warnings, fmt.Sprintf("%s: syscall %q does not exist on %s; its argument rule is dropped", p.Name, n.Name, a))
			return true
		})
		if len(g.Names) > 0 || len(g.NamesWithCondtions) > 0 {
			groups = append(groups, g)
		}
	}
	sp.Syscalls = groups
	if err := setSeccompArch(sp, info); err != nil {
		return nil, err
	}
	insns, err := sp.Assemble()
	if err != nil {
		return nil, fmt.Errorf("compile policy %q for %s: %w", p.Name, a, err)
	}
	raw, err := bpf.Assemble(insns)
	if err != nil {
		return nil, fmt.Errorf("compile policy %q for %s: %w", p.Name, a, err)
	}
	return &Program{Name: p.Name, Source: p.Source, SourceSHA256: p.SHA256, Insns: raw, Warnings: warnings}, nil
}

// compileArch is the ABI Compile targets: the native ABI of
// runtime.GOARCH, as go-seccomp-bpf's own Assemble picks it (a
// compile-time constant, not a look at the host), x86_64 when this
// package has no table for GOARCH.
func compileArch() *Arch {
	if as := HostArches(runtime.GOARCH); len(as) > 0 {
		return as[0]
	}
	return ArchX86_64
}
