package document

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
