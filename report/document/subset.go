package document

// SubsetDoc is the `subset --format json` document (kind "subset").
type SubsetDoc struct {
	SchemaVersion int  `json:"schema_version"`
	Kind          Kind `json:"kind"`
	// Profile and Baseline name the two stacks as given.
	Profile  EquivSide `json:"profile"`
	Baseline EquivSide `json:"baseline"`
	// Subset is the verdict: the profile is at least as restrictive as
	// the baseline on every input. The exit code is 3 when it is false.
	Subset bool `json:"subset"`
	// ClassOnly is true unless --strict-errno: outcomes of one action
	// with different data (errno, trap data, tracer message) were not
	// counted, only listed in DataNotes.
	ClassOnly bool `json:"class_only"`
	// InputClasses is the number of input classes the proof explored.
	InputClasses int `json:"input_classes"`
	// Looser and DataDiffers count the findings per relation: the named
	// syscalls and the Unnamed entries (one per ABI).
	Looser      int `json:"looser"`
	DataDiffers int `json:"data_differs"`
	// Findings are every named syscall where the profile violates
	// ([] when none), Unnamed the violating inputs outside the syscall
	// tables, one per ABI.
	Findings []SubsetFinding `json:"findings"`
	Unnamed  []SubsetFinding `json:"unnamed"`
	// DataNotes are, when ClassOnly, the syscalls (and unnamed inputs)
	// where the profile returns the same action with other data ([] when
	// none): not counted against the subset.
	DataNotes []SubsetFinding `json:"data_notes"`
	// Cost is what enforcing both costs, stacked and intersected.
	Cost *Cost `json:"cost"`
}

// SubsetFinding is one syscall where the profile is looser than the
// baseline or returns other data, with a concrete witness.
type SubsetFinding struct {
	EquivCounterexample
	// Relation is "looser" or "data differs".
	Relation string `json:"relation"`
	// Classes is the number of input classes of the syscall on which the
	// profile violates.
	Classes int `json:"classes"`
	// ProfileENOSYSStub and BaselineENOSYSStub report that the side's
	// ERRNO(38) comes from runc's ENOSYS stub in front of its filter (the
	// number is above every syscall the profile names), not from a rule
	// (scmp.FromENOSYSStub); set by MarkENOSYSStubs.
	ProfileENOSYSStub  bool `json:"profile_enosys_stub,omitempty"`
	BaselineENOSYSStub bool `json:"baseline_enosys_stub,omitempty"`
}

// Cost compares enforcing two stacks by stacking them with enforcing
// their intersection as one merged filter. Paths are instructions
// executed per syscall with all arguments 0, summed over a stack's
// filters, over every named syscall of ABIs, the action cache ignored.
type Cost struct {
	// ABIs are the ABIs whose named syscalls the paths and cache counts
	// cover: those of --arch's kernel (x86_64, i386, x32 on x86_64).
	ABIs    []string  `json:"abis"`
	Stacked StackCost `json:"stacked"`
	// Intersected is nil (null) when the stack could not be merged;
	// IntersectError says why.
	Intersected    *StackCost `json:"intersected"`
	IntersectError string     `json:"intersect_error,omitempty"`
	// Profile is the syscall profile (--profile) the weighted paths and
	// PerSyscall come from, "" without one.
	Profile string `json:"profile,omitempty"`
	// PerSyscall has one row per syscall of the profile ([] without one).
	PerSyscall []SyscallCostRow `json:"per_syscall"`
}

// StackCost is the static cost of one way of enforcing a result.
type StackCost struct {
	// Filters is the number of filters, Instructions their summed length
	// in classic BPF instructions.
	Filters      int `json:"filters"`
	Instructions int `json:"instructions"`
	// MeanPath is the mean number of instructions executed per syscall.
	MeanPath float64 `json:"mean_path"`
	// WeightedPath is MeanPath weighted by the profile's call counts, in
	// instructions; nil without --profile.
	WeightedPath *float64 `json:"weighted_path"`
	// Syscalls is the number of named syscalls of Cost.ABIs;
	// Cached how many of them the action cache allows without running a
	// filter (analysis.PredictCache; Linux 5.11 and later).
	Syscalls int `json:"syscalls"`
	Cached   int `json:"cached"`
}

// SyscallCostRow is one profiled syscall's cost, stacked and intersected.
type SyscallCostRow struct {
	Arch  string `json:"arch"`
	Name  string `json:"name"`
	Calls int64  `json:"calls"`
	// Stacked and Intersected are the instructions the kernel executes
	// per call (0 when the action cache decides); Intersected is nil when
	// the stack could not be merged.
	Stacked     int  `json:"stacked"`
	Intersected *int `json:"intersected"`
	// StackedCached and IntersectedCached report the action cache.
	StackedCached     bool `json:"stacked_cached"`
	IntersectedCached bool `json:"intersected_cached"`
}

// OCIIntersection is what intersect --oci wrote and proved.
type OCIIntersection struct {
	// File is the profile written.
	File string `json:"file"`
	// Equivalent reports that the written profile, compiled back, gives
	// every input the stack's outcome (equiv); AtLeastAsRestrictive that
	// it is never looser than the stack (subset), true when Equivalent.
	Equivalent           bool `json:"equivalent"`
	AtLeastAsRestrictive bool `json:"at_least_as_restrictive"`
	// Inexpressible are the syscalls OCI rules could not state exactly
	// ([] when none), each written with its strictest outcome.
	Inexpressible []OCIInexpressible `json:"inexpressible"`
	// Stricter are the syscalls ("ABI name") on which the written profile
	// is more restrictive than the stack ([] when Equivalent).
	Stricter []string `json:"stricter"`
}

// OCIInexpressible is one syscall intersect could not write exactly.
type OCIInexpressible struct {
	Syscall string `json:"syscall"`
	Reason  string `json:"reason"`
	Written string `json:"written"`
}
