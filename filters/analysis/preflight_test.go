package analysis

import (
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
