package document

import (
	"errors"
)

// FleetSchemaVersion is the version of the JSON written by WriteFleetJSON
// (kind "report").
const FleetSchemaVersion = ContractVersion

// ErrNoResults is returned by BuildFleet when it gets no result.
var ErrNoResults = errors.New("no results")

// FleetEntry is one result document read for `seccompbench report`, with
// the keys newer runs add that this package's Document may not know yet
// (a document without them reads the same, with those fields empty).
type FleetEntry struct {
	// Name is how the result is shown: its file name, or its path when
	// two files share one.
	Name string
	Doc  *Document
	// Loader is config.loader: "unprivileged", "privileged" or "both" (""
	// in results from before --loader).
	Loader string
	// FitLoaders are fits[].loader, aligned with Doc.Fits ("" each when
	// absent).
	FitLoaders []string
	// CmdlineMitigations is environment.cmdline_mitigations: the kernel
	// command line's mitigation parameters (nil when absent).
	CmdlineMitigations []string
}

// Fleet is many run results in one view (`seccompbench report`), grouped
// by policy and workload: one row per result and fitted variant (and
// loader). Times are ns per op.
type Fleet struct {
	SchemaVersion int `json:"schema_version"`
	// Kind is KindReport ("seccompbench-report" before docs/json.md fixed
	// kinds).
	Kind     Kind         `json:"kind"`
	Groups   []FleetGroup `json:"groups"`
	Warnings []string     `json:"warnings"`
}

// FleetGroup is the results that measured the same policies (by SHA-256,
// in stack order) with the same workload.
type FleetGroup struct {
	// Policy names the policies, by path as the first result gave them,
	// with a short hash.
	Policy   string     `json:"policy"`
	Workload string     `json:"workload"`
	Op       string     `json:"op"`
	Rows     []FleetRow `json:"rows"`
}

// FleetRow is one fitted model of one result.
type FleetRow struct {
	Result   string `json:"result"`
	Host     string `json:"host"`
	Kernel   string `json:"kernel"`
	CPUModel string `json:"cpu_model"`
	// Loader is who loaded the filters: the fit's loader, else the run's
	// --loader, else "" (not recorded).
	Loader string `json:"loader"`
	// Mitigations summarizes spec_store_bypass and spectre_v2 from
	// /sys/devices/system/cpu/vulnerabilities, and the kernel command
	// line's mitigation parameters when recorded.
	Mitigations string `json:"mitigations"`
	Variant     string `json:"variant"`
	// Cache is "cached" when the action cache serves every workload
	// syscall under the variant's deepest stack and the fit's per-filter
	// cost confirms it, "cached, unconfirmed" when the fit does not, "not
	// cached" when none, "partly", "no cache (kernel < 5.11)", or "" when
	// the result has no prediction.
	Cache             string  `json:"cache"`
	Confidence        float64 `json:"confidence"`
	BaselineNs        float64 `json:"baseline_ns"`
	PerFilterNs       float64 `json:"per_filter_ns"`
	PerFilterCILowNs  float64 `json:"per_filter_ci_low_ns"`
	PerFilterCIHighNs float64 `json:"per_filter_ci_high_ns"`
	EntryNs           float64 `json:"entry_ns"`
	EntryCILowNs      float64 `json:"entry_ci_low_ns"`
	EntryCIHighNs     float64 `json:"entry_ci_high_ns"`
	Children          int     `json:"children"`
	Partial           bool    `json:"partial,omitempty"`
	// ForeignLoad is the share of the measuring CPU's time other
	// processes took during the run (run.foreign_load.share); -1 when
	// the result does not say.
	ForeignLoad float64 `json:"foreign_load"`
	// ParentSeccompFilters is the number of seccomp filters the run
	// inherited (Environment.ParentSeccompFilters; -1 unknown).
	ParentSeccompFilters int `json:"parent_seccomp_filters"`
}
