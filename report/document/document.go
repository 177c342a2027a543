package document

import (
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/stats"

	"time"
)

// SchemaVersion is the version of the JSON result document. Version 2
// writes an undefined number (an interval from one child, an entry cost
// without 0-filter children, a ratio with nothing to divide by) as null
// where version 1 wrote 0, and adds the paired children's baselines and
// the relative per-filter figures; docs/reading-results.md says what
// changed for readers. Version 3 keeps numbers, units and codes only:
// meaning[] holds clauses (a code and its figures, docs/json.md "Meaning
// codes") where version 2 held an English sentence. ReadJSON reads all
// three.
const SchemaVersion = 3

// Document is the JSON result of `seccompbench run` (kind "run",
// schema_version 3; keys fixed by docs/json.md, more may be added; schema
// docs/schema/run.schema.json). All times are nanoseconds per op unless a
// key says otherwise. Undefined numbers are NaN in memory and null in JSON.
type Document struct {
	SchemaVersion int `json:"schema_version"`
	// Kind is KindRun; absent in results written before kinds existed,
	// which readers still accept (docs/json.md).
	Kind        Kind               `json:"kind"`
	Partial     bool               `json:"partial"`
	Tool        Tool               `json:"tool"`
	Command     string             `json:"command,omitempty"`
	Created     time.Time          `json:"created"`
	Environment result.Environment `json:"environment"`
	Config      Config             `json:"config"`
	Results     []CellResult       `json:"results"`
	Fits        []Fit              `json:"fits"`
	// LoaderDiffs compares the loaders' per-filter costs (run --loader
	// both): one entry per variant.
	LoaderDiffs []LoaderDiff   `json:"loader_diffs,omitempty"`
	Cache       []CacheVariant `json:"cache"`
	Setup       *Setup         `json:"setup,omitempty"`
	Control     []Control      `json:"control,omitempty"`
	Run         *RunInfo       `json:"run,omitempty"`
	Drift       []Drift        `json:"drift,omitempty"`
	Linearity   []Linearity    `json:"linearity,omitempty"`
	Throughput  []Throughput   `json:"throughput,omitempty"`
	Meaning     []Meaning      `json:"meaning"`
	Warnings    []string       `json:"warnings"`
	// Children holds one entry per measuring child, in run order (Seq);
	// added after the first schema 1 documents, so it may be absent.
	Children []Child `json:"children,omitempty"`

	// CommandWorkload is the command workload's detail (run --workload
	// command); absent for the loops.
	CommandWorkload *CommandCost `json:"command_workload,omitempty"`
	// Budget is the --budget verdict, when one was asked for (the
	// headline's first line).
	Budget *BudgetVerdict `json:"budget,omitempty"`
}

// Tool names the measuring tool.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Config is what was measured and how.
type Config struct {
	Policies     []Policy `json:"policies"`
	FilterCounts []int    `json:"filter_counts"`
	Workload     string   `json:"workload"`
	// Op says what one op is (ns/op is per op).
	Op         string   `json:"op"`
	Cache      string   `json:"cache"`
	Variants   []string `json:"variants"`
	Trials     int      `json:"trials"`
	Iterations uint64   `json:"iterations"`
	// SamplesPerChild is the number of timed samples each child takes; its
	// value is their median.
	SamplesPerChild int `json:"samples_per_child"`
	// Paired reports that every child also timed the workload before
	// installing its stack (children[].baseline_ns_per_op), and the fits
	// adjust for it (docs/methodology-variation.md, "Paired children").
	Paired     bool    `json:"paired"`
	Seed       uint64  `json:"seed"`
	Confidence float64 `json:"confidence"`
	CPU        int     `json:"cpu"`
	SpecAllow  bool    `json:"spec_allow"`
	Robust     bool    `json:"robust"`
	// Pad is the number of unreachable instructions appended to every
	// filter (run --pad), 0 for none.
	Pad int `json:"pad,omitempty"`
	// Loader is "unprivileged", "privileged" or "both" (--loader): whether
	// the children drop CAP_SYS_ADMIN before seccomp(2).
	Loader string `json:"loader,omitempty"`
	// LoaderReason says why this loader was measured when a systemd unit
	// chose it (run --systemd-unit without --loader), or how systemd would
	// load the unit's filters when --loader overrode it.
	LoaderReason string `json:"loader_reason,omitempty"`
	// Placement is "random" (each child draws its pad from PadMin..PadMax,
	// from the seed) or "fixed" (every child pads with Pad; PadMin =
	// PadMax = Pad). Pads are in instructions.
	Placement string `json:"placement,omitempty"`
	PadMin    int    `json:"pad_min"`
	PadMax    int    `json:"pad_max"`
	// FilterNames names the filters of the deepest stack in install
	// order, oldest first, when the policy names them (a systemd unit's
	// "unit/Directive/ABI"): filter count N installs the first N. Absent
	// otherwise and in documents from before it.
	FilterNames []string `json:"filter_names,omitempty"`
	// Directives is, when the policy is a systemd unit, what each of its
	// directives installs and keeps out of the action cache
	// (UnitDirectives); absent otherwise and in documents from before it.
	Directives *UnitDirectives `json:"directives,omitempty"`
}

// Policy is one policy of the stack, in cycling order.
type Policy struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	// Instructions is the compiled filter's length, in instructions.
	Instructions int `json:"instructions"`
	// CompileUs is the time to load and compile the policy, in µs.
	CompileUs float64 `json:"compile_us"`
	// OCI says what resolved an OCI-based policy's conditions (caps,
	// kernel version, host arch); absent for other formats.
	OCI *OCIResolution `json:"oci,omitempty"`
	// ABIs are the ABIs the policy's filters are written for
	// (filters.StackABIs); absent when none checks the arch, and in
	// documents from before this field.
	ABIs []string `json:"abis,omitempty"`
}

// CellResult is one (variant, filter count) cell. Times in ns/op.
type CellResult struct {
	Variant string `json:"variant"`
	// Loader is who loaded the cell's filters ("" in documents from before
	// --loader); CapSysAdmin whether its children had CAP_SYS_ADMIN in
	// their effective set at seccomp(2) time, read back in each child.
	Loader           string    `json:"loader,omitempty"`
	CapSysAdmin      bool      `json:"cap_sys_admin"`
	Filters          int       `json:"filters"`
	N                int       `json:"n"`
	MeanNs           float64   `json:"mean_ns"`
	MedianNs         float64   `json:"median_ns"`
	StddevNs         float64   `json:"stddev_ns"`
	CILowNs          float64   `json:"ci_low_ns"`
	CIHighNs         float64   `json:"ci_high_ns"`
	OverheadNs       float64   `json:"overhead_ns"`
	OverheadCILowNs  float64   `json:"overhead_ci_low_ns"`
	OverheadCIHighNs float64   `json:"overhead_ci_high_ns"`
	OverheadPct      float64   `json:"overhead_pct"`
	OverheadPctLow   float64   `json:"overhead_pct_ci_low"`
	OverheadPctHigh  float64   `json:"overhead_pct_ci_high"`
	OverheadP        float64   `json:"overhead_p"`
	Outliers         int       `json:"outliers"`
	SamplesNs        []float64 `json:"samples_ns"`
	// Pads are the children's pads in instructions, aligned with
	// SamplesNs.
	Pads     []int    `json:"pads"`
	Warnings []string `json:"warnings,omitempty"`
}

// Child is one measuring child process: the unit of replication. Times in
// ns.
type Child struct {
	Variant string `json:"variant"`
	Filters int    `json:"filters"`
	// Loader, Pad (instructions appended to every filter), CapSysAdmin and
	// CapEff (the measuring thread's effective set in hexadecimal, as
	// /proc shows it) say how the child loaded its filters.
	Loader      string `json:"loader,omitempty"`
	Pad         int    `json:"pad"`
	CapSysAdmin bool   `json:"cap_sys_admin"`
	CapEff      string `json:"cap_eff,omitempty"`
	// Block is the randomized block (trial) index, Seq the child's position
	// in the whole run, both 0-based.
	Block int `json:"block"`
	Seq   int `json:"seq"`
	// NsPerOp is the child's value: the median of its timed samples, in ns
	// per op.
	NsPerOp float64 `json:"ns_per_op"`
	// BaselineNsPerOp is the child's own baseline: the median of the
	// same samples timed before it installed its stack, in ns per op;
	// AddedNsPerOp is NsPerOp minus it. Both null in an unpaired run.
	BaselineNsPerOp float64 `json:"baseline_ns_per_op"`
	AddedNsPerOp    float64 `json:"added_ns_per_op"`
	// InstallNsTotal is the summed duration of the child's seccomp(2) calls,
	// in ns (0 for no filters).
	InstallNsTotal int64 `json:"install_ns_total"`
	// CPU is the CPU the measuring thread was pinned to, -1 if none.
	CPU int `json:"cpu"`
	// FiltersSeen is Seccomp_filters of the measuring thread after
	// installing, -1 if the kernel does not report it (before Linux 5.9).
	FiltersSeen int `json:"filters_seen"`
	// Copies holds each parallel copy's CPU and ns/op (run --parallel N,
	// N > 1); NsPerOp is then their mean.
	Copies []CopyResult `json:"copies,omitempty"`
}

// CopyResult is one parallel copy of a child.
type CopyResult struct {
	CPU     int     `json:"cpu"`
	NsPerOp float64 `json:"ns_per_op"`
}

// Throughput is a cell's combined rate with --parallel N: ops per second
// summed over the copies that ran at once, averaged over the cell's
// children, and per copy, averaged over every copy that measured (1e9 / ns
// per op of each copy; failed copies count in neither).
type Throughput struct {
	Variant         string  `json:"variant"`
	Filters         int     `json:"filters"`
	Copies          int     `json:"copies"`
	OpsPerSecTotal  float64 `json:"ops_per_s_total"`
	OpsPerSecCopy   float64 `json:"ops_per_s_per_copy"`
	SlowestCopyNs   float64 `json:"slowest_copy_ns_per_op"`
	FastestCopyNs   float64 `json:"fastest_copy_ns_per_op"`
	ChildrenInCells int     `json:"children"`
}

// Fit is the per-variant model cost(N) = baseline + entry + N·per_filter
// for N ≥ 1. Times in ns/op.
type Fit struct {
	Variant           string  `json:"variant"`
	Loader            string  `json:"loader,omitempty"`
	PerFilterNs       float64 `json:"per_filter_ns"`
	PerFilterCILowNs  float64 `json:"per_filter_ci_low_ns"`
	PerFilterCIHighNs float64 `json:"per_filter_ci_high_ns"`
	EntryNs           float64 `json:"entry_ns"`
	EntryCILowNs      float64 `json:"entry_ci_low_ns"`
	EntryCIHighNs     float64 `json:"entry_ci_high_ns"`
	BaselineNs        float64 `json:"baseline_ns"`
	DriftNsPerChild   float64 `json:"drift_ns_per_child"`
	R2                float64 `json:"r2"`
	N                 int     `json:"n"`
	// PlacementSDNs is the between-placement standard deviation of the
	// per-filter cost, in ns/op per filter (stats.Fit.PlacementSD): how
	// far one program size's per-filter cost typically lies from the
	// average. The per-filter CI includes this variance. 0 with
	// Placements 1 (fixed placement: not estimable).
	PlacementSDNs float64 `json:"placement_sd_ns"`
	// Placements is the number of distinct pads among the fit's children
	// with filters.
	Placements int `json:"placements"`
	// BlockSDNs is the between-block standard deviation of the per-filter
	// cost in ns/op per filter (stats.Fit.BlockSD): how much it moved
	// between parts of the run; the CI includes this variance. Blocks is
	// the number of blocks. Null with one block.
	BlockSDNs float64 `json:"block_sd_ns"`
	Blocks    int     `json:"blocks"`
	// Segments is the number of contiguous time segments the run was
	// split into and fitted in separately (stats.Fit.Segments), and
	// SegmentSDNs the standard deviation of their per-filter estimates in
	// ns/op per filter. The per-filter, entry and relative CIs are at
	// least the between-segment ones (t with Segments−1 degrees of
	// freedom), which include the host's speed wandering over seconds.
	// 0 and null for a run of fewer than 15 blocks.
	Segments    int     `json:"segments"`
	SegmentSDNs float64 `json:"segment_sd_ns"`
	// Paired reports that the fit adjusted for each child's own baseline.
	Paired bool `json:"paired"`
	// PerFilterRel is the per-filter cost as a fraction of the bare op
	// measured in the same children (0.35: each filter adds 0.35× the
	// syscall's own cost), with its CI; EntryRel likewise. BareNs is that
	// bare op, the mean of the children's own baselines in ns/op, and
	// BareSegmentSDPct how much its block means moved over the run, in
	// percent of it. All null in an unpaired run.
	PerFilterRel       float64  `json:"per_filter_rel"`
	PerFilterRelCILow  float64  `json:"per_filter_rel_ci_low"`
	PerFilterRelCIHigh float64  `json:"per_filter_rel_ci_high"`
	EntryRel           float64  `json:"entry_rel"`
	EntryRelCILow      float64  `json:"entry_rel_ci_low"`
	EntryRelCIHigh     float64  `json:"entry_rel_ci_high"`
	BareNs             float64  `json:"bare_ns"`
	BareSegmentSDPct   float64  `json:"bare_segment_sd_pct"`
	Warnings           []string `json:"warnings,omitempty"`
}

// LoaderDiff is the per-filter cost of loader A minus that of loader B for
// one variant (run --loader both: A unprivileged, B privileged), in ns/op
// per filter, with its CI (Welch–Satterthwaite over the two fits) and
// p-value.
type LoaderDiff struct {
	Variant         string   `json:"variant"`
	A               string   `json:"a"`
	B               string   `json:"b"`
	PerFilterDiffNs float64  `json:"per_filter_diff_ns"`
	CILowNs         float64  `json:"ci_low_ns"`
	CIHighNs        float64  `json:"ci_high_ns"`
	P               float64  `json:"p"`
	Significant     bool     `json:"significant"`
	Warnings        []string `json:"warnings,omitempty"`
}

// CacheVariant says, for each syscall of the workload, whether the kernel's
// action cache serves it under the variant's deepest stack.
type CacheVariant struct {
	Variant  string         `json:"variant"`
	Syscalls []CacheSyscall `json:"syscalls"`
}

// CacheSyscall is one syscall's cache prediction
// (kernel/seccomp.c: seccomp_cache_prepare_bitmap).
type CacheSyscall struct {
	Name   string `json:"name"`
	Nr     int    `json:"nr"`
	Cached bool   `json:"cached"`
	// Reason explains an uncached syscall: which filter and instruction.
	Reason string `json:"reason,omitempty"`
	// Action is the stack's verdict for the syscall with zero arguments.
	Action string `json:"action,omitempty"`
	// Instructions is the number of BPF instructions executed over the
	// deepest stack for the syscall with zero arguments (0 when cached).
	Instructions int `json:"instructions"`
}

// Setup is the cost of installing filters: one seccomp(2) call per filter.
type Setup struct {
	// PerFilter summarizes the duration of one seccomp(2) call, in ns, over
	// every call of every child.
	PerFilterNs      float64 `json:"per_filter_ns"`
	PerFilterCILowNs float64 `json:"per_filter_ci_low_ns"`
	PerFilterCIHiNs  float64 `json:"per_filter_ci_high_ns"`
	// StackNs is the mean time to install the deepest stack, in ns.
	StackNs     float64 `json:"stack_ns"`
	StackFilter int     `json:"stack_filters"`
	// JITBytesPerFilter is the JIT memory charged against bpf_jit_limit
	// per filter of the deepest stack (its mean over the stack's filters),
	// in bytes; JITBytesStack the charge of that whole stack, in bytes
	// (kernel/bpf/core.c: bpf_jit_charge_modmem). 0 when not known.
	JITBytesPerFilter float64 `json:"jit_bytes_per_filter"`
	JITBytesStack     int64   `json:"jit_bytes_stack"`
	// JITSource says where the JIT bytes come from: "measured" (probe
	// loads under a lowered bpf_jit_limit, root only) or "model" (the
	// allocator model of internal/jitmem from each filter's eBPF length).
	JITSource string `json:"jit_source,omitempty"`
	// JITAllocator is the modelled allocator: "pack" (64-byte chunks,
	// x86_64 Linux 5.18+) or "page".
	JITAllocator string `json:"jit_allocator,omitempty"`
}

// Control is the CPU-bound control loop's slowdown after installing filters,
// per variant: a slowdown there is a mitigation's cost (e.g. speculative
// store bypass), not filter evaluation.
type Control struct {
	Variant string `json:"variant"`
	// BeforeNs and AfterNs are mean ns per control-loop iteration.
	BeforeNs float64 `json:"before_ns"`
	AfterNs  float64 `json:"after_ns"`
	// SlowdownPct is (after-before)/before in percent, with its CI.
	SlowdownPct     float64 `json:"slowdown_pct"`
	SlowdownPctLow  float64 `json:"slowdown_pct_ci_low"`
	SlowdownPctHigh float64 `json:"slowdown_pct_ci_high"`
	// Verdict is a code (docs/json.md, "Control verdicts") saying whether
	// the slowdown is a mitigation's cost (Build fills it); schema 2 wrote
	// a sentence here. Renderers word it again from the numbers.
	Verdict string `json:"verdict,omitempty"`
}

// RunInfo says how the run went: blocks, why it stopped, how long it took.
type RunInfo struct {
	// Blocks is the number of complete randomized blocks (children per cell).
	Blocks int `json:"blocks"`
	// StopReason is "trials", "precision", "max-trials" or "max-time"
	// (result.StopReason; "interrupted" or "failed" for a partial run).
	StopReason result.StopReason `json:"stop_reason"`
	// ElapsedS is the wall time of the measurement in seconds.
	ElapsedS float64 `json:"elapsed_s"`
	// TargetCINs or TargetCIRel (a fraction) is the --target-ci, 0 if none.
	TargetCINs  float64 `json:"target_ci_ns,omitempty"`
	TargetCIRel float64 `json:"target_ci_rel,omitempty"`
	// Parallel is the number of copies per cell; CPUs the CPUs used.
	Parallel int   `json:"parallel"`
	CPUs     []int `json:"cpus"`
	// ForeignLoad is the share of the measuring CPUs' time that other
	// processes took while the children ran (absent when unpinned, or in
	// results from before it was recorded).
	ForeignLoad *result.ForeignLoad `json:"foreign_load,omitempty"`
}

// Drift is the trend of a variant's baseline (0-filter) cells over the run,
// in ns/op per child run (Seq step: every variant's children count);
// OverRunNs is it times the Seq distance from the variant's first baseline
// child to its last.
type Drift struct {
	Variant         string  `json:"variant"`
	SlopeNsPerChild float64 `json:"slope_ns_per_child"`
	SlopeCILow      float64 `json:"slope_ci_low"`
	SlopeCIHigh     float64 `json:"slope_ci_high"`
	OverRunNs       float64 `json:"over_run_ns"`
	P               float64 `json:"p"`
}

// Linearity checks the model's assumption that every filter costs the
// same: the per-filter cost between the two smallest counts ≥ 1 and between
// the two largest, in ns/op per filter with CIs (Welch difference of the
// cells divided by the count difference).
type Linearity struct {
	Variant        string  `json:"variant"`
	Loader         string  `json:"loader,omitempty"`
	LowFrom        int     `json:"low_from"`
	LowTo          int     `json:"low_to"`
	LowNs          float64 `json:"low_ns_per_filter"`
	LowCILowNs     float64 `json:"low_ci_low_ns"`
	LowCIHighNs    float64 `json:"low_ci_high_ns"`
	HighFrom       int     `json:"high_from"`
	HighTo         int     `json:"high_to"`
	HighNs         float64 `json:"high_ns_per_filter"`
	HighCILowNs    float64 `json:"high_ci_low_ns"`
	HighCIHighNs   float64 `json:"high_ci_high_ns"`
	DiffersFromFit bool    `json:"differs"`
}

// Meaning says per variant (and loader) what the numbers mean, as
// clauses: codes with their figures (docs/json.md, "Meaning codes").
// Loader is "" for a single-loader run, and "A-B" for the statement about
// a loader difference. Text is the clauses' English wording, in memory
// only (schema 2 wrote it as "text"; readers re-render it with Explain).
type Meaning struct {
	Variant string   `json:"variant"`
	Loader  string   `json:"loader,omitempty"`
	Clauses []Clause `json:"clauses"`
	// Sentences are the clauses in English, one fact per sentence, each
	// at most MaxSentence characters (renderClauses); Text is them
	// joined by spaces. Neither is in the JSON: Explain renders them
	// from the document.
	Sentences []string `json:"-"`
	Text      string   `json:"-"`
}

// Input is everything Build needs from a finished run.
type Input struct {
	Tool        Tool
	Command     string
	Created     time.Time
	Environment result.Environment
	Config      Config
	Samples     []result.Sample
	Result      stats.Result
	Cache       []CacheVariant
	Setup       *Setup
	Control     []Control
	Partial     bool
	Warnings    []string
	Run         *RunInfo
	Drift       []Drift
	Linearity   []Linearity

	// CommandWorkload is copied to the document as is.
	CommandWorkload *CommandCost
	// Budget is the --budget verdict, copied as is (nil: none asked).
	Budget *BudgetVerdict
}
