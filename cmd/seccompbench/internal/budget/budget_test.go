package budget

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/report/document"
)

const limitPath = "/proc/sys/net/core/bpf_jit_limit"

// needLimit skips without the bpf_jit_limit sysctl (Linux 4.20 with
// CONFIG_BPF_JIT), which Run reads before anything else.
func needLimit(t *testing.T) {
	t.Helper()
	if _, err := os.ReadFile(limitPath); err != nil {
		t.Skipf("no bpf_jit_limit to budget against (kernel before 4.20 or without CONFIG_BPF_JIT): %v", err)
	}
}

// TestRunStackAndPlan: a systemd unit's stack goes first, the policies
// after it; the fit is the budget's arithmetic on the modelled charge,
// and a per-node plan charges each load once however many processes
// share it.
func TestRunStackAndPlan(t *testing.T) {
	needLimit(t)
	ios, _, out, _ := cmdutil.TestIOStreams()
	unit := filepath.Join("..", "..", "..", "..", "testdata", "policies", "hardened.service")
	j := &Job{Policies: []string{"default"}, SystemdUnit: unit, PerNode: 3, Processes: 4,
		Specs: []output.Spec{{Format: "json"}}}
	if err := Run(context.Background(), ios, j); err != nil {
		t.Fatal(err)
	}
	var b document.Budget
	if err := json.Unmarshal(out.Bytes(), &b); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if b.Kind != document.KindBudget || b.StackFilters < 2 || len(b.PerFilterBytes) != b.StackFilters || b.StackBasis != "model" {
		t.Fatalf("got %+v", b)
	}
	if b.SystemdUnit != unit || b.SystemdFilters != b.StackFilters-1 || len(b.Policies) != 1 || b.Policies[0] != "default" {
		t.Errorf("unit %q of %d filters, policies %q: want the unit's stack of %d filters, then default", b.SystemdUnit, b.SystemdFilters, b.Policies, b.StackFilters-1)
	}
	if b.CurrentBasis != document.BasisMeasured && b.CurrentBasis != document.BasisVmalloc && b.CurrentBasis != document.BasisUnknown {
		t.Errorf("current_basis %q is not a code", b.CurrentBasis)
	}
	var text bytes.Buffer
	if err := report.WriteBudgetText(&text, &b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "stack: "+unit+" (systemd stack of ") {
		t.Errorf("text lacks the unit's stack first:\n%s", text.String())
	}
	var sum int64
	for _, c := range b.PerFilterBytes {
		sum += c
	}
	if sum > b.StackBytes || b.StackBytes != b.ModelStackBytes {
		t.Errorf("per filter %v (sum %d), stack %d, model %d", b.PerFilterBytes, sum, b.StackBytes, b.ModelStackBytes)
	}
	if want := (b.Limit - b.Current) / b.StackBytes; b.Fit != want || b.FirstFailure != want+1 {
		t.Errorf("fit %d, first failure %d; want %d, %d", b.Fit, b.FirstFailure, want, want+1)
	}
	if b.PerNode != 3 || b.TotalProcesses != 12 || b.PlannedCharge != 3*b.StackBytes {
		t.Errorf("plan: %d loads, %d processes, charge %d; want 3, 12, %d", b.PerNode, b.TotalProcesses, b.PlannedCharge, 3*b.StackBytes)
	}
}

func TestRunErrors(t *testing.T) {
	needLimit(t)
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.service")
	if err := os.WriteFile(plain, []byte("[Service]\nExecStart=/bin/true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		job  Job
		want string
	}{
		{"unit without a filter", Job{SystemdUnit: plain}, "installs no seccomp filter"},
		{"missing unit", Job{SystemdUnit: filepath.Join(dir, "missing.service")}, "read systemd unit"},
		{"missing policy", Job{Policies: []string{filepath.Join(dir, "missing.json")}}, "missing.json"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, _, _ := cmdutil.TestIOStreams()
			err := Run(context.Background(), ios, &tt.job)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err %v, want one containing %q", err, tt.want)
			}
		})
	}
}
