package document

// TopSchemaVersion is the schema_version of `top --format json` (kind
// "top", docs/json.md): 2 since the prediction's label and model became
// a code with its figures (version 1 held two English strings).
const TopSchemaVersion = TopVersion

// Top is the result of `seccompbench top` over one window: per process,
// its CPU time, the part of it spent in seccomp with an interval, its
// filters and the syscalls that cost most.
type Top struct {
	SchemaVersion int  `json:"schema_version"`
	Kind          Kind `json:"kind"` // KindTop
	// Start is the window's start, RFC 3339.
	Start string `json:"start"`
	// WindowNs is the window's length, in ns of wall time.
	WindowNs int64     `json:"window_ns"`
	Method   TopMethod `json:"method"`
	// Processes are sorted by seccomp time, largest first, then the
	// processes without samples (idle or exited --pid targets), each group
	// by pid.
	Processes []TopProcess `json:"processes"`
	// Budget is the --budget verdict on the targets' seccomp share over
	// the windows so far (top --budget), first in the text; absent
	// otherwise.
	Budget *BudgetVerdict `json:"budget,omitempty"`
	// Children says that the --pid targets' children were followed
	// (--children); absent otherwise.
	Children *TopChildren `json:"children,omitempty"`
	Warnings []string     `json:"warnings"`
}

// TopChildren counts the children top --children added to the --pid
// targets. A child is a process whose parent chain (field 4 of
// /proc/PID/stat) reaches a target, or one the sched_process_fork raw
// tracepoint (kernel/fork.c: kernel_clone) saw a target or child fork.
type TopChildren struct {
	// AtStart is the number of children alive when top started (one walk
	// of /proc).
	AtStart int `json:"at_start"`
	// Since is the number of children found since then, up to the end
	// of this window: by a /proc walk at a window's start or in the
	// samples. A child that starts and ends between two walks without a
	// sample is followed but not counted.
	Since int `json:"since"`
}

// TopMethod says how the window was measured and what that cost.
type TopMethod struct {
	// SamplingHz is the cpu-clock sampling rate per CPU, in Hz; PeriodNs
	// is its period, in ns of CPU time per sample.
	SamplingHz int   `json:"sampling_hz"`
	PeriodNs   int64 `json:"period_ns"`
	// CPUs is the number of CPUs sampled.
	CPUs int `json:"cpus"`
	// BatchNs is the batch length of the share intervals, in ns.
	BatchNs int64 `json:"batch_ns"`
	// Confidence is the level of every interval, a fraction.
	Confidence float64 `json:"confidence"`
	// CountDuty is the share of the window the syscall counter was
	// attached, a fraction; CountOnNs is that time, in ns.
	CountDuty float64 `json:"count_duty"`
	CountOnNs int64   `json:"count_on_ns"`
	// LostSamples is the number of samples the ring buffer dropped.
	LostSamples uint64 `json:"lost_samples"`
	// CounterShare is the share of the sampled processes' CPU time spent
	// in the syscall counter while it was attached (its cost per call,
	// measured), a fraction; CounterOverhead is that times CountDuty, the
	// counter's cost over the whole window. null without samples.
	CounterShare    *float64 `json:"counter_share"`
	CounterOverhead *float64 `json:"counter_overhead"`
	// CounterNsPerCall is what the syscall counter adds to each call it
	// counts, in ns of CPU time, measured when top started
	// (live.Session.CounterCost); the calls are scaled to the window
	// with it taken out. null when it was not measured.
	CounterNsPerCall *float64 `json:"counter_ns_per_call"`
	// MinSyscallSamples and MinCountedCalls are the seccomp samples and
	// counted calls a syscall's row needs to be resolved (TopSyscall).
	MinSyscallSamples int `json:"min_syscall_samples"`
	MinCountedCalls   int `json:"min_counted_calls"`
}

// TopProcess is one process (thread group) in the window.
type TopProcess struct {
	Pid  int    `json:"pid"`
	Comm string `json:"comm"`
	// Child is true for a child of the --pid targets (--children), not a
	// target itself; ChildOf is the target it descends from, absent when
	// not known (its parent chain no longer reaches a target: a parent
	// ended). Both absent without --children.
	Child   bool `json:"child,omitempty"`
	ChildOf *int `json:"child_of,omitempty"`
	// Idle is true for a --pid target that is alive but had no sample in
	// the window (it did not run, or ran less than one sampling period):
	// Samples 0, the shares null, CPUNs its CPU time from /proc/PID/stat
	// (often 0), a warning saying so. Every --pid target is listed in
	// every window; other processes only when sampled. Absent otherwise.
	Idle bool `json:"idle,omitempty"`
	// Exited is true for a --pid target whose /proc/PID was gone at the
	// window's end: it is listed in that one window (with what was
	// sampled before it exited, or with no samples, CPUNs 0 and Filters
	// null) and not in later ones. Absent otherwise.
	Exited bool `json:"exited,omitempty"`
	// CPUNs is the process's CPU time in the window (utime + stime of
	// /proc/PID/stat), in ns; SampledCPUNs is samples × period, in ns.
	CPUNs        float64 `json:"cpu_ns"`
	SampledCPUNs float64 `json:"sampled_cpu_ns"`
	// SeccompNs is SeccompShare × CPUNs, in ns.
	SeccompNs float64 `json:"seccomp_ns"`
	// SeccompShare is the share of the process's CPU samples in seccomp,
	// with its batch-means interval; null without samples.
	SeccompShare       *float64 `json:"seccomp_share"`
	SeccompShareCILow  *float64 `json:"seccomp_share_ci_low"`
	SeccompShareCIHigh *float64 `json:"seccomp_share_ci_high"`
	// Samples, SeccompSamples and FilterSamples count the process's
	// samples, those in seccomp and those in a filter's image (the rest
	// of seccomp is its entry and cache check); InferredSamples are
	// seccomp samples recognized by an unnamed image alone.
	Samples         int `json:"samples"`
	SeccompSamples  int `json:"seccomp_samples"`
	FilterSamples   int `json:"filter_samples"`
	InferredSamples int `json:"inferred_samples"`
	// Filters is Seccomp_filters of /proc/PID/status; null where the
	// kernel does not report it.
	Filters *int `json:"filters"`
	// FilterHashes are the dumped filters, oldest first; empty when they
	// could not be dumped (FiltersError says why).
	FilterHashes []TopFilter `json:"filter_hashes"`
	FiltersError string      `json:"filters_error,omitempty"`
	// Syscalls are the syscalls with seccomp samples, by seccomp time.
	Syscalls []TopSyscall `json:"syscalls"`
	// CallsScaledBy says how the calls counted while the counter was
	// attached were scaled to the window: "cpu_time" by the process's
	// exact CPU time in the window over its CPU time while counting
	// (--pid), "samples" by its samples (every other selection: about
	// ±2/√n for n samples taken while counting), "" when nothing was
	// counted.
	CallsScaledBy string `json:"calls_scaled_by"`
	// Prediction is what merging the stack would save on the measured
	// mix, from the cost model: a prediction, not a measurement.
	Prediction *TopPrediction `json:"prediction,omitempty"`
	Warnings   []string       `json:"warnings"`
}

// TopFilter is one filter of a process's stack.
type TopFilter struct {
	Index        int    `json:"index"`
	Instructions int    `json:"instructions"`
	SHA256       string `json:"sha256"`
}

// TopSyscall is one syscall of a process.
type TopSyscall struct {
	Name string `json:"name"`
	Nr   int    `json:"nr"`
	// Calls is the estimated number of calls in the window (counted while
	// the counter was attached, scaled to the window by CPU time); null
	// when no call was counted.
	Calls *float64 `json:"calls"`
	// CallsCILow and CallsCIHigh bound Calls at Method.Confidence: the
	// counted calls' Poisson error and the scale's (the counter's own
	// share of the time while counting, or the sample ratio), combined on
	// the log scale; null without Calls.
	CallsCILow  *float64 `json:"calls_ci_low"`
	CallsCIHigh *float64 `json:"calls_ci_high"`
	// CountedCalls is the number of calls the counter saw while attached,
	// before scaling; 0 when none was counted.
	CountedCalls uint64 `json:"counted_calls"`
	// SeccompNs is the seccomp time attributed to the syscall, in ns:
	// Samples / the process's samples × its CPU time. SeccompNsCILow and
	// SeccompNsCIHigh bound it at Method.Confidence from the exact
	// Poisson interval of Samples (successive samples of a burst are
	// correlated, so the interval can be too narrow, never too wide).
	SeccompNs       float64  `json:"seccomp_ns"`
	SeccompNsCILow  *float64 `json:"seccomp_ns_ci_low"`
	SeccompNsCIHigh *float64 `json:"seccomp_ns_ci_high"`
	// SeccompNsPerCall is SeccompNs / Calls, in ns per call, when the
	// row is Resolved; null otherwise. SeccompNsPerCallCILow and
	// SeccompNsPerCallCIHigh bound it from SeccompNs's interval and the
	// Poisson error of CountedCalls (combined on the log scale); given
	// also for a row that is not resolved whenever calls were counted.
	SeccompNsPerCall       *float64 `json:"seccomp_ns_per_call"`
	SeccompNsPerCallCILow  *float64 `json:"seccomp_ns_per_call_ci_low"`
	SeccompNsPerCallCIHigh *float64 `json:"seccomp_ns_per_call_ci_high"`
	// Samples is the number of seccomp samples in the syscall.
	Samples int `json:"samples"`
	// Resolved is true when the per-call cost rests on at least
	// Method.MinSyscallSamples seccomp samples and Method.MinCountedCalls
	// counted calls. Unresolved says why not: TopFewSamples,
	// TopNotCounted or TopFewCalls; "" when resolved.
	Resolved   bool   `json:"resolved"`
	Unresolved string `json:"unresolved,omitempty"`
}

// The codes of TopSyscall.Unresolved.
const (
	// TopFewSamples: fewer seccomp samples than Method.MinSyscallSamples.
	// A per-call figure from one or two samples is mostly noise, and only
	// syscalls that drew a sample are listed at all, so such figures
	// come out high on average (a winner's curse): sample longer or at a
	// higher --frequency.
	TopFewSamples = "few_samples"
	// TopNotCounted: no call was counted while the counter was attached
	// (or the counts could not be scaled to the window).
	TopNotCounted = "not_counted"
	// TopFewCalls: fewer counted calls than Method.MinCountedCalls.
	TopFewCalls = "few_counted_calls"
)

// TopPrediction is the model's prediction for a merged stack: a
// prediction, not a measurement.
type TopPrediction struct {
	// Rows are the alternatives: "merge" (one filter equivalent to the
	// stack) and "merge+optimize" (laid out for the measured mix).
	Rows []TopPredictionRow `json:"rows"`
	// Model is the cost model and how it was scaled.
	Model TopModel `json:"model"`
}

// TopModelScaled is the code of TopModel.Method: each sampled syscall's
// measured seccomp time × model(after) / model(before), where the model
// of an uncached syscall is EntryNs + PerFilterNs × filters +
// PerInstructionNs × instructions executed, and of a cached one EntryNs
// (the entry and the cache check; docs/top.md).
const TopModelScaled = "measured_times_model_ratio"

// TopModel is the reference cost model a prediction scales the measured
// seccomp time by, with its figures in ns per syscall.
type TopModel struct {
	// Method is the code of how the model is applied (TopModelScaled).
	Method string `json:"method" jsonschema:"enum=measured_times_model_ratio"`
	// EntryNs is the cost of seccomp's entry and the action cache check,
	// PerFilterNs of each filter run, PerInstructionNs of each cBPF
	// instruction executed; all ns per syscall.
	EntryNs          float64 `json:"entry_ns"`
	PerFilterNs      float64 `json:"per_filter_ns"`
	PerInstructionNs float64 `json:"per_instruction_ns"`
}

// TopPredictionRow is one alternative's predicted seccomp time.
type TopPredictionRow struct {
	Name string `json:"name"`
	// Instructions is the alternative's length, in instructions.
	Instructions int `json:"instructions"`
	// SeccompNs is the predicted seccomp time over the window for the
	// measured mix, in ns; SavedNs the predicted saving against the
	// measured SeccompNs of the sampled syscalls, and SavedShare that
	// saving as a share of the process's CPU time.
	SeccompNs  float64 `json:"seccomp_ns"`
	SavedNs    float64 `json:"saved_ns"`
	SavedShare float64 `json:"saved_share"`
}
