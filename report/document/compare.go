package document

import (
	"errors"

	"time"
)

// ComparisonSchemaVersion is the version of the comparison JSON document
// (kind "compare").
const ComparisonSchemaVersion = ContractVersion

// ErrTooFewResults is returned by [Compare] when it gets fewer than two
// result documents.
var ErrTooFewResults = errors.New("need at least two results to compare")

// ErrWorkloadMismatch is returned (wrapped) by [Compare] when two results
// measured different workloads: their ns/op count different ops.
var ErrWorkloadMismatch = errors.New("results measured different workloads")

// NamedDocument is a result document with the name it is shown under
// (usually its file name).
type NamedDocument struct {
	Name string
	Doc  *Document
}

// CompareOptions tune [Compare].
type CompareOptions struct {
	// Confidence is the level of every interval, a fraction in (0, 1); a
	// change is significant when p < 1 - Confidence.
	Confidence float64
	// Force compares results of different workloads instead of returning
	// ErrWorkloadMismatch (a warning says so).
	Force bool
}

// Comparison is the result of `seccompbench compare` (JSON: schema_version
// 1). Sources[0] is the base every other source is compared with. Times in
// ns/op; percentages are percent of the base.
type Comparison struct {
	SchemaVersion int `json:"schema_version"`
	// Kind is KindCompare ("comparison" before docs/json.md fixed kinds).
	Kind       Kind    `json:"kind"`
	Test       string  `json:"test"`
	FitMethod  string  `json:"fit_method"`
	Confidence float64 `json:"confidence"`
	// Alpha is 1 - Confidence: changes with p < Alpha are significant.
	Alpha    float64       `json:"alpha"`
	Sources  []Source      `json:"sources"`
	Cells    []CellChange  `json:"cells"`
	Fits     []FitChange   `json:"fits"`
	Missing  []MissingCell `json:"missing,omitempty"`
	Warnings []string      `json:"warnings"`
	// Budget is the --budget verdict on the second source against the
	// base (CompareBudget), the headline's first line; absent otherwise.
	Budget *BudgetVerdict `json:"budget,omitempty"`
}

// Source describes one compared result.
type Source struct {
	Name        string    `json:"name"`
	Created     time.Time `json:"created"`
	ToolVersion string    `json:"tool_version"`
	Kernel      string    `json:"kernel"`
	CPUModel    string    `json:"cpu_model"`
	Workload    string    `json:"workload"`
	Policies    []string  `json:"policies"`
	Partial     bool      `json:"partial,omitempty"`
	// ParentSeccompFilters is the number of seccomp filters the run
	// inherited (Environment.ParentSeccompFilters; -1 unknown).
	ParentSeccompFilters int `json:"parent_seccomp_filters"`
}

// Change is one estimated change from the base to another source, with its
// interval and p-value. Significant is p < alpha; it says the change is
// unlikely to be noise, not that it is large.
type Change struct {
	BaseNs      float64 `json:"base_ns"`
	Ns          float64 `json:"ns"`
	DeltaNs     float64 `json:"delta_ns"`
	CILowNs     float64 `json:"ci_low_ns"`
	CIHighNs    float64 `json:"ci_high_ns"`
	DeltaPct    float64 `json:"delta_pct"`
	PctLow      float64 `json:"delta_pct_ci_low"`
	PctHigh     float64 `json:"delta_pct_ci_high"`
	P           float64 `json:"p"`
	Significant bool    `json:"significant"`
	// Known is false when there was too little data for an interval or a
	// p-value (the numbers are then 0 and a warning says why).
	Known    bool     `json:"known"`
	Warnings []string `json:"warnings,omitempty"`
}

// CellChange is the change of one (variant, filter count) cell's mean ns/op
// (Welch t-test on the per-child values). Source indexes Sources.
type CellChange struct {
	Source  int    `json:"source"`
	Variant string `json:"variant"`
	Filters int    `json:"filters"`
	NBase   int    `json:"n_base"`
	N       int    `json:"n"`
	Change
}

// FitChange is the change of one fitted term of a variant's model: "per_filter"
// (ns/op per filter) or "entry" (ns/op once for any filter).
type FitChange struct {
	Source  int    `json:"source"`
	Variant string `json:"variant"`
	Term    string `json:"term"`
	Change
}

// MissingCell is a cell measured in only one of a compared pair.
type MissingCell struct {
	Source  int    `json:"source"`
	Variant string `json:"variant"`
	Filters int    `json:"filters"`
	// In names the source that has it.
	In string `json:"in"`
}

// Names of the methods a comparison uses, as written into it.
const (
	// CellTest is the per-cell test: Welch's unequal-variance t-test on the
	// per-child ns/op values (results[].samples_ns), two-sided.
	CellTest = "welch-t"
	// FitMethod is how per-filter and entry changes are estimated: the
	// difference of two independent least-squares estimates, their
	// intervals combined by a normal approximation (stats.DiffIndependent).
	FitMethod = "independent-normal"
)
