package document

// SimulateSyscall is one syscall in `simulate --format json` (keys fixed by
// docs/json.md: name, nr, arch, action, errno, cached, instructions,
// per_filter).
type SimulateSyscall struct {
	Name         string   `json:"name"`
	Nr           int      `json:"nr"`
	Arch         string   `json:"arch"`
	Args         []uint64 `json:"args,omitempty"`
	Action       string   `json:"action"`
	Ret          string   `json:"ret"`
	Errno        *int     `json:"errno"`
	Decider      int      `json:"decider"`
	Cached       bool     `json:"cached"`
	CacheCause   string   `json:"cache_cause"`
	CacheReason  string   `json:"cache_reason,omitempty"`
	Instructions int      `json:"instructions"`
	Effective    int      `json:"effective_instructions"`
	PerFilter    []int    `json:"per_filter"`
	Paths        [][]int  `json:"paths,omitempty"`
	// ENOSYSStub reports, for a single simulated syscall, that its
	// ERRNO(38) comes from runc's ENOSYS stub in front of the deciding
	// filter, not from a rule (scmp.ENOSYSStubPath).
	ENOSYSStub bool `json:"enosys_stub,omitempty"`
}

// StackEntry is one filter of a simulated or estimated stack, index 0 =
// installed first.
type StackEntry struct {
	Index        int    `json:"index"`
	Name         string `json:"name"`
	Instructions int    `json:"instructions"`
	SHA256       string `json:"sha256"`
	// ABIs are the ABIs the filter is written for (filters.Program.ABIs);
	// absent when it does not check the arch (and in documents from
	// before this field).
	ABIs []string `json:"abis,omitempty"`
}

// SimulateDoc is the document of `simulate --format json`.
type SimulateDoc struct {
	// Alternative names the alternative filter this stack holds (a
	// Firecracker thread category), empty when the sources have none.
	Alternative string            `json:"alternative,omitempty"`
	Stack       []StackEntry      `json:"stack"`
	Syscalls    []SimulateSyscall `json:"syscalls"`
	// OCI says what resolved OCI-based sources; nil when there are none.
	OCI *OCIResolution `json:"oci,omitempty"`
}

// SimulateOutput is the `simulate --format json` document (kind
// "simulate"). With one stack its keys are SimulateDoc's; when the
// sources hold alternative filters (a Firecracker file without
// --thread), Alternatives has one SimulateDoc per alternative and the
// top-level stack and syscalls are absent.
type SimulateOutput struct {
	SchemaVersion int               `json:"schema_version"`
	Kind          Kind              `json:"kind"`
	Alternative   string            `json:"alternative,omitempty"`
	Stack         []StackEntry      `json:"stack,omitempty"`
	Syscalls      []SimulateSyscall `json:"syscalls,omitempty"`
	OCI           *OCIResolution    `json:"oci,omitempty"`
	Alternatives  []SimulateDoc     `json:"alternatives,omitempty"`
}
