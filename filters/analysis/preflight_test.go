package analysis

import (
	"strings"
	"testing"

	"golang.org/x/net/bpf"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/internal/filterstest"
)

func TestPreflight(t *testing.T) {
	x := filters.ArchX86_64
	nr := func(name string) uint32 {
		n, ok := x.Lookup(name)
		if !ok {
			t.Fatalf("no syscall %s", name)
		}
		return uint32(n)
	}
	// deny returns ERRNO(1) for one syscall and allows the rest.
	deny := func(name string, a filters.Action) *filters.Program {
		return filterstest.Asm(t, "deny-"+name,
			filterstest.LdNr(),
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr(name), SkipFalse: 1},
			filterstest.Ret(a, 1),
			filterstest.Ret(filters.ActionAllow, 0))
	}
	allow := filterstest.Asm(t, "allow", filterstest.Ret(filters.ActionAllow, 0))
	notify := deny("getppid", filters.ActionUserNotif)
	tests := []struct {
		name     string
		stack    filters.Stack
		workload []string
		want     []wantFinding
	}{
		{"clean", filters.Stack{allow, allow}, []string{"getpid"}, nil},
		{"seccomp denied below the top", filters.Stack{deny("seccomp", filters.ActionErrno), allow, allow}, nil,
			[]wantFinding{{SeverityError, LintInstallDenied, "seccomp", 0, ""}}},
		{"seccomp denied by the top only", filters.Stack{allow, deny("seccomp", filters.ActionErrno)}, nil, nil},
		{"workload killed", filters.Stack{deny("getpid", filters.ActionKillProcess)}, []string{"getpid"},
			[]wantFinding{{SeverityError, LintWorkloadKilled, "getpid", 0, ""}}},
		{"workload denied", filters.Stack{deny("getpid", filters.ActionErrno)}, []string{"getpid"},
			[]wantFinding{{SeverityWarning, LintWorkloadDenied, "getpid", 0, ""}}},
		{"user notif", filters.Stack{notify}, nil,
			[]wantFinding{{SeverityError, LintUserNotif, "getppid", 0, ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Preflight(tt.stack, LintOptions{Workload: tt.workload})
			checkFindings(t, got, tt.want)
			if HasErrors(got) != (len(tt.want) > 0 && tt.want[0].sev == SeverityError) {
				t.Errorf("HasErrors = %v for %v", HasErrors(got), got)
			}
		})
	}
}

// TestLintInstallDepth: lint reports a filter denying seccomp(2) at the
// depth it checks: --filters (Count, the stack cycled) or the stack as
// given, an error; else run's default depth (RunDepth), a warning. The
// finding names the deciding filter's index in the stack given.
func TestLintInstallDepth(t *testing.T) {
	n, _ := filters.ArchX86_64.Lookup("seccomp")
	denySeccomp := filterstest.Asm(t, "deny-seccomp",
		filterstest.LdNr(),
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(n), SkipFalse: 1},
		filterstest.Ret(filters.ActionErrno, 1),
		filterstest.Ret(filters.ActionAllow, 0))
	allow := filterstest.Asm(t, "allow", filterstest.Ret(filters.ActionAllow, 0))
	tests := []struct {
		name  string
		stack filters.Stack
		opts  LintOptions
		msg   string // "" = no install-denied finding
		index int
		sev   Severity
	}{
		{"one filter at --filters 32", filters.Stack{denySeccomp}, LintOptions{Count: 32}, "filter 0 (deny-seccomp) returns SECCOMP_RET_ERRNO(1) for seccomp(2); installing filter 2 of 32 would fail", 0, SeverityError},
		{"one filter at --filters 1", filters.Stack{denySeccomp}, LintOptions{Count: 1, RunDepth: 32}, "", 0, 0},
		{"one filter, run's default", filters.Stack{denySeccomp}, LintOptions{RunDepth: 32}, "installing filter 2 of 32 (run without --filters goes up to 32) would fail", 0, SeverityWarning},
		{"one filter, no default", filters.Stack{denySeccomp}, LintOptions{}, "", 0, 0},
		{"cycled: the second policy denies", filters.Stack{allow, denySeccomp}, LintOptions{Count: 3}, "filter 1 (deny-seccomp) returns SECCOMP_RET_ERRNO(1) for seccomp(2); installing filter 3 of 3 would fail", 1, SeverityError},
		{"the stack given hits it first", filters.Stack{denySeccomp, allow}, LintOptions{RunDepth: 32}, "installing filter 2 of 2 would fail", 0, SeverityError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []Finding
			for _, f := range Lint(tt.stack, tt.opts) {
				if f.Code == LintInstallDenied {
					got = append(got, f)
				}
			}
			if tt.msg == "" {
				if len(got) != 0 {
					t.Fatalf("got %+v, want no install-denied finding", got)
				}
				return
			}
			if len(got) != 1 || got[0].Severity != tt.sev || got[0].Filter != tt.index || got[0].Syscall != "seccomp" || !strings.Contains(got[0].Message, tt.msg) {
				t.Fatalf("got %+v, want one %s for filter %d containing %q", got, tt.sev, tt.index, tt.msg)
			}
		})
	}
}

// TestInstallableDepth: the first prefix that does not allow seccomp(2)
// ends the stack that can be installed; a stack that allows it, or is
// denied only by its newest filter, installs whole.
func TestInstallableDepth(t *testing.T) {
	x := filters.ArchX86_64
	nr, _ := x.Lookup("seccomp")
	strict := filterstest.Asm(t, "strict",
		filterstest.LdNr(),
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(nr), SkipFalse: 1},
		filterstest.Ret(filters.ActionErrno, 1),
		filterstest.Ret(filters.ActionAllow, 0))
	allow := filterstest.Asm(t, "allow", filterstest.Ret(filters.ActionAllow, 0))
	for _, c := range []struct {
		name  string
		stack filters.Stack
		depth int
		short bool
	}{
		{"strict alone", filters.Stack{strict}, 1, false},
		{"strict stacked on itself", filters.Stack{strict, strict, strict, strict}, 1, true},
		{"strict above allow", filters.Stack{allow, allow, strict}, 3, false},
		{"strict in the middle", filters.Stack{allow, strict, allow, allow}, 2, true},
		{"all allow", filters.Stack{allow, allow}, 2, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if d, short := InstallableDepth(c.stack, x); d != c.depth || short != c.short {
				t.Errorf("got %d, %v; want %d, %v", d, short, c.depth, c.short)
			}
		})
	}
}
