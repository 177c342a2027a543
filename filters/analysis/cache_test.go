package analysis

import (
	"math/rand/v2"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/internal/filterstest"
	"golang.org/x/net/bpf"
)

func TestPredictCache(t *testing.T) {
	allow := filterstest.Allowlist(t, "allow", 39, 0)
	// write (1) is allowed only when args[0] == 1; getpid unconditionally.
	argRule := filterstest.Asm(t, "arg-rule",
		filterstest.LdNr(),
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 39, SkipTrue: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 1, SkipFalse: 2},
		filterstest.LdArg(0, false),
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 1, SkipTrue: 1},
		filterstest.Ret(filters.ActionErrno, 1),
		filterstest.Ret(filters.ActionAllow, 0),
	)
	allowB := filterstest.Allowlist(t, "allowB", 39, 1)
	masked := filterstest.Asm(t, "masked",
		filterstest.LdNr(),
		bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: 0xff},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 39, SkipTrue: 1},
		filterstest.Ret(filters.ActionErrno, 1),
		filterstest.Ret(filters.ActionAllow, 0),
	)
	ranges := filterstest.Asm(t, "ranges",
		filterstest.LdNr(),
		bpf.JumpIf{Cond: bpf.JumpGreaterThan, Val: 100, SkipTrue: 3},
		bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: 50, SkipTrue: 2},
		bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: 1, SkipTrue: 1},
		filterstest.Ret(filters.ActionErrno, 1),
		filterstest.Ret(filters.ActionAllow, 0),
	)
	usesX := filterstest.Asm(t, "uses-x", filterstest.LdNr(), bpf.TAX{}, filterstest.Ret(filters.ActionAllow, 0))
	allowData := filterstest.Asm(t, "allow-data", bpf.RetConstant{Val: uint32(filters.ActionAllow) | 1})
	denyAll := filterstest.Asm(t, "deny-all", filterstest.Ret(filters.ActionErrno, 1))
	invalidP := &filters.Program{Name: "bad", Insns: []bpf.RawInstruction{filterstest.Raw(filters.Ld|filters.W|filters.Abs, 0, 0, 2), filterstest.Raw(filters.Ret|filters.A, 0, 0, 0)}}

	type want struct {
		arch   string
		nr     int
		cached bool
		cause  string
		filter int
		pc     int
	}
	tests := []struct {
		name string
		s    filters.Stack
		want []want
	}{
		{"plain allowlist", filters.Stack{allow}, []want{
			{"x86_64", 39, true, CacheAllowed, -1, -1},
			{"x86_64", 0, true, CacheAllowed, -1, -1},
			{"x86_64", 1, false, CacheRet, 0, 5},
			{"x86_64", 400, false, CacheRet, 0, 5},     // named, not allowed
			{"x86_64", 469, false, CacheRet, 0, 5},     // last bit of the bitmap
			{"x86_64", 470, false, CacheRange, -1, -1}, // beyond NR_syscalls
			{"i386", 20, false, CacheRet, 0, 7},        // getpid on i386: arch check kills
			{"x32", 39, false, CacheRange, -1, -1},
		}},
		{"argument rule uncaches only its syscall", filters.Stack{argRule}, []want{
			{"x86_64", 39, true, CacheAllowed, -1, -1},
			{"x86_64", 1, false, CacheLoad, 0, 3},
			{"x86_64", 2, false, CacheRet, 0, 5},
			{"i386", 20, false, CacheRet, 0, 5},
			{"i386", 39, true, CacheAllowed, -1, -1}, // no arch check: i386 39 is umask
		}},
		{"DefeatCache uncaches everything", filters.Stack{allow.DefeatCache()}, []want{
			{"x86_64", 39, false, CacheLoad, 0, 0},
			{"x86_64", 0, false, CacheLoad, 0, 0},
			{"i386", 20, false, CacheLoad, 0, 0},
		}},
		{"stack ANDs bitmaps, oldest failing filter blamed", filters.Stack{allow, allowB}, []want{
			{"x86_64", 39, true, CacheAllowed, -1, -1},
			{"x86_64", 0, false, CacheRet, 1, 5},
			{"x86_64", 1, false, CacheRet, 0, 5},
		}},
		{"one defeated filter uncaches the stack", filters.Stack{allow, allow, allow.DefeatCache(), allow}, []want{
			{"x86_64", 39, false, CacheLoad, 2, 0},
		}},
		{"and #k is followed", filters.Stack{masked}, []want{
			{"x86_64", 39, true, CacheAllowed, -1, -1},
			{"x86_64", 39 + 256, true, CacheAllowed, -1, -1},
			{"x86_64", 40, false, CacheRet, 0, 3},
		}},
		{"jgt jge jset are followed", filters.Stack{ranges}, []want{
			{"x86_64", 101, true, CacheAllowed, -1, -1},
			{"x86_64", 100, true, CacheAllowed, -1, -1},
			{"x86_64", 50, true, CacheAllowed, -1, -1},
			{"x86_64", 49, true, CacheAllowed, -1, -1},
			{"x86_64", 48, false, CacheRet, 0, 4},
		}},
		{"X register is outside the subset", filters.Stack{usesX}, []want{
			{"x86_64", 39, false, CacheInsn, 0, 1},
		}},
		{"ALLOW with data bits is not ALLOW", filters.Stack{allowData}, []want{
			{"x86_64", 39, false, CacheRet, 0, 0},
		}},
		{"uretprobe and uprobe pass without filtering", filters.Stack{denyAll, allow.DefeatCache()}, []want{
			{"x86_64", 335, true, CacheException, -1, -1},
			{"x86_64", 336, true, CacheException, -1, -1},
			{"x86_64", 334, false, CacheRet, 0, 0},
			{"i386", 335, false, CacheRet, 0, 0},
			{"x32", 335, false, CacheRange, -1, -1},
		}},
		{"empty stack", nil, []want{
			{"x86_64", 39, true, CacheNoFilters, -1, -1},
			{"x32", 39, true, CacheNoFilters, -1, -1},
		}},
		{"invalid filter", filters.Stack{allow, invalidP}, []want{
			{"x86_64", 39, false, CacheInvalid, 1, -1},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := PredictCache(tt.s, nil)
			for _, w := range tt.want {
				got, ok := r.Lookup(w.arch, w.nr)
				if !ok {
					t.Fatalf("Lookup(%s, %d) not found", w.arch, w.nr)
				}
				if got.Cached != w.cached || got.Cause != w.cause || got.Filter != w.filter || got.PC != w.pc {
					t.Errorf("Lookup(%s, %d) = cached %v cause %s filter %d pc %d, want cached %v cause %s filter %d pc %d (%s)",
						w.arch, w.nr, got.Cached, got.Cause, got.Filter, got.PC, w.cached, w.cause, w.filter, w.pc, got.Reason)
				}
				if !got.Cached && got.Reason == "" {
					t.Errorf("Lookup(%s, %d): uncached without a reason", w.arch, w.nr)
				}
			}
		})
	}
}

func TestCacheReportShape(t *testing.T) {
	r := PredictCache(filters.Stack{filterstest.Allowlist(t, "allow", 39, 0)}, nil)
	if got, want := r.Arches, []string{"x86_64", "i386", "x32"}; len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("Arches = %v, want %v", got, want)
	}
	wantLen := len(filters.ArchX86_64.Numbers) + len(filters.ArchI386.Numbers) + len(filters.ArchX32.Numbers)
	if len(r.Entries) != wantLen {
		t.Errorf("len(Entries) = %d, want %d (every named syscall)", len(r.Entries), wantLen)
	}
	cached, total := r.Count("x86_64")
	// getpid, read, and the kernel's uretprobe/uprobe exception.
	if cached != 4 || total != len(filters.ArchX86_64.Numbers) {
		t.Errorf("Count(x86_64) = %d, %d; want 4, %d", cached, total, len(filters.ArchX86_64.Numbers))
	}
	if e, _ := r.Lookup("x86_64", 39); e.Name != "getpid" {
		t.Errorf("Lookup(x86_64, 39).Name = %q, want getpid", e.Name)
	}
	if _, ok := r.Lookup("arm64", 39); ok {
		t.Error("Lookup(arm64) found, want false")
	}
	for i := 1; i < len(r.Entries); i++ {
		a, b := r.Entries[i-1], r.Entries[i]
		if a.Arch == b.Arch && a.Nr >= b.Nr {
			t.Fatalf("Entries not ascending at %d: %s %d then %d", i, a.Arch, a.Nr, b.Nr)
		}
	}
}

// TestPredictCacheSound checks the cache prediction against the emulator:
// whatever the arguments and instruction pointer, a syscall predicted cached
// must be allowed by every filter (apart from the kernel's uprobe
// exception), and one predicted "not-allow" must return a non-ALLOW value
// for some input.
func TestPredictCacheSound(t *testing.T) {
	argRule := filterstest.Asm(t, "arg-rule",
		filterstest.LdNr(),
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 1, SkipFalse: 2},
		filterstest.LdArg(0, false),
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 1, SkipTrue: 1},
		filterstest.Ret(filters.ActionErrno, 1),
		filterstest.Ret(filters.ActionAllow, 0),
	)
	stacks := map[string]filters.Stack{
		"allowlist":      {filterstest.Allowlist(t, "a", 0, 1, 39, 60, 231)},
		"arg rule":       {argRule},
		"stack of three": {filterstest.Allowlist(t, "a", 0, 1, 39), argRule, filterstest.Allowlist(t, "b", 1, 39, 60)},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for name, s := range stacks {
		t.Run(name, func(t *testing.T) {
			r := PredictCache(s, nil)
			for _, e := range r.Entries {
				if e.Cause == CacheException || e.Cause == CacheRange {
					continue
				}
				a, _ := filters.LookupArch(e.Arch)
				for range 8 {
					d := a.Data(e.Nr, rng.Uint64(), rng.Uint64()&3, rng.Uint64(), 0, 1, rng.Uint64())
					d.InstructionPointer = rng.Uint64()
					got, err := filters.EmulateStack(s, d)
					if err != nil {
						t.Fatal(err)
					}
					if e.Cached && got.Ret != uint32(filters.ActionAllow) {
						t.Fatalf("%s %d predicted cached but the stack returns %s", e.Arch, e.Nr, filters.RetText(got.Ret))
					}
					if e.Cause == CacheRet && got.Ret == uint32(filters.ActionAllow) {
						t.Fatalf("%s %d predicted not-allow but the stack allows it", e.Arch, e.Nr)
					}
				}
			}
		})
	}
}
