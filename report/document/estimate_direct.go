package document

// CommandDirect is estimate --command's direct measurement: the CPU time
// the command's processes spend inside seccomp (the syscall entry's
// seccomp code, the action cache check and the filters' JIT images;
// kernel/seccomp.c: __secure_computing, seccomp_run_filters), counted from
// cpu-clock samples taken while the command ran, and the split of the
// measured added time it allows. Times are ns per run of the command.
type CommandDirect struct {
	// Unavailable, when not "", says in one line why nothing was sampled
	// (no permission, no kernel support); every other field is then zero.
	Unavailable string `json:"unavailable,omitempty"`
	// FrequencyHz is the sampling rate per CPU; PeriodNs the CPU time
	// one sample stands for (1e9 / FrequencyHz).
	FrequencyHz int     `json:"frequency_hz"`
	PeriodNs    float64 `json:"period_ns"`
	// SampledBlocks and UnsampledBlocks count the randomized blocks run
	// with and without sampling: sampling alternates by block so that
	// its own cost is measured, not assumed.
	SampledBlocks   int `json:"sampled_blocks"`
	UnsampledBlocks int `json:"unsampled_blocks"`
	// LostSamples were dropped by a full ring buffer; the counts are then
	// low.
	LostSamples uint64 `json:"lost_samples"`
	// Baseline and Stacked are the sample counts of the cells without and
	// with the stack.
	Baseline DirectCell `json:"baseline"`
	Stacked  DirectCell `json:"stacked"`
	// DirectNs is Stacked's seccomp time per run minus Baseline's, with
	// its interval (each cell's exact Poisson interval scaled, the two
	// sides combined in quadrature).
	DirectNs       float64 `json:"direct_ns"`
	DirectCILowNs  float64 `json:"direct_ci_low_ns"`
	DirectCIHighNs float64 `json:"direct_ci_high_ns"`
	// SamplingCostNs is what sampling added to a baseline run (median of
	// the sampled blocks' baseline children minus the unsampled ones'),
	// with its bootstrap interval; SamplingCostPct is it in percent of
	// the baseline run. NaN (0 in JSON) with fewer than two blocks of
	// each kind.
	SamplingCostNs       float64 `json:"sampling_cost_ns"`
	SamplingCostCILowNs  float64 `json:"sampling_cost_ci_low_ns"`
	SamplingCostCIHighNs float64 `json:"sampling_cost_ci_high_ns"`
	SamplingCostPct      float64 `json:"sampling_cost_pct"`
	// ModelNs is the loop model's per-syscall prediction for one run (the
	// loop cost of each syscall × the program's call counts), with its
	// calibration interval; ModelAgrees reports that its interval and the
	// direct one overlap.
	ModelNs       float64 `json:"model_ns"`
	ModelCILowNs  float64 `json:"model_ci_low_ns"`
	ModelCIHighNs float64 `json:"model_ci_high_ns"`
	ModelAgrees   bool    `json:"model_agrees"`
	// IndirectNs is the measured added CPU time minus the direct part
	// minus the per-process part's CPU time (0 when not measured), with an interval from
	// the three in quadrature. IndirectResolved reports that it excludes
	// 0 and is no wider than the measured added time; IndirectWhy says
	// why not otherwise, as a code: "no-interval", "spans-zero" or "wide"
	// (stats.SplitNoInterval, SplitSpansZero, SplitWide).
	// TotalNs is the measured added CPU time (user+sys) per run that the
	// split divides, and ProcessNs the per-process term's CPU time, each
	// with its interval: the split is of CPU time, the unit of the
	// samples (wall time grows by less when the command's processes
	// overlap).
	TotalNs          float64 `json:"split_total_cpu_ns"`
	TotalCILowNs     float64 `json:"split_total_cpu_ci_low_ns"`
	TotalCIHighNs    float64 `json:"split_total_cpu_ci_high_ns"`
	ProcessNs        float64 `json:"split_process_cpu_ns"`
	ProcessCILowNs   float64 `json:"split_process_cpu_ci_low_ns"`
	ProcessCIHighNs  float64 `json:"split_process_cpu_ci_high_ns"`
	IndirectNs       float64 `json:"indirect_ns"`
	IndirectCILowNs  float64 `json:"indirect_ci_low_ns"`
	IndirectCIHighNs float64 `json:"indirect_ci_high_ns"`
	IndirectResolved bool    `json:"indirect_resolved"`
	IndirectWhy      string  `json:"indirect_why,omitempty"`
}

// DirectCell is what the samples of one cell's sampled children say.
type DirectCell struct {
	// Filters is the cell's stack depth.
	Filters int `json:"filters"`
	// Runs counts the runs (warm-up included) of its sampled children.
	Runs int `json:"runs"`
	// Samples counts every sample of the command's processes; Seccomp
	// those inside seccomp, of which Entry in seccomp's own code and
	// Filter in a filter's image (internal/kstack's parts).
	Samples int `json:"samples"`
	Seccomp int `json:"seccomp_samples"`
	Entry   int `json:"seccomp_entry_samples"`
	Filter  int `json:"seccomp_filter_samples"`
	// SeccompNs is Seccomp × PeriodNs / Runs, with the exact Poisson
	// interval of the count scaled the same way.
	SeccompNs       float64 `json:"seccomp_ns"`
	SeccompCILowNs  float64 `json:"seccomp_ci_low_ns"`
	SeccompCIHighNs float64 `json:"seccomp_ci_high_ns"`
}

// Finite returns a copy with NaN and infinities replaced by 0; nil for
// nil.
func (d *CommandDirect) Finite() *CommandDirect {
	if d == nil {
		return nil
	}
	c := *d
	for _, p := range []*float64{&c.PeriodNs, &c.DirectNs, &c.DirectCILowNs, &c.DirectCIHighNs, &c.SamplingCostNs, &c.SamplingCostCILowNs,
		&c.SamplingCostCIHighNs, &c.SamplingCostPct, &c.ModelNs, &c.ModelCILowNs, &c.ModelCIHighNs, &c.IndirectNs, &c.IndirectCILowNs, &c.IndirectCIHighNs,
		&c.TotalNs, &c.TotalCILowNs, &c.TotalCIHighNs, &c.ProcessNs, &c.ProcessCILowNs, &c.ProcessCIHighNs,
		&c.Baseline.SeccompNs, &c.Baseline.SeccompCILowNs, &c.Baseline.SeccompCIHighNs, &c.Stacked.SeccompNs, &c.Stacked.SeccompCILowNs, &c.Stacked.SeccompCIHighNs} {
		*p = Finite(*p)
	}
	return &c
}

// MinDirectSamples is the fewest seccomp samples at N filters, and
// MaxDirectWidth the widest sampled interval as a multiple of its centre,
// at which the sampled direct time can tell the loop model right or
// wrong when their intervals overlap: below them an overlap says nothing
// (3 samples have an exact Poisson interval of [0.6, 8.8], 2.7 times
// their count wide).
const (
	MinDirectSamples = 10
	MaxDirectWidth   = 2.0
)
