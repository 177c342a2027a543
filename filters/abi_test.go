package filters_test

import (
	"slices"
	"testing"

	"golang.org/x/net/bpf"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/internal/filterstest"
)

func TestABIs(t *testing.T) {
	only := func(audit uint32) *filters.Program {
		return filterstest.Asm(t, "only",
			filterstest.LdArch(),
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: audit, SkipTrue: 1},
			filterstest.Ret(filters.ActionKillProcess, 0),
			filterstest.LdNr(),
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: 20, SkipFalse: 1},
			filterstest.Ret(filters.ActionErrno, 1),
			filterstest.Ret(filters.ActionAllow, 0))
	}
	x32Checked := filterstest.Asm(t, "x86_64-no-x32",
		filterstest.LdArch(),
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: filters.AuditArchX86_64, SkipTrue: 1},
		filterstest.Ret(filters.ActionKillProcess, 0),
		filterstest.LdNr(),
		bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: filters.X32SyscallBit, SkipFalse: 1},
		filterstest.Ret(filters.ActionKillProcess, 0),
		filterstest.Ret(filters.ActionAllow, 0))
	noCheck := filterstest.Asm(t, "allow", filterstest.Ret(filters.ActionAllow, 0))
	// systemd's x32 filter of an allow list: other arches and x86_64
	// numbers pass (SCMP_FLTATR_ACT_BADARCH ALLOW), x32 read is allowed,
	// every other x32 call killed.
	x32Allow := filterstest.Asm(t, "x32-allowlist",
		filterstest.LdArch(),
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: filters.AuditArchX86_64, SkipFalse: 4},
		filterstest.LdNr(),
		bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: filters.X32SyscallBit, SkipFalse: 2},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: filters.X32SyscallBit, SkipTrue: 1},
		filterstest.Ret(filters.ActionKillProcess, 0),
		filterstest.Ret(filters.ActionAllow, 0))
	tests := []struct {
		name string
		p    *filters.Program
		want []string
	}{
		{"i386 only", only(filters.AuditArchI386), []string{"i386"}},
		{"arm only", only(filters.AuditArchARM), []string{"arm"}},
		{"x86_64, x32 falls through", only(filters.AuditArchX86_64), []string{"x86_64"}},
		{"x86_64, x32 killed", x32Checked, []string{"x86_64"}},
		{"no arch check", noCheck, nil},
		{"systemd's x32 allow list", x32Allow, []string{"x32"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.ABIs(); !slices.Equal(got, tt.want) {
				t.Errorf("ABIs() = %q, want %q", got, tt.want)
			}
		})
	}
	if got := filters.StackABIs(filters.Stack{noCheck, only(filters.AuditArchI386), x32Checked}); !slices.Equal(got, []string{"x86_64", "i386"}) {
		t.Errorf("StackABIs = %q, want [x86_64 i386]", got)
	}
	if got := filters.StackABIs(filters.Stack{only(filters.AuditArchI386), x32Allow, x32Checked}); !slices.Equal(got, []string{"x86_64", "i386", "x32"}) {
		t.Errorf("StackABIs of a systemd-like stack = %q, want [x86_64 i386 x32]", got)
	}
}
