package document

// BuildSummary describes a program built by `merge` or `optimize` next to
// its input: the standard-error summary and, with the program's
// disassembly added, the `--format json` document. Paths are instructions
// executed with all arguments 0, summed over the stack, over every named
// syscall of x86_64, i386 and x32, the action cache ignored.
type BuildSummary struct {
	// SchemaVersion and Kind (KindMerge or KindOptimize, as Command) are
	// set by WriteBuildJSON.
	SchemaVersion int  `json:"schema_version"`
	Kind          Kind `json:"kind"`
	// Command is "merge", "optimize" or "intersect".
	Command string `json:"command"`
	// Filters is the number of filters in the input stack.
	Filters int `json:"filters"`
	// InstructionsBefore is the input's length summed over its filters,
	// Instructions the built program's, both in classic BPF instructions.
	InstructionsBefore int `json:"instructions_before"`
	Instructions       int `json:"instructions"`
	// Equivalent is the exact checker's verdict (always true for a
	// program that was written); InputClasses is the number of input
	// classes the proof explored.
	Equivalent   bool `json:"equivalent"`
	InputClasses int  `json:"input_classes"`
	// MeanPathBefore and MeanPathAfter are mean instructions executed per
	// syscall, input and result.
	MeanPathBefore float64 `json:"mean_path_before"`
	MeanPathAfter  float64 `json:"mean_path_after"`
	// WeightedPathBefore and WeightedPathAfter are the means weighted by
	// the profile's call counts (optimize --profile), in instructions.
	WeightedPathBefore float64 `json:"weighted_path_before,omitempty"`
	WeightedPathAfter  float64 `json:"weighted_path_after,omitempty"`
	// CacheLost are syscalls the input had in the action cache and the
	// result does not; CacheGained the reverse ([] when none). Requires
	// at least Linux 5.11 to matter.
	CacheLost   []CacheChange `json:"cache_lost"`
	CacheGained []CacheChange `json:"cache_gained"`
	// Longer are syscalls whose path is longer than in the input
	// (optimize without a profile).
	Longer []CacheChange `json:"longer,omitempty"`
	// Program is the built filter's disassembly (--format json only).
	Program []CompileInsn `json:"program,omitempty"`
	// Passes are the cleanup passes that changed something.
	Passes []string `json:"passes,omitempty"`
	// Profile is the profile file the layout was weighted by.
	Profile string `json:"profile,omitempty"`
	// Cost compares the input stack with the built filter (intersect
	// only).
	Cost *Cost `json:"cost,omitempty"`
	// OCI is what intersect --oci wrote and proved.
	OCI *OCIIntersection `json:"oci,omitempty"`
}

// CacheChange is one syscall whose action-cache state or path length
// changed between a stack and its build (filters/optimize.CacheChange,
// field for field; its JSON keys are the Go field names).
type CacheChange struct {
	// Arch is the ABI name, Nr the table number, Name the syscall name.
	Arch string
	Nr   int
	Name string
	// Reason is the cache predictor's explanation for the side that is
	// not cached.
	Reason string
}

// EquivSide names one side of `equiv`: the argument as given and the
// number of filters it loaded as.
type EquivSide struct {
	Spec    string `json:"spec"`
	Filters int    `json:"filters"`
}

// EquivDoc is the `equiv --format json` document (kind "equiv").
type EquivDoc struct {
	SchemaVersion int       `json:"schema_version"`
	Kind          Kind      `json:"kind"`
	A             EquivSide `json:"a"`
	B             EquivSide `json:"b"`
	// Equivalent is the verdict; the exit code is 3 when it is false.
	Equivalent bool `json:"equivalent"`
	// InputClasses is the number of input classes the proof explored.
	InputClasses int `json:"input_classes"`
	// Counterexample is the first differing input found; nil (null) when
	// the two are equivalent.
	Counterexample *EquivCounterexample `json:"counterexample"`
	// OutsideSeccomp lists, when A and B are systemd units, the settings
	// outside seccomp in which they differ (report/unitdiff.go); absent
	// otherwise.
	OutsideSeccomp []SettingDiff `json:"outside_seccomp,omitempty"`
}

// EquivCounterexample is an input on which the two sides of equiv differ.
type EquivCounterexample struct {
	// Arch is the ABI ("x86_64", "i386", "x32"), "" for an arch value no
	// x86_64 kernel produces; AuditArch the raw seccomp_data.arch.
	Arch      string `json:"arch"`
	AuditArch uint32 `json:"audit_arch"`
	// Nr is the syscall's table number in Arch (x32 bit cleared), Name its
	// name ("" if the table has none).
	Nr   int    `json:"nr"`
	Name string `json:"name"`
	// Args are seccomp_data.args, InstructionPointer its
	// instruction_pointer.
	Args               [6]uint64 `json:"args"`
	InstructionPointer uint64    `json:"instruction_pointer"`
	// A and B are the two sides' outcomes, e.g. "ERRNO(1)", "ALLOW".
	A string `json:"a"`
	B string `json:"b"`
}
