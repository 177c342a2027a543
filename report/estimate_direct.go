package report

import (
	"fmt"
	"math"
)

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

// finite returns a copy with NaN and infinities replaced by 0; nil for
// nil.
func (d *CommandDirect) finite() *CommandDirect {
	if d == nil {
		return nil
	}
	c := *d
	for _, p := range []*float64{&c.PeriodNs, &c.DirectNs, &c.DirectCILowNs, &c.DirectCIHighNs, &c.SamplingCostNs, &c.SamplingCostCILowNs,
		&c.SamplingCostCIHighNs, &c.SamplingCostPct, &c.ModelNs, &c.ModelCILowNs, &c.ModelCIHighNs, &c.IndirectNs, &c.IndirectCILowNs, &c.IndirectCIHighNs,
		&c.TotalNs, &c.TotalCILowNs, &c.TotalCIHighNs, &c.ProcessNs, &c.ProcessCILowNs, &c.ProcessCIHighNs,
		&c.Baseline.SeccompNs, &c.Baseline.SeccompCILowNs, &c.Baseline.SeccompCIHighNs, &c.Stacked.SeccompNs, &c.Stacked.SeccompCILowNs, &c.Stacked.SeccompCIHighNs} {
		*p = finite(*p)
	}
	return &c
}

// commandDirectFields are the direct measurement and the split of the
// measured added time (c.MeasuredAddedNs) into direct, per-process and
// indirect parts, as fields of estimate --command's block; one field when
// it was not measured, none when sampling was off.
func commandDirectFields(c *EstimateCommand) []field {
	d := c.Direct
	if d == nil {
		return nil
	}
	if d.Unavailable != "" {
		return []field{{label: "direct", value: fmt.Sprintf("not measured (%s): no direct/per-process/indirect split", d.Unavailable)}}
	}
	b, x := d.Baseline, d.Stacked
	samples := fmt.Sprintf("%d of %d samples over %d runs at %d filters (entry %d, filter images %d); minus %d of %d over %d runs at 0",
		x.Seccomp, x.Samples, x.Runs, x.Filters, x.Entry, x.Filter, b.Seccomp, b.Samples, b.Runs)
	if b.Samples == 0 && b.Runs > 0 && c.AB != nil && c.AB.Design != "children" {
		// paired: one child runs both sides, so its samples are all
		// counted at N and the unfiltered runs have none of their own
		samples = fmt.Sprintf("%d of %d samples of the paired children (both sides' runs), all in their %d runs at %d filters (entry %d, filter images %d); nothing to subtract for their %d runs without filters: a process without filters never enters seccomp",
			x.Seccomp, x.Samples, x.Runs, x.Filters, x.Entry, x.Filter, b.Runs)
	}
	fs := []field{{label: "direct (sampled)", value: fmt.Sprintf("%s [%s, %s] in seccomp: %s; %d Hz, one sample = %s of CPU",
		signed(d.DirectNs), signed(d.DirectCILowNs), signed(d.DirectCIHighNs), samples, d.FrequencyHz, durationText(d.PeriodNs))}}
	cost := "not measured (fewer than two blocks each way)"
	if d.SamplingCostNs != 0 || d.SamplingCostCILowNs != 0 || d.SamplingCostCIHighNs != 0 {
		cost = fmt.Sprintf("%s [%s, %s] per baseline run (%+.1f%%)", signed(d.SamplingCostNs), signed(d.SamplingCostCILowNs), signed(d.SamplingCostCIHighNs), d.SamplingCostPct)
	}
	cost += fmt.Sprintf(": %d blocks sampled against %d not", d.SampledBlocks, d.UnsampledBlocks)
	if d.LostSamples > 0 {
		cost += fmt.Sprintf("; %d samples LOST (ring buffer full): the direct time is low", d.LostSamples)
	}
	fs = append(fs, field{label: "sampling cost", value: cost})
	fs = append(fs, field{label: "loop model", value: fmt.Sprintf("%s [%s, %s] from the loop cost × the program's calls; against the sampled direct time: %s",
		signed(d.ModelNs), signed(d.ModelCILowNs), signed(d.ModelCIHighNs), modelAgreeText(d))})
	proc := "per-process not measured (--process-term=false)"
	if c.ProcessProbe != "" {
		proc = fmt.Sprintf("per-process %s [%s, %s]", signed(d.ProcessNs), signed(d.ProcessCILowNs), signed(d.ProcessCIHighNs))
	}
	ind := fmt.Sprintf("indirect %s [%s, %s]", signed(d.IndirectNs), signed(d.IndirectCILowNs), signed(d.IndirectCIHighNs))
	if !d.IndirectResolved {
		ind = fmt.Sprintf("indirect NOT RESOLVED (%s [%s, %s]: %s)", signed(d.IndirectNs), signed(d.IndirectCILowNs), signed(d.IndirectCIHighNs), splitWhyText(d.IndirectWhy))
	}
	return append(fs, field{label: "split of CPU", value: fmt.Sprintf("%s [%s, %s] = direct %s + %s + %s; CPU time (user+sys), the samples' unit; intervals in quadrature",
		signed(d.TotalNs), signed(d.TotalCILowNs), signed(d.TotalCIHighNs), signed(d.DirectNs), proc, ind)})
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

// modelAgreeText says how the loop model's interval and the sampled
// direct one compare: they overlap, do not, or overlap on too few
// samples (MinDirectSamples, MaxDirectWidth) to tell.
func modelAgreeText(d *CommandDirect) string {
	if !d.ModelAgrees {
		return "the intervals do NOT overlap"
	}
	width := d.DirectCIHighNs - d.DirectCILowNs
	if n := d.Stacked.Seccomp; n < MinDirectSamples || width > MaxDirectWidth*math.Abs(d.DirectNs) {
		return fmt.Sprintf("too few samples to tell (%s in seccomp; the intervals overlap, the sampled one %.1f× its centre wide)",
			Plural(n, "sample"), width/math.Abs(d.DirectNs))
	}
	return "the intervals overlap"
}

// splitWhyText words why the indirect part is not resolved.
func splitWhyText(code string) string {
	switch code {
	case "no-interval":
		return "an interval is missing"
	case "spans-zero":
		return "its interval spans zero"
	case "wide":
		return "its interval is wider than the measured total"
	}
	return code
}
