package document

// InspectFilter is one filter in `inspect --format json` (keys fixed by
// docs/json.md: index, instructions, sha256; index 0 = oldest).
type InspectFilter struct {
	Index        int    `json:"index"`
	Instructions int    `json:"instructions"`
	SHA256       string `json:"sha256"`
	// Group is the index into groups of the filter's content.
	Group int `json:"group"`
	// JITBytes is the filter's JIT memory charged against bpf_jit_limit,
	// in bytes, as InspectProcess.JIT's source says (0: not known).
	JITBytes int64 `json:"jit_bytes,omitempty"`
}

// JITEstimate is the JIT memory of a filter stack (kernel/bpf/core.c:
// bpf_jit_charge_modmem), in bytes, with where it comes from.
type JITEstimate struct {
	// StackBytes is the whole stack's charge, PerFilterBytes its mean per
	// filter.
	StackBytes     int64   `json:"stack_bytes"`
	PerFilterBytes float64 `json:"per_filter_bytes"`
	// Source is "model" (internal/jitmem's allocator model from each
	// filter's eBPF length) or "measured".
	Source string `json:"source"`
	// Allocator is the modelled allocator, "pack" or "page".
	Allocator string `json:"allocator"`
	// Limit is bpf_jit_limit (0: unreadable).
	Limit int64 `json:"bpf_jit_limit"`
}

// InspectGroup is a set of identical filters of one process (same SHA-256),
// with their indexes and, with --disasm, the disassembly.
type InspectGroup struct {
	SHA256       string `json:"sha256"`
	Instructions int    `json:"instructions"`
	Count        int    `json:"count"`
	Indexes      []int  `json:"indexes"`
	Disasm       string `json:"disasm,omitempty"`
}

// InspectCache counts, for one ABI, the syscalls the action cache serves.
type InspectCache struct {
	Arch   string `json:"arch"`
	Cached int    `json:"cached"`
	Total  int    `json:"total"`
}

// InspectSyscall is one syscall's verdict and cost under the dumped stack
// (all arguments 0); Instructions counts those executed over the stack.
type InspectSyscall struct {
	Name         string `json:"name"`
	Nr           int    `json:"nr"`
	Arch         string `json:"arch"`
	Action       string `json:"action"`
	Cached       bool   `json:"cached"`
	Instructions int    `json:"instructions"`
}

// InspectAnalysis is the emulator's view of a dumped stack.
type InspectAnalysis struct {
	// PathLength is the stack's sum of (converted eBPF len + 4, but the
	// newest) instructions (filters.Stack.PathLength) against
	// MAX_INSNS_PER_PATH (32768).
	PathLength int              `json:"path_length"`
	Cache      []InspectCache   `json:"cache"`
	Syscalls   []InspectSyscall `json:"syscalls"`
	// MaxUncached is the uncached x86_64 syscall that executes the most
	// instructions (all arguments 0), if any.
	MaxUncached *InspectSyscall `json:"max_uncached,omitempty"`
}

// InspectProcess is one process in `inspect --format json` (keys fixed by
// docs/json.md: pid, seccomp_mode, filters). SeccompMode is -1 when the
// process could not be read at all.
type InspectProcess struct {
	Pid            int              `json:"pid"`
	Name           string           `json:"name"`
	Cmdline        []string         `json:"cmdline"`
	State          string           `json:"state"`
	SeccompMode    int              `json:"seccomp_mode"`
	NoNewPrivs     int              `json:"no_new_privs"`
	SeccompFilters int              `json:"seccomp_filters"`
	Filters        []InspectFilter  `json:"filters"`
	Groups         []InspectGroup   `json:"groups"`
	Analysis       *InspectAnalysis `json:"analysis,omitempty"`
	// JIT is the stack's JIT memory (model), nil without filters.
	JIT   *JITEstimate `json:"jit,omitempty"`
	Saved string       `json:"saved,omitempty"`
	Error string       `json:"error,omitempty"`
}

// InspectManifest is DIR/manifest.json of `inspect --save` and `compile
// --save` (kind "stack-manifest"; manifests from before kinds existed
// have neither key and are read all the same).
type InspectManifest struct {
	SchemaVersion  int      `json:"schema_version"`
	Kind           Kind     `json:"kind"`
	Pid            int      `json:"pid"`
	Name           string   `json:"name"`
	Cmdline        []string `json:"cmdline"`
	SeccompMode    int      `json:"seccomp_mode"`
	NoNewPrivs     int      `json:"no_new_privs"`
	SeccompFilters int      `json:"seccomp_filters"`
	Captured       string   `json:"captured"`
	Kernel         string   `json:"kernel"`
	// Modeled, for a stack this tool modeled rather than read from a
	// process (compile --save), is the code of what it modeled
	// (ModeledSystemd, ModeledStack or ModeledPolicy), from the input
	// ModeledFrom (a file or built-in name) of the format ModeledFormat,
	// with the compiler layout ModeledLayout; the process fields are then
	// zero. schema_version 1 wrote one English phrase under "modeled",
	// e.g. "systemd 252 stack of unit.service on x86_64 (native layout)".
	Modeled       string `json:"modeled,omitempty"`
	ModeledFrom   string `json:"modeled_from,omitempty"`
	ModeledFormat string `json:"modeled_format,omitempty"`
	ModeledLayout string `json:"modeled_layout,omitempty"`
	// Filters are in installation order: index 0 = oldest. Replaying
	// them in this order (run FILE...) rebuilds the stack.
	Filters []InspectSavedFilter `json:"filters"`
}

// ManifestVersion is the schema_version of a stack-manifest: 2 since
// "modeled" became a code (ModeledSystemd, ...) beside modeled_from,
// modeled_format and modeled_layout. Readers (a saved directory given as
// POLICY) read version 1 as well: they use only the filters.
const ManifestVersion = 2

// InspectSavedFilter is one raw filter file of `inspect --save`.
type InspectSavedFilter struct {
	Index        int    `json:"index"`
	File         string `json:"file"`
	Instructions int    `json:"instructions"`
	SHA256       string `json:"sha256"`
	// Name is the filter's name; Directive and Arch, for a modeled
	// systemd stack, the directive that installs it and its architecture
	// ("x86", "x32", "x86_64" or "all").
	Name      string `json:"name,omitempty"`
	Directive string `json:"directive,omitempty"`
	Arch      string `json:"arch,omitempty"`
}

// InspectDoc is the `inspect --format json` document (kind "inspect").
type InspectDoc struct {
	SchemaVersion int  `json:"schema_version"`
	Kind          Kind `json:"kind"`
	// Processes are the inspected processes in PID order ([] for none).
	Processes []*InspectProcess `json:"processes"`
	// Skipped counts, with --all, the processes without seccomp (or
	// unreadable) that are not listed.
	Skipped int `json:"skipped"`
}

// The codes of InspectManifest.Modeled.
const (
	// ModeledSystemd: the stack systemd installs for the unit
	// ModeledFrom on x86_64 (the version --systemd-version chose), one
	// filter per directive and ABI.
	ModeledSystemd = "systemd_unit"
	// ModeledStack: the stack of filters a policy file of ModeledFormat
	// compiles to (e.g. snapd's deny and allow filters).
	ModeledStack = "policy_stack"
	// ModeledPolicy: the one filter a policy compiles to.
	ModeledPolicy = "policy"
)
