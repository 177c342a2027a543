package analysis

import (
	"strings"
	"testing"

	"golang.org/x/net/bpf"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/internal/filterstest"
)

// With a listener (run --workload notify), a notifying filter is reported
// as info, not as an error, and the hint says what the listener covers.
func TestLintUserNotifWithListener(t *testing.T) {
	s := filters.Stack{tRuntimeFriendly(t), filterstest.Asm(t, "notify-read",
		filterstest.LdNr(), bpf.JumpIf{Cond: bpf.JumpEqual, Val: 0, SkipFalse: 1}, filterstest.Ret(filters.ActionUserNotif, 0), filterstest.Ret(filters.ActionAllow, 0))}
	tests := []struct {
		name     string
		listener bool
		want     Severity
		hint     string
	}{
		{"no listener", false, SeverityError, "run refuses it: no listener"},
		{"notify workload", true, SeverityInfo, "--workload notify answers the workload syscall"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []Finding
			for _, f := range Lint(s, LintOptions{Listener: tt.listener}) {
				if f.Code == LintUserNotif {
					got = append(got, f)
				}
			}
			if len(got) != 1 || got[0].Severity != tt.want || !strings.HasPrefix(got[0].Hint, tt.hint) {
				t.Fatalf("got %+v, want one %v finding with hint %q", got, tt.want, tt.hint)
			}
			if HasErrors(got) != (tt.want == SeverityError) {
				t.Errorf("HasErrors = %v", HasErrors(got))
			}
		})
	}
}
