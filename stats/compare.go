package stats

import "math"

// Comparison is the test of one difference between a base and another
// measurement: the [Diff] (estimate, interval, p, N1, N2, confidence,
// warnings) and the decision taken at Alpha.
type Comparison struct {
	Diff
	// Alpha is the significance level, 1 - Confidence.
	Alpha float64
	// Known is false when the difference has no p-value or no interval
	// (too few samples, a missing interval); Diff's Warnings say why.
	Known bool
	// Significant is Known and P < Alpha. It says the difference is
	// unlikely to be noise, not that it is large.
	Significant bool
}

// decide adds the decision at 1-confidence to d.
func decide(d Diff, confidence float64) Comparison {
	c := Comparison{Diff: d, Alpha: 1 - confidence}
	c.Known = !math.IsNaN(d.P) && !math.IsNaN(d.Lo) && !math.IsNaN(d.Hi)
	c.Significant = c.Known && d.P < c.Alpha
	return c
}

// CompareSamples compares two samples of ns/op values, x against base,
// with [Welch] at the given confidence level.
func CompareSamples(base, x []float64, confidence float64) Comparison {
	return decide(Welch(base, x, confidence), confidence)
}

// CompareEstimates compares two independent estimates, x against base,
// with [DiffIndependent] at the given confidence level.
func CompareEstimates(base, x Estimate, confidence float64) Comparison {
	return decide(DiffIndependent(base, x, confidence), confidence)
}
