package runjob

import (
	"errors"
	"strings"
	"testing"

	"golang.org/x/net/bpf"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/runner"
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/runner/workload"
)

// prog assembles ld [nr]; jeq nr -> ret; ret def.
func prog(t *testing.T, name string, nr, ret, def uint32) *filters.Program {
	t.Helper()
	raw, err := bpf.Assemble([]bpf.Instruction{
		bpf.LoadAbsolute{Off: filters.OffsetNr, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: nr, SkipTrue: 1},
		bpf.RetConstant{Val: ret},
		bpf.RetConstant{Val: def},
	})
	if err != nil {
		t.Fatal(err)
	}
	return &filters.Program{Name: name, Insns: raw}
}

// The preflight refuses a notifying policy unless the notify workload
// listens, and under the notify workload refuses a policy whose lower
// action would keep the workload syscall from being notified.
func TestPredictWorkloadNotify(t *testing.T) {
	const getppid = 110
	allow, notif, eperm := uint32(filters.ActionAllow), uint32(filters.ActionUserNotif), uint32(filters.ActionErrno)|1
	ns, err := workload.Notify("")
	if err != nil {
		t.Fatal(err)
	}
	notify := runner.Workload{Spec: ns}
	gs, _ := workload.Lookup("getpid")
	getpid := runner.Workload{Spec: gs}
	tests := []struct {
		name    string
		p       *filters.Program
		w       runner.Workload
		wantErr error
		reason  string
	}{
		{"notifying policy, getpid workload", prog(t, "notif", getppid, notif, allow), getpid, errNoListener, ""},
		{"notifying policy, notify workload", prog(t, "notif", getppid, notif, allow), notify, nil, "notify workload's filter"},
		{"allow-all, notify workload", prog(t, "allow", 0, allow, allow), notify, nil, "notify workload's filter"},
		{"errno for getppid, notify workload", prog(t, "deny", getppid, eperm, allow), notify, errPreflight, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cache, _, err := predictWorkload([]*filters.Program{tt.p}, []result.Variant{result.VariantOn}, 1, tt.w)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			cs := cache[0].Syscalls[0]
			if cs.Cached || !strings.Contains(cs.Reason, tt.reason) {
				t.Errorf("cache entry %+v: want not cached, reason %q", cs, tt.reason)
			}
		})
	}
}
