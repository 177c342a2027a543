package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/report/document"
)

func TestWriteBudgetText(t *testing.T) {
	b := &document.Budget{Policies: []string{"docker-default"}, StackFilters: 1, StackBytes: 16320, StackBasis: "model", Allocator: "pack",
		Limit: 528482304, Current: 2101248, CurrentBasis: document.BasisVmalloc, PackAreas: 1, Harden: "1", Fit: 32254, FirstFailure: 32255,
		PerNode: 100, Processes: 5, TotalProcesses: 500, PlannedCharge: 1632000, PlannedFits: true, HeadroomAfter: 524749056}
	var buf bytes.Buffer
	if err := WriteBudgetText(&buf, b); err != nil {
		t.Fatal(err)
	}
	want := `stack: docker-default, 1 filter, 16,320 bytes of JIT memory (model; pack allocator)
bpf_jit_limit: 528,482,304 bytes; current charge: 2,101,248 bytes (vmallocinfo upper bound: bpf_prog_pack areas: 1; the fit is a lower bound)
fit: 32,254 processes can each load this stack without CAP_BPF or CAP_SYS_ADMIN; process 32,255 fails with errno 524 (ENOTSUPP)
basis: floor((528482304 - 2101248) / 16320) = 32254
plan: 100 loads (500 processes in all: forked processes share their parent's filters and add no charge) charge 1,632,000 bytes: fits, 524,749,056 bytes left
note: bpf_jit_harden is 1: constant blinding makes images bigger than the model says
`
	if got := buf.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestWriteBudgetJSONKeys(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteBudgetJSON(&buf, &document.Budget{Validation: &document.BudgetValidation{Loaded: 7}}); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"stack_bytes", "stack_basis", "bpf_jit_limit", "current_charge", "current_basis", "fit", "first_failure", "validation", "notes"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON lacks %q: %s", k, strings.TrimSpace(buf.String()))
		}
	}
}
