package analysis

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/internal/filterstest"
	"golang.org/x/net/bpf"
)

func TestAnalyze(t *testing.T) {
	allow := filterstest.Allowlist(t, "allow", 39, 0)
	// write (1) allowed only when args[0] == 1; getpid unconditionally.
	argRule := filterstest.Asm(t, "arg-rule",
		filterstest.LdNr(),
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 39, SkipTrue: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 1, SkipFalse: 2},
		filterstest.LdArg(0, false),
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 1, SkipTrue: 1},
		filterstest.Ret(filters.ActionErrno, 1),
		filterstest.Ret(filters.ActionAllow, 0),
	)
	s := filters.Stack{allow, argRule, allow}
	costs, err := Analyze(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	find := func(arch string, nr int) SyscallCost {
		for _, c := range costs {
			if c.Arch == arch && c.Nr == nr {
				return c
			}
		}
		t.Fatalf("no cost for %s %d", arch, nr)
		return SyscallCost{}
	}
	tests := []struct {
		arch          string
		nr            int
		wantName      string
		wantAction    filters.Action
		wantData      uint16
		wantDecider   int
		wantCached    bool
		wantPerFilter []int
		wantEffective int
	}{
		{"x86_64", 39, "getpid", filters.ActionAllow, 0, -1, true, []int{5, 3, 5}, 0},
		{"x86_64", 0, "read", filters.ActionErrno, 1, 1, false, []int{6, 4, 6}, 16},
		{"x86_64", 1, "write", filters.ActionErrno, 1, 2, false, []int{6, 6, 6}, 18},
		{"i386", 20, "getpid", filters.ActionKillProcess, 0, 2, false, []int{3, 4, 3}, 10},
		{"x32", 39, "getpid", filters.ActionErrno, 1, 2, false, []int{6, 4, 6}, 16},
		{"x86_64", 335, "uretprobe", filters.ActionAllow, 0, -1, true, []int{6, 4, 6}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.arch+"/"+tt.wantName, func(t *testing.T) {
			got := find(tt.arch, tt.nr)
			if got.Name != tt.wantName || got.Action != tt.wantAction || got.Data != tt.wantData || got.Decider != tt.wantDecider || got.Cached != tt.wantCached {
				t.Errorf("got %s action %v data %d decider %d cached %v, want %s %v %d %d %v",
					got.Name, got.Action, got.Data, got.Decider, got.Cached, tt.wantName, tt.wantAction, tt.wantData, tt.wantDecider, tt.wantCached)
			}
			if !slices.Equal(got.PerFilter, tt.wantPerFilter) {
				t.Errorf("PerFilter = %v, want %v", got.PerFilter, tt.wantPerFilter)
			}
			sum := 0
			for _, n := range tt.wantPerFilter {
				sum += n
			}
			if got.Executed != sum || got.EffectiveInstructions != tt.wantEffective {
				t.Errorf("Executed, Effective = %d, %d; want %d, %d", got.Executed, got.EffectiveInstructions, sum, tt.wantEffective)
			}
		})
	}
	if want := len(filters.ArchX86_64.Numbers) + len(filters.ArchI386.Numbers) + len(filters.ArchX32.Numbers); len(costs) != want {
		t.Errorf("len(Analyze()) = %d, want %d", len(costs), want)
	}
}

func TestAnalyzeSyscallArgs(t *testing.T) {
	argRule := filterstest.Asm(t, "arg-rule",
		filterstest.LdNr(),
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 1, SkipFalse: 2},
		filterstest.LdArg(0, false),
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 1, SkipTrue: 1},
		filterstest.Ret(filters.ActionErrno, 1),
		filterstest.Ret(filters.ActionAllow, 0),
	)
	tests := []struct {
		name       string
		args       []uint64
		wantAction filters.Action
		wantExec   int
		wantRead   filters.FieldSet
	}{
		{"write to stdout allowed", []uint64{1, 0, 5}, filters.ActionAllow, 5, filters.FieldNr | 1<<4},
		{"write to fd 2 denied", []uint64{2}, filters.ActionErrno, 5, filters.FieldNr | 1<<4},
		{"high half ignored", []uint64{1 | 1<<40}, filters.ActionAllow, 5, filters.FieldNr | 1<<4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := AnalyzeSyscall(filters.Stack{argRule}, filters.ArchX86_64, 1, tt.args...)
			if err != nil {
				t.Fatal(err)
			}
			if got.Action != tt.wantAction || got.Executed != tt.wantExec || got.Read != tt.wantRead {
				t.Errorf("got action %v executed %d read %v, want %v %d %v", got.Action, got.Executed, got.Read, tt.wantAction, tt.wantExec, tt.wantRead)
			}
			if got.Cached || got.CacheCause != CacheLoad {
				t.Errorf("Cached, CacheCause = %v, %s; want false, %s", got.Cached, got.CacheCause, CacheLoad)
			}
		})
	}
	bad := &filters.Program{Name: "bad", Insns: []bpf.RawInstruction{filterstest.Raw(filters.Ld|filters.W|filters.Abs, 0, 0, 66), filterstest.Raw(filters.Ret|filters.A, 0, 0, 0)}}
	if _, err := AnalyzeSyscall(filters.Stack{bad}, filters.ArchX86_64, 1); !errors.Is(err, filters.ErrInvalidProgram) {
		t.Errorf("AnalyzeSyscall(invalid) error = %v, want ErrInvalidProgram", err)
	}
	if _, err := Analyze(filters.Stack{bad}, nil); !errors.Is(err, filters.ErrInvalidProgram) {
		t.Errorf("Analyze(invalid) error = %v, want ErrInvalidProgram", err)
	}
}

func TestSortByCost(t *testing.T) {
	c := []SyscallCost{
		{Arch: "x86_64", Nr: 3, EffectiveInstructions: 0, Executed: 9},
		{Arch: "x86_64", Nr: 1, EffectiveInstructions: 5, Executed: 5},
		{Arch: "i386", Nr: 2, EffectiveInstructions: 5, Executed: 5},
		{Arch: "x86_64", Nr: 0, EffectiveInstructions: 7, Executed: 7},
	}
	SortByCost(c)
	var got []int
	for _, x := range c {
		got = append(got, x.Nr)
	}
	if want := []int{0, 2, 1, 3}; !slices.Equal(got, want) {
		t.Errorf("SortByCost order = %v, want %v", got, want)
	}
}

func TestLookupSyscall(t *testing.T) {
	tests := []struct {
		arch    *filters.Arch
		name    string
		want    int
		wantErr bool
	}{
		{filters.ArchX86_64, "getpid", 39, false},
		{filters.ArchI386, "getpid", 20, false},
		{filters.ArchX32, "getpid", 39, false},
		{filters.ArchX86_64, "uprobe", 336, false},
		{filters.ArchX86_64, "file_setattr", 469, false},
		{filters.ArchX86_64, "123", 123, false},
		{filters.ArchX86_64, "nosuchcall", 0, true},
		{filters.ArchX86_64, "-1", 0, true},
	}
	for _, tt := range tests {
		got, err := LookupSyscall(tt.arch, tt.name)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("LookupSyscall(%s, %q) = %d, %v; want %d, err %v", tt.arch, tt.name, got, err, tt.want, tt.wantErr)
		}
		if err != nil && !errors.Is(err, ErrUnknownSyscall) {
			t.Errorf("LookupSyscall(%q) error %v does not wrap ErrUnknownSyscall", tt.name, err)
		}
	}
}

func TestLookupArch(t *testing.T) {
	for name, want := range map[string]*filters.Arch{"x86_64": filters.ArchX86_64, "amd64": filters.ArchX86_64, "i386": filters.ArchI386, "ia32": filters.ArchI386, "X32": filters.ArchX32} {
		if got, err := filters.LookupArch(name); err != nil || got != want {
			t.Errorf("LookupArch(%q) = %v, %v; want %v", name, got, err, want)
		}
	}
	if _, err := filters.LookupArch("ppc64le"); !errors.Is(err, filters.ErrUnknownArch) {
		t.Errorf("LookupArch(ppc64le) error = %v, want ErrUnknownArch", err)
	}
	if got := filters.NativeArches(); len(got) != 3 || got[0] != filters.ArchX86_64 || got[1] != filters.ArchI386 || got[2] != filters.ArchX32 {
		t.Errorf("NativeArches() = %v", got)
	}
	if got := filters.ArchX32.Data(1).Nr; got != filters.X32SyscallBit|1 {
		t.Errorf("ArchX32.Data(1).Nr = %#x, want %#x", got, filters.X32SyscallBit|1)
	}
}

// benchStack builds depth distinct filters of about 120 instructions each:
// an arch check, 100 allowed x86_64 numbers, and a write rule on args[0].
func benchStack(b testing.TB, depth int) filters.Stack {
	s := make(filters.Stack, depth)
	for i := range s {
		insns := []bpf.Instruction{
			filterstest.LdArch(),
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: filters.AuditArchX86_64, SkipTrue: 1},
			filterstest.Ret(filters.ActionKillProcess, 0),
			filterstest.LdNr(),
			bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: filters.X32SyscallBit, SkipFalse: 1},
			filterstest.Ret(filters.ActionErrno, filters.ENOSYS),
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: 1, SkipFalse: 4},
			filterstest.LdArg(0, false),
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(i % 3), SkipFalse: 1},
			filterstest.Ret(filters.ActionAllow, 0),
			filterstest.LdNr(),
		}
		const n = 100
		for j := range n {
			nr := uint32((j*7 + i) % 450)
			insns = append(insns, bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr, SkipTrue: uint8(n - j + 1)})
		}
		insns = append(insns, filterstest.Ret(filters.ActionErrno, 1), filterstest.Ret(filters.ActionKillProcess, 0), filterstest.Ret(filters.ActionAllow, 0))
		s[i] = filterstest.Asm(b, "bench", insns...)
	}
	return s
}

// BenchmarkAnalyze measures Analyze over every syscall of x86_64, i386 and
// x32 for a 32-deep stack of distinct ~120-instruction filters. The target
// is well under a second per operation.
func BenchmarkAnalyze(b *testing.B) {
	s := benchStack(b, 32)
	if n := s[0].Len(); n < 110 || n > 130 {
		b.Fatalf("bench filter has %d instructions, want about 120", n)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := Analyze(s, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func TestLookupSyscallHints(t *testing.T) {
	for name, want := range map[string]string{
		"getpdi":   "did you mean getpid?",
		"getuid32": "i386 and arm have it (give --arch i386)",
		"zzzzzzzz": `look up syscall "zzzzzzzz" for x86_64: unknown syscall`,
	} {
		_, err := LookupSyscall(filters.ArchX86_64, name)
		if err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, filters.ErrUnknownSyscall) {
			t.Errorf("LookupSyscall(%q) = %v, want an ErrUnknownSyscall containing %q", name, err, want)
		}
	}
}
