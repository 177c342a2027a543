package stats

import "math"

// Accuracy is what a measurement can say about a prediction's relative
// error: whether the true value, which the measured interval holds at
// its confidence, is one for which the prediction is within a relative
// band of it (Judge).
type Accuracy string

const (
	// AccuracyWithin: every value of the measured interval is one the
	// prediction is within the band of; the prediction is within the band
	// of the true value at the measurement's confidence.
	AccuracyWithin Accuracy = "within"
	// AccuracyOutside: no value of the measured interval is; the
	// prediction misses the true value by more than the band, at the
	// measurement's confidence.
	AccuracyOutside Accuracy = "outside"
	// AccuracyUndecided: the measured interval holds values of both
	// kinds: the measurement is too wide to say. A centre-only check
	// (|predicted − measured centre| ≤ band × centre) would decide such
	// rows by the measurement's noise.
	AccuracyUndecided Accuracy = "undecided"
)

// AccuracyBand returns the true values T for which pred is within the
// relative band of T, |pred − T| ≤ band·|T|: [pred/(1+band),
// pred/(1−band)] for pred > 0, the mirror image for pred < 0, and the
// single point 0 for pred = 0. band is a fraction in [0, 1); a band ≥ 1
// has no upper end (hi is +Inf for pred > 0, lo −Inf for pred < 0).
func AccuracyBand(pred, band float64) (lo, hi float64) {
	lo, hi = pred/(1+band), math.Inf(1)
	if band < 1 {
		hi = pred / (1 - band)
	}
	if pred < 0 {
		lo, hi = hi, lo
		if band >= 1 {
			lo = math.Inf(-1)
		}
	}
	return lo, hi
}

// Judge says whether the prediction pred is within band (a fraction,
// e.g. 0.25 for ±25 %) of the value the measured interval [meas.Lo,
// meas.Hi] estimates, judged with the measurement's uncertainty: within
// when the interval lies inside AccuracyBand, outside when it does not
// meet it, undecided otherwise (also for a NaN bound).
func Judge(pred float64, meas Estimate, band float64) Accuracy {
	lo, hi := AccuracyBand(pred, band)
	switch {
	case math.IsNaN(pred) || math.IsNaN(meas.Lo) || math.IsNaN(meas.Hi):
		return AccuracyUndecided
	case meas.Lo >= lo && meas.Hi <= hi:
		return AccuracyWithin
	case meas.Hi < lo || meas.Lo > hi:
		return AccuracyOutside
	}
	return AccuracyUndecided
}

// TimeToHalfWidth projects how much longer a measurement of half-width
// hw must run to reach half-width target: the factor (hw/target)² by
// which its measuring time (and its number of independent units, the
// children) must grow, assuming the half-width shrinks as one over the
// square root of the units, as a mean's standard error does (the
// t quantile's fall with more degrees of freedom is left out, so the
// factor errs long). 1 or less means the target is met; +Inf for a
// target ≤ 0, NaN for a NaN input.
func TimeToHalfWidth(hw, target float64) float64 {
	if math.IsNaN(hw) || math.IsNaN(target) {
		return math.NaN()
	}
	if target <= 0 {
		return math.Inf(1)
	}
	r := hw / target
	return r * r
}
