package document

import ()

// CompileDoc is the `compile --format json` document (kind "compile").
type CompileDoc struct {
	SchemaVersion int    `json:"schema_version"`
	Kind          Kind   `json:"kind"`
	Name          string `json:"name"`
	Source        string `json:"source"`
	SHA256        string `json:"sha256"`
	Instructions  int    `json:"instructions"`
	// PathCost is what the filter adds to MAX_INSNS_PER_PATH when another
	// is attached on top: its converted eBPF length + 4
	// (filters.Program.EBPFLen, kernel/seccomp.c: seccomp_attach_filter).
	PathCost int `json:"path_cost"`
	// EBPFInstructions is the filter's length after the kernel converts it
	// to eBPF (net/core/filter.c: bpf_convert_filter).
	EBPFInstructions int            `json:"ebpf_instructions"`
	Counts           map[string]int `json:"counts"`
	Program          []CompileInsn  `json:"program"`
	// Compiler is "native" or "libseccomp" for OCI profiles, absent for
	// formats --compiler does not apply to.
	Compiler string `json:"compiler,omitempty"`
	// Layouts gives the instruction count of each layout available in
	// this build, keyed "native" and "libseccomp" (OCI profiles only).
	Layouts map[string]int `json:"layouts,omitempty"`
	// LibseccompVersion is the linked libseccomp, when there is one.
	LibseccompVersion string `json:"libseccomp_version,omitempty"`
	// JIT is the filter's JIT memory when loaded, predicted from its size
	// (model), if given.
	JIT *JITEstimate `json:"jit,omitempty"`
	// OCI says what resolved an OCI-based source; absent for others.
	OCI *OCIResolution `json:"oci,omitempty"`
	// RuntimeVariants are the SHA-256 of the other filters the modeled
	// runtime may install for this profile with the same verdicts (runc's
	// ENOSYS stub in another architecture order, oci.LibseccompVariants);
	// absent when there are none or the libseccomp layout is not shown.
	RuntimeVariants []string `json:"runtime_variants,omitempty"`
	// ABIs are the ABIs the filter is written for
	// (filters.Program.ABIs), null when it does not check the arch.
	ABIs []string `json:"abis"`
}

// CompileInsn is one instruction of a CompileDoc, with its disassembly.
type CompileInsn struct {
	Line    int    `json:"line"`
	Op      uint16 `json:"op"`
	Jt      uint8  `json:"jt"`
	Jf      uint8  `json:"jf"`
	K       uint32 `json:"k"`
	Text    string `json:"text"`
	Comment string `json:"comment,omitempty"`
	Targets []int  `json:"targets,omitempty"`
}

// Layouts compares the layouts of one OCI profile, in instructions, and
// says what resolved an OCI-based source.
type Layouts struct {
	// Native is 0 for OCI-based formats --compiler does not apply to
	// (Kubernetes, Firecracker, LXC, minijail): no layouts are shown.
	Native int
	// Libseccomp is 0 when libseccomp is not built in; Version is the
	// linked libseccomp's.
	Libseccomp int
	Version    string
	// OCI says what resolved the source's conditions; nil if nothing.
	OCI *OCIResolution
	// Variants are CompileDoc.RuntimeVariants.
	Variants []string
}

// SystemdStackDoc is `compile --systemd-stack --format json` (kind
// "compile-stack").
type SystemdStackDoc struct {
	SchemaVersion int          `json:"schema_version"`
	Kind          Kind         `json:"kind"`
	Unit          string       `json:"unit"`
	Compiler      string       `json:"compiler"`
	Filters       []StackEntry `json:"filters"`
	Directives    []Directive  `json:"directives"`
	// Layouts is the stack's total instructions per layout built in.
	Layouts map[string]int `json:"layouts"`
	Count   int            `json:"count"`
}

// Directive is one systemd unit directive that installed filters, with
// how many (filters/systemd.Directive, field for field; its JSON keys are
// the Go field names).
type Directive struct {
	// Name is the unit directive, e.g. "RestrictNamespaces".
	Name string
	// Count is the number of filters it installed (one per architecture it
	// applies to; 0 if it applied to none).
	Count int
}
