package report

import (
	"fmt"
	"math"

	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/report/internal/text"
)

// commandDirectFields are the direct measurement and the split of the
// measured added time (c.MeasuredAddedNs) into direct, per-process and
// indirect parts, as fields of estimate --command's block; one field when
// it was not measured, none when sampling was off.
func commandDirectFields(c *document.EstimateCommand) []field {
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
		text.Signed(d.DirectNs), text.Signed(d.DirectCILowNs), text.Signed(d.DirectCIHighNs), samples, d.FrequencyHz, text.Duration(d.PeriodNs))}}
	cost := "not measured (fewer than two blocks each way)"
	if d.SamplingCostNs != 0 || d.SamplingCostCILowNs != 0 || d.SamplingCostCIHighNs != 0 {
		cost = fmt.Sprintf("%s [%s, %s] per baseline run (%+.1f%%)", text.Signed(d.SamplingCostNs), text.Signed(d.SamplingCostCILowNs), text.Signed(d.SamplingCostCIHighNs), d.SamplingCostPct)
	}
	cost += fmt.Sprintf(": %d blocks sampled against %d not", d.SampledBlocks, d.UnsampledBlocks)
	if d.LostSamples > 0 {
		cost += fmt.Sprintf("; %d samples LOST (ring buffer full): the direct time is low", d.LostSamples)
	}
	fs = append(fs, field{label: "sampling cost", value: cost})
	fs = append(fs, field{label: "loop model", value: fmt.Sprintf("%s [%s, %s] from the loop cost × the program's calls; against the sampled direct time: %s",
		text.Signed(d.ModelNs), text.Signed(d.ModelCILowNs), text.Signed(d.ModelCIHighNs), modelAgreeText(d))})
	proc := "per-process not measured (--process-term=false)"
	if c.ProcessProbe != "" {
		proc = fmt.Sprintf("per-process %s [%s, %s]", text.Signed(d.ProcessNs), text.Signed(d.ProcessCILowNs), text.Signed(d.ProcessCIHighNs))
	}
	ind := fmt.Sprintf("indirect %s [%s, %s]", text.Signed(d.IndirectNs), text.Signed(d.IndirectCILowNs), text.Signed(d.IndirectCIHighNs))
	if !d.IndirectResolved {
		ind = fmt.Sprintf("indirect NOT RESOLVED (%s [%s, %s]: %s)", text.Signed(d.IndirectNs), text.Signed(d.IndirectCILowNs), text.Signed(d.IndirectCIHighNs), splitWhyText(d.IndirectWhy))
	}
	return append(fs, field{label: "split of CPU", value: fmt.Sprintf("%s [%s, %s] = direct %s + %s + %s; CPU time (user+sys), the samples' unit; intervals in quadrature",
		text.Signed(d.TotalNs), text.Signed(d.TotalCILowNs), text.Signed(d.TotalCIHighNs), text.Signed(d.DirectNs), proc, ind)})
}

// modelAgreeText says how the loop model's interval and the sampled
// direct one compare: they overlap, do not, or overlap on too few
// samples (MinDirectSamples, MaxDirectWidth) to tell.
func modelAgreeText(d *document.CommandDirect) string {
	if !d.ModelAgrees {
		return "the intervals do NOT overlap"
	}
	width := d.DirectCIHighNs - d.DirectCILowNs
	if n := d.Stacked.Seccomp; n < document.MinDirectSamples || width > document.MaxDirectWidth*math.Abs(d.DirectNs) {
		return fmt.Sprintf("too few samples to tell (%s in seccomp; the intervals overlap, the sampled one %.1f× its centre wide)",
			text.Plural(n, "sample"), width/math.Abs(d.DirectNs))
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
