package analysis

import (
	"strings"
	"testing"

	"golang.org/x/net/bpf"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/beats"
	"github.com/seccompbench/seccompbench/filters/internal/filterstest"
)

// TestPredictCacheAArch64 predicts the action cache of an arm64 kernel
// (native aarch64 and compat arm bitmaps) for the default policy compiled
// for aarch64: plain allowed names are cached, a denied one is not, and
// every arm syscall fails the arch check, so none is cached.
func TestPredictCacheAArch64(t *testing.T) {
	p, err := beats.Default().CompileFor(filters.ArchAArch64)
	if err != nil {
		t.Fatal(err)
	}
	rep := PredictCache(filters.Stack{p}, filters.KernelArches(filters.ArchAArch64))
	tests := []struct {
		arch   *filters.Arch
		name   string
		cached bool
	}{
		{filters.ArchAArch64, "getpid", true},
		{filters.ArchAArch64, "read", true},
		{filters.ArchAArch64, "ptrace", false},
		{filters.ArchARM, "getpid", false},
		{filters.ArchARM, "set_tls", false}, // outside the compat bitmap
	}
	for _, tt := range tests {
		nr, _ := tt.arch.Lookup(tt.name)
		e, ok := rep.Lookup(tt.arch.Name, nr)
		if !ok {
			t.Errorf("%s %s: no cache entry", tt.arch, tt.name)
			continue
		}
		if e.Cached != tt.cached {
			t.Errorf("%s %s: cached = %v (%s), want %v", tt.arch, tt.name, e.Cached, e.Reason, tt.cached)
		}
	}
	// A defeated copy caches nothing on either ABI.
	rep = PredictCache(filters.Stack{p.DefeatCache()}, filters.KernelArches(filters.ArchAArch64))
	for _, e := range rep.Entries {
		if e.Cached {
			t.Fatalf("%s %s cached with the cache defeated", e.Arch, e.Name)
		}
	}
	costs, err := Analyze(filters.Stack{p}, []*filters.Arch{filters.ArchAArch64})
	if err != nil {
		t.Fatal(err)
	}
	if len(costs) != len(filters.ArchAArch64.Numbers) {
		t.Errorf("Analyze: %d costs, want one per aarch64 syscall (%d)", len(costs), len(filters.ArchAArch64.Numbers))
	}
}

// TestLintAArch64Bypass lints for an aarch64 host: a denylist matching
// aarch64 numbers without an arch check lets the same syscalls through the
// arm compat ABI, which Lint reports as LintBypassARM (and never the x86
// codes); the default policy compiled for aarch64 checks the arch and is
// not bypassable.
func TestLintAArch64Bypass(t *testing.T) {
	deny := filterstest.Asm(t, "denylist-aarch64",
		filterstest.LdNr(),
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 117, SkipTrue: 2}, // ptrace (aarch64)
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 221, SkipTrue: 2}, // execve (aarch64)
		filterstest.Ret(filters.ActionAllow, 0),
		filterstest.Ret(filters.ActionKillProcess, 0),
		filterstest.Ret(filters.ActionErrno, 1),
	)
	codes := func(fs []Finding) map[string]string {
		m := map[string]string{}
		for _, f := range fs {
			m[f.Code] = f.Message
		}
		return m
	}
	got := codes(Lint(filters.Stack{deny}, LintOptions{Arch: filters.ArchAArch64}))
	msg, ok := got[LintBypassARM]
	if !ok || !strings.Contains(msg, "ptrace, execve") || !strings.Contains(msg, "arm compat ABI") {
		t.Errorf("findings %v: want %s naming ptrace, execve", got, LintBypassARM)
	}
	for _, c := range []string{LintBypassI386, LintBypassX32, LintX32Unhandled} {
		if _, ok := got[c]; ok {
			t.Errorf("aarch64 lint reported %s", c)
		}
	}
	p, err := beats.Default().CompileFor(filters.ArchAArch64)
	if err != nil {
		t.Fatal(err)
	}
	if got := codes(Lint(filters.Stack{p}, LintOptions{Arch: filters.ArchAArch64})); got[LintBypassARM] != "" {
		t.Errorf("default policy for aarch64: %s", got[LintBypassARM])
	}
}
