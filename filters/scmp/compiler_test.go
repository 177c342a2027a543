package scmp

import (
	"errors"
	"fmt"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/internal/filterstest"
	"golang.org/x/net/bpf"
)

func TestParseCompiler(t *testing.T) {
	tests := []struct {
		in      string
		want    Compiler
		wantErr bool
	}{
		{"", CompilerNative, false},
		{"native", CompilerNative, false},
		{"libseccomp", CompilerLibseccomp, false},
		{"LibSeccomp", CompilerLibseccomp, false},
		{"gcc", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseCompiler(tt.in)
		if tt.wantErr {
			if !errors.Is(err, ErrUnknownCompiler) {
				t.Errorf("ParseCompiler(%q) error = %v, want ErrUnknownCompiler", tt.in, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseCompiler(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
		if round, _ := ParseCompiler(got.String()); round != got {
			t.Errorf("ParseCompiler(%v.String()) = %v", got, round)
		}
	}
}

// TestRuncENOSYSStub checks the layout of runc's stub as
// oci.CompileLibseccomp prepends it: its length for each shape and, run in
// front of `ret ALLOW`, its verdicts.
func TestRuncENOSYSStub(t *testing.T) {
	tests := []struct {
		name    string
		bounds  []StubBound
		wantLen int
		cases   []filterstest.VerdictCase
	}{
		{"no arch", nil, 4, []filterstest.VerdictCase{{Name: "anything passes", Nr: 5000, Action: filters.ActionAllow}}},
		{"x86_64, x86, x32", []StubBound{{filters.AuditArchX86_64, 435, filters.X32SyscallBit | 547}, {filters.AuditArchI386, 435, 0}}, 1 + 2 + 1 + 5 + 3 + 2, []filterstest.VerdictCase{
			{Name: "x86_64 at bound", Nr: 435, Action: filters.ActionAllow},
			{Name: "x86_64 above", Nr: 436, Action: filters.ActionErrno, Data: filters.ENOSYS},
			{Name: "x32 at bound", Arch: filters.ArchX32, Nr: 547, Action: filters.ActionAllow},
			{Name: "x32 above", Arch: filters.ArchX32, Nr: 548, Action: filters.ActionErrno, Data: filters.ENOSYS},
			{Name: "i386 above", Arch: filters.ArchI386, Nr: 436, Action: filters.ActionErrno, Data: filters.ENOSYS},
			{Name: "i386 below", Arch: filters.ArchI386, Nr: 3, Action: filters.ActionAllow},
		}},
		{"x86_64 only", []StubBound{{filters.AuditArchX86_64, 10, 0}}, 1 + 1 + 1 + 4 + 2, []filterstest.VerdictCase{
			{Name: "above", Nr: 11, Action: filters.ActionErrno, Data: filters.ENOSYS},
			{Name: "x32 numbers skip the test", Arch: filters.ArchX32, Nr: 600, Action: filters.ActionAllow},
			{Name: "other arch passes", Arch: filters.ArchI386, Nr: 600, Action: filters.ActionAllow},
		}},
		{"x32 only", []StubBound{{filters.AuditArchX86_64, 0, filters.X32SyscallBit | 20}}, 1 + 1 + 1 + 4 + 2, []filterstest.VerdictCase{
			{Name: "x32 above", Arch: filters.ArchX32, Nr: 21, Action: filters.ActionErrno, Data: filters.ENOSYS},
			{Name: "x86_64 numbers skip the test", Nr: 600, Action: filters.ActionAllow},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stub, err := RuncENOSYSStub(tt.bounds)
			if err != nil {
				t.Fatal(err)
			}
			if len(stub) != tt.wantLen {
				t.Errorf("stub has %d instructions, want %d", len(stub), tt.wantLen)
			}
			p := &filters.Program{Name: tt.name, Insns: append(stub, bpf.RawInstruction{Op: filters.Ret | filters.K, K: uint32(filters.ActionAllow)})}
			if err := filters.Validate(p.Insns); err != nil {
				t.Fatal(err)
			}
			filterstest.RunVerdicts(t, filters.Stack{p}, tt.cases)
			if got, want := ENOSYSStubReturn(p.Insns), len(stub)-1; got != want {
				t.Errorf("ENOSYSStubReturn = %d, want %d (the stub's last instruction)", got, want)
			}
		})
	}
	// A filter that returns ERRNO(38) by a rule of its own is no stub.
	own := []bpf.RawInstruction{{Op: filters.Ld | filters.W | filters.Abs, K: filters.OffsetArch}, {Op: filters.Jmp | filters.Ja, K: 1}, {Op: filters.Ret | filters.K, K: uint32(filters.ActionAllow)}, {Op: filters.Ret | filters.K, K: RetENOSYS}}
	if got := ENOSYSStubReturn(own); got != -1 {
		t.Errorf("ENOSYSStubReturn of a filter without the stub = %d, want -1", got)
	}
}

// TestRuncENOSYSStubs: runc's two map walks give n!*n! stubs for n audit
// architectures; all are distinct byte sequences, the first is
// RuncENOSYSStub's, and every one gives the same verdicts.
func TestRuncENOSYSStubs(t *testing.T) {
	tests := []struct {
		name   string
		bounds []StubBound
		want   int
	}{
		{"x86_64+x32 and i386", []StubBound{{filters.AuditArchX86_64, 435, filters.X32SyscallBit | 547}, {filters.AuditArchI386, 435, 0}}, 4},
		{"x86_64 only", []StubBound{{filters.AuditArchX86_64, 10, 0}}, 1},
	}
	cases := []filterstest.VerdictCase{
		{Name: "x86_64 at bound", Nr: 435, Action: filters.ActionAllow},
		{Name: "x86_64 above", Nr: 436, Action: filters.ActionErrno, Data: filters.ENOSYS},
		{Name: "x32 above", Arch: filters.ArchX32, Nr: 548, Action: filters.ActionErrno, Data: filters.ENOSYS},
		{Name: "i386 above", Arch: filters.ArchI386, Nr: 436, Action: filters.ActionErrno, Data: filters.ENOSYS},
		{Name: "i386 below", Arch: filters.ArchI386, Nr: 3, Action: filters.ActionAllow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stubs, err := RuncENOSYSStubs(tt.bounds)
			if err != nil {
				t.Fatal(err)
			}
			if len(stubs) != tt.want {
				t.Fatalf("got %d stubs, want %d", len(stubs), tt.want)
			}
			first, err := RuncENOSYSStub(tt.bounds)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			for i, s := range stubs {
				key := fmt.Sprint(s)
				if seen[key] {
					t.Errorf("stub %d repeats an earlier one", i)
				}
				seen[key] = true
				if i == 0 && key != fmt.Sprint(first) {
					t.Errorf("stub 0 is not RuncENOSYSStub's")
				}
				if tt.want == 1 {
					continue
				}
				p := &filters.Program{Name: fmt.Sprint("stub ", i), Insns: append(s, bpf.RawInstruction{Op: filters.Ret | filters.K, K: uint32(filters.ActionAllow)})}
				if err := filters.Validate(p.Insns); err != nil {
					t.Fatal(err)
				}
				filterstest.RunVerdicts(t, filters.Stack{p}, cases)
			}
		})
	}
}

// TestENOSYSStubPath: the native compiler's folded stub (`jgt max` on nr
// falling through to `ret ERRNO(ENOSYS)`) counts as the stub; the same
// shape on an argument word does not.
func TestENOSYSStubPath(t *testing.T) {
	prog := func(word uint32) []bpf.RawInstruction {
		return []bpf.RawInstruction{{Op: filters.Ld | filters.W | filters.Abs, K: word}, {Op: filters.Jmp | filters.Jgt | filters.K, K: 5, Jt: 0, Jf: 1},
			{Op: filters.Ret | filters.K, K: RetENOSYS}, {Op: filters.Ret | filters.K, K: uint32(filters.ActionAllow)}}
	}
	if !ENOSYSStubPath(prog(filters.OffsetNr), []int{0, 1, 2}) {
		t.Error("jgt on nr: want the stub")
	}
	if ENOSYSStubPath(prog(filters.OffsetArgs), []int{0, 1, 2}) {
		t.Error("jgt on args[0]: want no stub")
	}
	if ENOSYSStubPath(prog(filters.OffsetNr), []int{0, 1, 3}) {
		t.Error("path ending at ret ALLOW: want no stub")
	}
}
