package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Budget is the result of `seccompbench budget`: how many processes that
// each load a filter stack fit under this node's bpf_jit_limit. All sizes
// are bytes. The JSON keys are documented in docs/budget.md.
type Budget struct {
	SchemaVersion int `json:"schema_version"`
	// Kind is KindBudget.
	Kind   Kind   `json:"kind"`
	Tool   Tool   `json:"tool"`
	Kernel string `json:"kernel"`
	// SystemdUnit is --systemd-unit's unit file, whose modeled stack of
	// SystemdFilters filters comes first; Policies are the other sources,
	// in stack order. (schema_version 1 listed the unit among the
	// policies, worded "UNIT (systemd stack of N filters)".)
	SystemdUnit    string   `json:"systemd_unit,omitempty"`
	SystemdFilters int      `json:"systemd_filters,omitempty"`
	Policies       []string `json:"policies"`
	// StackFilters is the number of filters in one process's stack.
	StackFilters int `json:"stack_filters"`
	// StackBytes is one stack's charge; PerFilterBytes the charge of each
	// filter, oldest first; StackBasis "model" or "measured".
	StackBytes     int64   `json:"stack_bytes"`
	PerFilterBytes []int64 `json:"per_filter_bytes"`
	StackBasis     string  `json:"stack_basis"`
	// ModelStackBytes is the model's charge even when measured.
	ModelStackBytes int64 `json:"model_stack_bytes"`
	// Allocator is the modelled JIT allocator ("pack" or "page").
	Allocator string `json:"allocator"`
	// Limit is bpf_jit_limit; Harden is bpf_jit_harden.
	Limit  int64  `json:"bpf_jit_limit"`
	Harden string `json:"bpf_jit_harden"`
	// Current is the charge taken already; CurrentBasis is the code of
	// how it was obtained: BasisMeasured, BasisVmalloc or BasisUnknown
	// (schema_version 1 wrote English sentences here).
	Current      int64  `json:"current_charge"`
	CurrentBasis string `json:"current_basis" jsonschema:"enum=measured,enum=vmallocinfo_upper_bound,enum=unknown"`
	// PackAreas is the number of bpf_prog_pack areas /proc/vmallocinfo
	// lists, with BasisVmalloc.
	PackAreas int `json:"bpf_prog_pack_areas,omitempty"`
	// Fit is floor((Limit − Current) / StackBytes): processes that load the
	// stack without CAP_BPF or CAP_SYS_ADMIN before loading fails;
	// FirstFailure = Fit + 1 is the first that gets errno 524 (ENOTSUPP).
	Fit          int64 `json:"fit"`
	FirstFailure int64 `json:"first_failure"`
	// PerNode is --per-node (separate loads planned on the node, 0 if not
	// given) and Processes --processes (processes sharing each load:
	// forked children inherit the filters and add no charge).
	PerNode   int64 `json:"per_node,omitempty"`
	Processes int64 `json:"processes,omitempty"`
	// TotalProcesses is PerNode × Processes.
	TotalProcesses int64 `json:"total_processes,omitempty"`
	PlannedCharge  int64 `json:"planned_charge,omitempty"`
	PlannedFits    bool  `json:"planned_fits,omitempty"`
	HeadroomAfter  int64 `json:"headroom_after,omitempty"`
	// Validation is the errno-524 experiment (--validate), if run.
	Validation *BudgetValidation `json:"validation,omitempty"`
	Notes      []string          `json:"notes"`
}

// The codes of Budget.CurrentBasis.
const (
	// BasisMeasured: probe loads under a lowered bpf_jit_limit (root).
	BasisMeasured = "measured"
	// BasisVmalloc: the sum of the bpf_prog_pack areas of
	// /proc/vmallocinfo, an upper bound of the charge: the fit is a lower
	// bound.
	BasisVmalloc = "vmallocinfo_upper_bound"
	// BasisUnknown: nothing readable (/proc/vmallocinfo needs root), the
	// charge taken as 0: the fit is an upper bound.
	BasisUnknown = "unknown"
)

// currentBasisWords words b.CurrentBasis for people.
func currentBasisWords(b *Budget) string {
	switch b.CurrentBasis {
	case BasisVmalloc:
		return fmt.Sprintf("vmallocinfo upper bound: bpf_prog_pack areas: %d; the fit is a lower bound", b.PackAreas)
	case BasisUnknown:
		return "unknown, assumed 0 (/proc/vmallocinfo unreadable: run as root, or --measure); the fit is an upper bound"
	}
	return b.CurrentBasis
}

// BudgetValidation reports the errno-524 experiment: bpf_jit_limit lowered
// to TestLimit, stacks loaded by children without capabilities until the
// first errno 524.
type BudgetValidation struct {
	TestLimit         int64  `json:"test_limit"`
	Current           int64  `json:"current_charge"`
	CurrentAfter      int64  `json:"current_charge_after"`
	ProbeBytes        int64  `json:"probe_bytes"`
	MeasuredStack     int64  `json:"measured_stack_bytes"`
	Predicted         int64  `json:"predicted"`
	PredictedMeasured int64  `json:"predicted_measured_stack"`
	Loaded            int    `json:"loaded"`
	FailedAtFilter    int    `json:"failed_at_filter"`
	CapEff            string `json:"cap_eff"`
	Probes            int    `json:"probes"`
	LoweredMs         int64  `json:"lowered_ms"`
}

// WriteBudgetJSON writes b as indented JSON, kind "budget".
func WriteBudgetJSON(w io.Writer, b *Budget) error {
	b.SchemaVersion, b.Kind = BudgetVersion, KindBudget
	if b.Notes == nil {
		b.Notes = []string{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(b)
}

// WriteBudgetText writes b for people: the stack's charge and its basis,
// the limit and the current charge with theirs, the fit with the formula
// filled in, the plan and the validation when present.
func WriteBudgetText(w io.Writer, b *Budget) error {
	ew := &errWriter{w: w}
	ew.printf("stack: %s, %s, %s bytes of JIT memory (%s; %s allocator)\n",
		strings.Join(budgetSources(b), " "), Plural(b.StackFilters, "filter"), GroupDigits(b.StackBytes), b.StackBasis, b.Allocator)
	if b.StackBasis == "measured" && b.ModelStackBytes > 0 {
		ew.printf("  model: %s bytes\n", GroupDigits(b.ModelStackBytes))
	}
	ew.printf("bpf_jit_limit: %s bytes; current charge: %s bytes (%s)\n", GroupDigits(b.Limit), GroupDigits(b.Current), currentBasisWords(b))
	ew.printf("fit: %s processes can each load this stack without CAP_BPF or CAP_SYS_ADMIN; process %s fails with errno 524 (ENOTSUPP)\n",
		GroupDigits(b.Fit), GroupDigits(b.FirstFailure))
	ew.printf("basis: floor((%d - %d) / %d) = %d\n", b.Limit, b.Current, b.StackBytes, b.Fit)
	if b.PerNode > 0 {
		verdict := "fits"
		if !b.PlannedFits {
			verdict = "does NOT fit"
		}
		procs := ""
		if b.Processes > 1 {
			procs = fmt.Sprintf(" (%s processes in all: forked processes share their parent's filters and add no charge)", GroupDigits(b.TotalProcesses))
		}
		ew.printf("plan: %s loads%s charge %s bytes: %s, %s bytes left\n", GroupDigits(b.PerNode), procs, GroupDigits(b.PlannedCharge), verdict, GroupDigits(b.HeadroomAfter))
	}
	if v := b.Validation; v != nil {
		ew.printf("validation: bpf_jit_limit lowered to %d (charge %d before, %d after), stacks loaded without capabilities (CapEff %s) until errno 524:\n",
			v.TestLimit, v.Current, v.CurrentAfter, v.CapEff)
		ew.printf("  predicted %d (model stack %d bytes), %d (measured stack %d bytes); measured %d, the next failed at filter %d\n",
			v.Predicted, b.ModelStackBytes, v.PredictedMeasured, v.MeasuredStack, v.Loaded, v.FailedAtFilter)
		ew.printf("  %d probe children; the limit was lowered for %d ms in all and restored\n", v.Probes, v.LoweredMs)
	}
	if b.Harden != "" && b.Harden != "0" {
		ew.printf("note: bpf_jit_harden is %s: constant blinding makes images bigger than the model says\n", b.Harden)
	}
	for _, n := range b.Notes {
		ew.printf("note: %s\n", n)
	}
	return ew.err
}

// budgetSources names b's sources for people, the systemd unit first.
func budgetSources(b *Budget) []string {
	if b.SystemdUnit == "" {
		return b.Policies
	}
	unit := fmt.Sprintf("%s (systemd stack of %s)", b.SystemdUnit, Plural(b.SystemdFilters, "filter"))
	return append([]string{unit}, b.Policies...)
}

// GroupDigits writes n with thousands separators: 528482304 -> 528,482,304.
func GroupDigits(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
