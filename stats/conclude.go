package stats

import "math"

// Verdict is what a confidence interval for an effect (a cost, an
// overhead, a slowdown) supports, given a margin below which the effect
// does not matter.
type Verdict int

const (
	// Inconclusive: the interval holds 0 and reaches beyond the margin,
	// so the run can say neither "there is an effect" nor "it is
	// negligible".
	Inconclusive Verdict = iota
	// Negligible: the whole interval lies within ±margin.
	Negligible
	// Positive: the interval lies above 0 and is not within the margin.
	Positive
	// Negative: the interval lies below 0 and is not within the margin.
	// For a cost that cannot be negative (filters cannot make a syscall
	// faster) this says the run cannot answer: noise or drift dominates.
	Negative
)

// String names the verdict in lower case, as JSON and tests show it.
func (v Verdict) String() string {
	switch v {
	case Negligible:
		return "negligible"
	case Positive:
		return "positive"
	case Negative:
		return "negative"
	}
	return "inconclusive"
}

// Conclusion is the verdict on one interval and, when it is Inconclusive,
// what would make it conclusive.
type Conclusion struct {
	Verdict Verdict
	// Center, Lo and Hi are the estimate and its interval, in the
	// caller's unit; Margin the half-width of the "does not matter" band.
	Center, Lo, Hi, Margin float64
	// HalfWidth is (Hi-Lo)/2.
	HalfWidth float64
	// NeedHalfWidth is the largest half-width, around the same center,
	// that would give a verdict other than Inconclusive: the smaller of
	// the shrinks to exclude 0 (|Center|) and to fit within the margin
	// (Margin-|Center|, when positive). 0 for a center of exactly 0 with
	// no margin; equal to HalfWidth when the verdict is not Inconclusive.
	NeedHalfWidth float64
	// Shrink is NeedHalfWidth/HalfWidth, in (0, 1] (1 when conclusive, 0
	// when no shrink suffices).
	Shrink float64
	// TrialsFactor is how many times the children would have to be
	// multiplied to shrink the interval that much, if it shrinks with
	// the square root of their number: 1/Shrink². +Inf when no shrink
	// suffices.
	TrialsFactor float64
}

// Conclude returns the verdict an interval [lo, hi] around center
// supports against ±margin (margin ≥ 0, in the same unit), and, when it is
// Inconclusive, how far the interval would have to shrink. NaN bounds give
// Inconclusive with no shrink that suffices.
func Conclude(center, lo, hi, margin float64) Conclusion {
	c := Conclusion{Center: center, Lo: lo, Hi: hi, Margin: margin, HalfWidth: (hi - lo) / 2, Shrink: 1, TrialsFactor: 1}
	switch {
	case math.IsNaN(lo) || math.IsNaN(hi) || math.IsNaN(center):
		c.Verdict, c.Shrink, c.TrialsFactor = Inconclusive, 0, math.Inf(1)
		return c
	case lo >= -margin && hi <= margin:
		c.Verdict = Negligible
	case lo > 0:
		c.Verdict = Positive
	case hi < 0:
		c.Verdict = Negative
	default:
		c.Verdict = Inconclusive
	}
	if c.Verdict != Inconclusive {
		c.NeedHalfWidth = c.HalfWidth
		return c
	}
	a := math.Abs(center)
	need := a // exclude 0
	if w := margin - a; w > need {
		need = w // fit within the margin
	}
	c.NeedHalfWidth = need
	if need <= 0 || c.HalfWidth <= 0 {
		c.Shrink, c.TrialsFactor = 0, math.Inf(1)
		return c
	}
	c.Shrink = math.Min(1, need/c.HalfWidth)
	c.TrialsFactor = 1 / (c.Shrink * c.Shrink)
	return c
}
