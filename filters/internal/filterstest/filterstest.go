// Package filterstest holds the helpers the tests of the filters
// sub-packages share: assembling small programs, running verdict tables
// through the emulator, and the path of the policy corpus.
package filterstest

import (
	"path/filepath"
	"runtime"
	"testing"

	"golang.org/x/net/bpf"

	"github.com/seccompbench/seccompbench/filters"
)

// PoliciesDir is the repository's policy corpus, testdata/policies, as an
// absolute path.
var PoliciesDir = func() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "testdata", "policies")
}()

// Policy returns the path of the corpus file name.
func Policy(name string) string { return filepath.Join(PoliciesDir, name) }

// Asm assembles x/net/bpf instructions into a Program, failing the test on
// assembler errors.
func Asm(t testing.TB, name string, insns ...bpf.Instruction) *filters.Program {
	t.Helper()
	raw, err := bpf.Assemble(insns)
	if err != nil {
		t.Fatalf("assemble %s: %v", name, err)
	}
	return &filters.Program{Name: name, Insns: raw}
}

// LdNr loads seccomp_data.nr.
func LdNr() bpf.Instruction { return bpf.LoadAbsolute{Off: filters.OffsetNr, Size: 4} }

// LdArch loads seccomp_data.arch.
func LdArch() bpf.Instruction { return bpf.LoadAbsolute{Off: filters.OffsetArch, Size: 4} }

// LdArg loads the low (or, with hi, the high) word of args[i].
func LdArg(i int, hi bool) bpf.Instruction {
	off := uint32(filters.OffsetArgs + 8*i)
	if hi {
		off += 4
	}
	return bpf.LoadAbsolute{Off: off, Size: 4}
}

// Ret returns action a with data.
func Ret(a filters.Action, data uint16) bpf.Instruction {
	return bpf.RetConstant{Val: uint32(a) | uint32(data)}
}

// Raw is a raw instruction.
func Raw(op uint16, jt, jf uint8, k uint32) bpf.RawInstruction {
	return bpf.RawInstruction{Op: op, Jt: jt, Jf: jf, K: k}
}

// Allowlist builds the usual shape: check arch, then allow the given
// x86_64 numbers, else ERRNO(1); a foreign arch is killed.
func Allowlist(t testing.TB, name string, nrs ...uint32) *filters.Program {
	t.Helper()
	insns := []bpf.Instruction{
		LdArch(),
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: filters.AuditArchX86_64, SkipFalse: uint8(len(nrs) + 3)},
		LdNr(),
	}
	for i, nr := range nrs {
		insns = append(insns, bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr, SkipTrue: uint8(len(nrs) - i)})
	}
	insns = append(insns, Ret(filters.ActionErrno, 1), Ret(filters.ActionAllow, 0), Ret(filters.ActionKillProcess, 0))
	return Asm(t, name, insns...)
}

// VerdictCase is one syscall and its expected outcome through a stack.
type VerdictCase struct {
	Name    string
	Arch    *filters.Arch // nil: x86_64
	Syscall string
	Nr      int // used when Syscall is ""
	Args    []uint64
	Action  filters.Action
	Data    uint16
}

// RunVerdicts runs every case through s with filters.EmulateStack, one
// subtest each.
func RunVerdicts(t *testing.T, s filters.Stack, cases []VerdictCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			a := tc.Arch
			if a == nil {
				a = filters.ArchX86_64
			}
			n := tc.Nr
			if tc.Syscall != "" {
				var ok bool
				if n, ok = a.Lookup(tc.Syscall); !ok {
					t.Fatalf("%s has no syscall %q", a.Name, tc.Syscall)
				}
			}
			r, err := filters.EmulateStack(s, a.Data(n, tc.Args...))
			if err != nil {
				t.Fatal(err)
			}
			if r.Action != tc.Action || r.Data != tc.Data {
				t.Errorf("%s %s%v = %s(%d), want %s(%d)", a.Name, tc.Syscall, tc.Args, r.Action, r.Data, tc.Action, tc.Data)
			}
		})
	}
}
