package stats

import (
	"errors"
	"fmt"
	"math"
)

// CostModel predicts the time a seccomp stack adds to one syscall, in
// nanoseconds:
//
//	cached syscall (the action cache allows it; no filter runs):  Cached
//	uncached syscall executing E BPF instructions over the stack:  Entry + PerInsn·E
//
// Entry is the fixed cost of running the filters at all (the step from no
// filter to one, beyond the filter's own instructions); PerInsn is the cost
// of one executed instruction, so a filter's cost is proportional to the
// instructions it runs on the syscall. Every parameter carries an interval
// at Confidence (the Confidence fields of the Estimates are not used).
type CostModel struct {
	// Entry is in ns per uncached syscall.
	Entry Estimate
	// PerInsn is in ns per executed BPF instruction.
	PerInsn Estimate
	// Cached is in ns per cached syscall (0 when not measured).
	Cached Estimate
	// Confidence is the confidence level of the intervals, in (0, 1).
	Confidence float64
}

// ErrNoInstructions is returned by NewCostModel when the calibration
// workload executed no instructions per filter, so the per-filter cost
// cannot be converted to a per-instruction cost.
var ErrNoInstructions = errors.New("calibration workload executed no filter instructions")

// NewCostModel builds a CostModel from a calibration fit of the
// cache-defeated variant: entry and perFilter are the fit's entry and
// per-filter coefficients in ns per syscall, insnsPerFilter the mean number
// of BPF instructions each filter of the calibration stack executed for the
// workload's syscalls. PerInsn is perFilter / insnsPerFilter (its interval
// scaled alike); this attributes the whole per-filter cost to instructions,
// including the fixed cost of calling each filter. cached is the cost of a
// cached syscall (Center, Lo and Hi 0 when unmeasured). It returns an error wrapping
// ErrNoInstructions if insnsPerFilter is not positive, or ErrConfidence.
func NewCostModel(entry, perFilter Estimate, insnsPerFilter float64, cached Estimate, confidence float64) (CostModel, error) {
	if err := CheckConfidence(confidence); err != nil {
		return CostModel{}, fmt.Errorf("new cost model: %w", err)
	}
	if !(insnsPerFilter > 0) {
		return CostModel{}, fmt.Errorf("new cost model: %w (%v per filter)", ErrNoInstructions, insnsPerFilter)
	}
	return CostModel{Entry: entry, PerInsn: scaleEstimate(perFilter, 1/insnsPerFilter), Cached: cached, Confidence: confidence}, nil
}

// CostItem is one syscall of a workload for CostModel.Predict.
type CostItem struct {
	// Calls is the number of calls.
	Calls float64
	// Cached reports that the action cache serves the syscall.
	Cached bool
	// Instructions is the number of BPF instructions executed over the
	// whole stack when the filters run (ignored when Cached).
	Instructions float64
}

// CostPrediction is the predicted added time of one CostItem, in ns.
type CostPrediction struct {
	// PerCall is the added time of one call, in ns.
	PerCall Estimate
	// Total is PerCall times Calls, in ns.
	Total Estimate
}

// Predict returns the added time of each item and of all of them, in ns.
//
// Uncertainty: the prediction is linear in the three parameters, so its
// interval half-width is the root sum of squares of each parameter's
// half-width times its weight (the delta method, exact for normally
// distributed estimates), assuming the parameters' errors are independent.
// In an OLS fit the entry and per-filter estimates are negatively
// correlated, so for positive weights this overstates the spread: the
// intervals are conservative. A parameter without an interval (NaN bounds)
// makes every interval that depends on it NaN. The intervals cover the
// parameters' sampling error only, not model error (see docs/estimate.md
// for a measured validation).
func (m CostModel) Predict(items []CostItem) (per []CostPrediction, total Estimate) {
	hwE, hwK, hwC := halfWidth(m.Entry), halfWidth(m.PerInsn), halfWidth(m.Cached)
	var a, b, c float64 // weights of Entry, PerInsn, Cached in the total
	per = make([]CostPrediction, len(items))
	for i, it := range items {
		var v, hw float64
		if it.Cached {
			v, hw = m.Cached.Center, hwC
			c += it.Calls
		} else {
			v = m.Entry.Center + m.PerInsn.Center*it.Instructions
			hw = rss(hwE, weigh(it.Instructions, hwK))
			a += it.Calls
			b += it.Calls * it.Instructions
		}
		per[i].PerCall = Estimate{Center: v, Lo: v - hw, Hi: v + hw, Confidence: m.Confidence}
		per[i].Total = scaleEstimate(per[i].PerCall, it.Calls)
	}
	v := a*m.Entry.Center + b*m.PerInsn.Center + c*m.Cached.Center
	hw := rss(weigh(a, hwE), weigh(b, hwK), weigh(c, hwC))
	return per, Estimate{Center: v, Lo: v - hw, Hi: v + hw, Confidence: m.Confidence}
}

// weigh returns w·hw, and 0 for a zero weight even when hw is NaN: a
// parameter the prediction does not use cannot make it uncertain.
func weigh(w, hw float64) float64 {
	if w == 0 {
		return 0
	}
	return w * hw
}

// rss returns the root of the sum of squares of xs.
func rss(xs ...float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x * x
	}
	return math.Sqrt(s)
}

// halfWidth returns (Hi - Lo) / 2 of e, NaN without an interval.
func halfWidth(e Estimate) float64 { return (e.Hi - e.Lo) / 2 }

// scaleEstimate returns e multiplied by k (k may be negative).
func scaleEstimate(e Estimate, k float64) Estimate {
	lo, hi := e.Lo*k, e.Hi*k
	if lo > hi {
		lo, hi = hi, lo
	}
	e.Center, e.Lo, e.Hi = e.Center*k, lo, hi
	return e
}
