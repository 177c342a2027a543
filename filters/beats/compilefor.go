package beats

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"

	seccomp "github.com/elastic/go-seccomp-bpf"
	elarch "github.com/elastic/go-seccomp-bpf/arch"
	"github.com/seccompbench/seccompbench/filters"
	"golang.org/x/net/bpf"
)

// elasticArch maps our ABIs to go-seccomp-bpf's for CompileFor.
var elasticArch = map[*filters.Arch]*elarch.Info{
	filters.ArchX86_64:  elarch.X86_64,
	filters.ArchI386:    elarch.I386,
	filters.ArchAArch64: elarch.AARCH64,
	filters.ArchARM:     elarch.ARM,
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
func (p *Policy) CompileFor(a *filters.Arch) (*filters.Program, error) {
	info, ok := elasticArch[a]
	if !ok {
		return nil, fmt.Errorf("compile policy %q for %s: %w (go-seccomp-bpf targets x86_64, i386, aarch64 and arm)", p.Name, a, filters.ErrUnknownArch)
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
	insns, err := assembleFor(sp, info)
	if err != nil {
		return nil, fmt.Errorf("compile policy %q for %s: %w", p.Name, a, err)
	}
	raw, err := bpf.Assemble(insns)
	if err != nil {
		return nil, fmt.Errorf("compile policy %q for %s: %w", p.Name, a, err)
	}
	return &filters.Program{Name: p.Name, Source: p.Source, SourceSHA256: p.SHA256, Insns: raw, Warnings: warnings, RuleAt: p.ruleAt()}, nil
}

// ruleAt maps each syscall name to where the policy first writes it
// (Program.RuleAt), "source:line:col"; names without a position (a
// policy built in code) are left out.
func (p *Policy) ruleAt() map[string]string {
	at := map[string]string{}
	put := func(name string, pos Pos) {
		if _, ok := at[name]; !ok && pos.Line > 0 {
			at[name] = fmt.Sprintf("%s:%d:%d", p.Source, pos.Line, pos.Col)
		}
	}
	for _, g := range p.Groups {
		for _, n := range g.Names {
			put(n.Name, n.Pos)
		}
		for _, n := range g.NamesWithArgs {
			put(n.Name, n.Pos)
		}
	}
	return at
}

// compileArch is the ABI Compile targets: the native ABI of
// runtime.GOARCH, as go-seccomp-bpf's own Assemble picks it (a
// compile-time constant, not a look at the host), x86_64 when this
// package has no table for GOARCH.
func compileArch() *filters.Arch {
	if as := filters.HostArches(runtime.GOARCH); len(as) > 0 {
		return as[0]
	}
	return filters.ArchX86_64
}

// errnoENOSYS is ENOSYS (include/uapi/asm-generic/errno.h), the errno of
// go-seccomp-bpf's x32 guard.
const errnoENOSYS = 38

// assembleFor is seccomp.Policy.Assemble for the ABI info rather than
// runtime.GOARCH, built only from go-seccomp-bpf's exported pieces:
// v1.6.0 keeps its target in the unexported Policy.arch, filled from
// runtime.GOARCH, and offers no public setter. The groups' syscalls are
// numbered from info's table (names merged per number in policy order,
// conditions appended, as its SyscallGroup does), each group is assembled
// with seccomp.SyscallWithConditions.Assemble and seccomp.Program, and the
// header is the library's: load seccomp_data.arch, send any other arch to
// the default action (one jump, or jeq+ja past 255 instructions), load
// the number, and for x86_64 the x32 guard (nr >= 0x40000000: ENOSYS).
// TestAssembleForMatchesLibrary checks that the result is the library's
// own Assemble on this GOARCH, byte for byte, for every corpus policy, so
// a change in the library fails that test rather than going unnoticed.
// Errors are Validate's, or the library's problems for a group (unknown or
// duplicate names, bad conditions).
func assembleFor(sp *seccomp.Policy, info *elarch.Info) ([]bpf.Instruction, error) {
	if err := sp.Validate(); err != nil {
		return nil, err
	}
	prog := seccomp.NewProgram()
	for _, g := range sp.Syscalls {
		if len(g.Names)+len(g.NamesWithCondtions) == 0 {
			continue
		}
		syscalls, err := groupSyscalls(g, info)
		if err != nil {
			return nil, err
		}
		action, next := prog.NewLabel(), prog.NewLabel()
		for i, s := range syscalls {
			s.Assemble(&prog, i < len(syscalls)-1, action, next)
		}
		prog.SetLabel(action)
		prog.Ret(g.Action)
		prog.SetLabel(next)
	}
	prog.Ret(sp.DefaultAction)
	body, err := prog.Assemble()
	if err != nil {
		return nil, err
	}
	var x32 []bpf.Instruction
	if info.ID == elarch.X86_64.ID {
		x32 = []bpf.Instruction{
			bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: uint32(elarch.X32.SeccompMask), SkipFalse: 1},
			bpf.RetConstant{Val: uint32(seccomp.ActionErrno) | errnoENOSYS},
		}
	}
	out := make([]bpf.Instruction, 0, len(x32)+len(body)+5)
	out = append(out, bpf.LoadAbsolute{Off: filters.OffsetArch, Size: 4})
	if n := len(x32) + len(body); n <= 255 {
		out = append(out, bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: uint32(info.ID), SkipTrue: uint8(n)})
	} else {
		out = append(out, bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(info.ID), SkipTrue: 1}, bpf.Jump{Skip: uint32(n)})
	}
	out = append(out, bpf.LoadAbsolute{Off: filters.OffsetNr, Size: 4})
	out = append(out, x32...)
	return append(out, body...), nil
}

// groupSyscalls numbers g's syscalls from info's table, merging names and
// conditions per number in policy order as go-seccomp-bpf's SyscallGroup
// does. Errors list every problem, one a line.
func groupSyscalls(g seccomp.SyscallGroup, info *elarch.Info) ([]seccomp.SyscallWithConditions, error) {
	var out []seccomp.SyscallWithConditions
	var problems []string
	find := func(nr uint32) *seccomp.SyscallWithConditions {
		for i := range out {
			if out[i].Num == nr {
				return &out[i]
			}
		}
		return nil
	}
	for _, name := range g.Names {
		num, ok := info.SyscallNames[name]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("found unknown syscalls for arch %v: %v", info.Name, name))
		case find(uint32(num|info.SeccompMask)) != nil:
			problems = append(problems, fmt.Sprintf("found duplicate syscall %v", name))
		default:
			out = append(out, seccomp.SyscallWithConditions{Num: uint32(num | info.SeccompMask)})
		}
	}
	for _, nc := range g.NamesWithCondtions {
		num, ok := info.SyscallNames[nc.Name]
		if !ok {
			problems = append(problems, fmt.Sprintf("found unknown syscalls for arch %v: %v", info.Name, nc.Name))
			continue
		}
		if bad := nc.Conditions.Validate(); len(bad) > 0 {
			problems = append(problems, bad...)
			continue
		}
		nr := uint32(num | info.SeccompMask)
		switch s := find(nr); {
		case s == nil:
			out = append(out, seccomp.SyscallWithConditions{Num: nr, Conditions: []seccomp.ArgumentConditions{nc.Conditions}})
		case len(s.Conditions) == 0:
			problems = append(problems, fmt.Sprintf("found conditional and unconditional check: %v", nc.Name))
		default:
			s.Conditions = append(s.Conditions, nc.Conditions)
		}
	}
	if len(problems) > 0 {
		return nil, errors.New(strings.Join(problems, "\n"))
	}
	return out, nil
}
