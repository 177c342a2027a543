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
//	uncached syscall, n filters run, E instructions executed:     Entry + PerFilter·n + PerInsn·E
//
// Entry is the fixed cost of running filters at all (the step from no
// filter to one beyond one filter's cost), PerFilter the fixed cost of
// running one more filter (the call into its BPF program), PerInsn the
// cost of one executed BPF instruction. Every parameter carries an interval
// at Confidence; the Confidence fields of the Estimates are not used.
type CostModel struct {
	// Entry is in ns per uncached syscall.
	Entry Estimate
	// PerFilter is in ns per filter run.
	PerFilter Estimate
	// PerInsn is in ns per executed BPF instruction.
	PerInsn Estimate
	// Corr is the correlation of the errors of PerFilter and PerInsn, in
	// [-1, 1]; 0 when they were not estimated together.
	Corr float64
	// Cached is in ns per cached syscall (Center, Lo and Hi 0 when not
	// measured).
	Cached Estimate
	// Confidence is the confidence level of the intervals, in (0, 1).
	Confidence float64
}

// CalibrationPoint is one calibration run: the fit of a cache-defeated
// stack (every filter runs on every syscall) for a workload whose syscalls
// execute InsnsPerFilter instructions in each filter, on average.
type CalibrationPoint struct {
	// Entry and PerFilter are the fit's entry and per-filter coefficients,
	// in ns per syscall, with intervals at the model's confidence.
	Entry, PerFilter Estimate
	// InsnsPerFilter is the mean number of BPF instructions one filter of
	// the calibration stack executes for the workload's syscalls.
	InsnsPerFilter float64
}

// Sentinels of FitCostModel.
var (
	// ErrNoCalibration is returned when there is no calibration point.
	ErrNoCalibration = errors.New("no calibration point")
	// ErrNoInstructions is returned when a calibration workload executed
	// no filter instructions, so no per-instruction cost follows from it.
	ErrNoInstructions = errors.New("calibration workload executed no filter instructions")
)

// FitCostModel derives a CostModel from calibration points.
//
// Entry is the inverse-variance weighted mean of the points' entries
// (half-widths stand in for standard errors: all intervals share one
// confidence level, so the scale cancels).
//
// With points at two or more distinct InsnsPerFilter, PerFilter and PerInsn
// come from a weighted least-squares line through the points' per-filter
// costs, perFilter_j = PerFilter + PerInsn·InsnsPerFilter_j, with weights
// 1/half-width²; their covariance is the inverse of the weighted normal
// matrix (the exact propagation for two points), inflated by χ²/(m−2) when
// more than two points scatter more than their intervals allow; Corr
// carries the correlation. With one instruction count only, the two cannot
// be told apart: the whole per-filter cost is attributed to instructions
// (PerFilter exactly 0, PerInsn = perFilter / InsnsPerFilter), and a
// warning says so; docs/estimate.md measures what that costs in accuracy.
//
// cached is the cost of a cached syscall (all zero when unmeasured). Errors
// wrap ErrNoCalibration, ErrNoInstructions or ErrConfidence.
func FitCostModel(points []CalibrationPoint, cached Estimate, confidence float64) (CostModel, []string, error) {
	m := CostModel{Cached: cached, Confidence: confidence}
	if err := CheckConfidence(confidence); err != nil {
		return m, nil, fmt.Errorf("fit cost model: %w", err)
	}
	if len(points) == 0 {
		return m, nil, fmt.Errorf("fit cost model: %w", ErrNoCalibration)
	}
	for _, p := range points {
		if !(p.InsnsPerFilter > 0) {
			return m, nil, fmt.Errorf("fit cost model: %w (%v per filter)", ErrNoInstructions, p.InsnsPerFilter)
		}
	}
	m.Entry = meanEntry(points, confidence)

	distinct := map[float64]bool{}
	for _, p := range points {
		distinct[p.InsnsPerFilter] = true
	}
	if len(distinct) < 2 {
		w := fitOneCount(&m, points, confidence)
		return m, []string{w}, nil
	}
	warnings, err := fitPerFilterLine(&m, points, confidence)
	if err != nil {
		return m, nil, err
	}
	return m, warnings, nil
}

// meanEntry is the inverse-variance weighted mean of the points' entry
// costs (ns), or their plain mean with a NaN interval when some entry has
// no (or a zero-width) interval.
func meanEntry(points []CalibrationPoint, confidence float64) Estimate {
	var sw, swx float64
	for _, p := range points {
		hw := halfWidth(p.Entry)
		if !(hw > 0) {
			sw, swx = 0, 0
			break
		}
		w := 1 / (hw * hw)
		sw += w
		swx += w * p.Entry.Center
	}
	if sw > 0 {
		c, hw := swx/sw, 1/math.Sqrt(sw)
		return Estimate{Center: c, Lo: c - hw, Hi: c + hw, Confidence: confidence}
	}
	// Some entry has no (or a zero-width) interval: plain mean, no
	// interval.
	c := 0.0
	for _, p := range points {
		c += p.Entry.Center
	}
	c /= float64(len(points))
	return Estimate{Center: c, Lo: math.NaN(), Hi: math.NaN(), Confidence: confidence}
}

// fitOneCount sets m.PerFilter to exactly 0 and m.PerInsn to the whole
// per-filter cost (ns) divided by the one instruction count of the points,
// and returns the warning that says so.
func fitOneCount(m *CostModel, points []CalibrationPoint, confidence float64) string {
	var pf Estimate
	var ins float64
	if len(points) == 1 {
		pf, ins = points[0].PerFilter, points[0].InsnsPerFilter
	} else {
		pf, ins = combineSame(points), points[0].InsnsPerFilter
	}
	m.PerFilter = Estimate{Confidence: confidence}
	m.PerInsn = scaleEstimate(pf, 1/ins)
	m.PerInsn.Confidence = confidence
	return fmt.Sprintf("calibrated at one instruction count only (%.1f per filter): the whole per-filter cost (%.1f ns) is modeled as %.3f ns per instruction, so syscalls that execute far fewer or far more instructions than that are mis-estimated; calibrate at two instruction counts (see docs/estimate.md)",
		ins, pf.Center, m.PerInsn.Center)
}

// fitPerFilterLine sets m.PerFilter, m.PerInsn (ns) and m.Corr from the
// weighted least-squares line perFilter = PerFilter + PerInsn·InsnsPerFilter
// through points at two or more instruction counts, widening the
// intervals by χ²/(m−2) when more than two points scatter more than their
// intervals allow. It returns the warning about such scatter, if large.
func fitPerFilterLine(m *CostModel, points []CalibrationPoint, confidence float64) ([]string, error) {
	var warnings []string
	var s0, s1, s2, t0, t1 float64
	for _, p := range points {
		hw := halfWidth(p.PerFilter)
		if !(hw > 0) {
			return nil, fmt.Errorf("fit cost model: per-filter cost %v has no interval", p.PerFilter.Center)
		}
		w, x, y := 1/(hw*hw), p.InsnsPerFilter, p.PerFilter.Center
		s0 += w
		s1 += w * x
		s2 += w * x * x
		t0 += w * y
		t1 += w * x * y
	}
	det := s0*s2 - s1*s1
	f := (s2*t0 - s1*t1) / det
	k := (s0*t1 - s1*t0) / det
	vf, vk, cov := s2/det, s0/det, -s1/det
	if n := len(points); n > 2 {
		chi2 := 0.0
		for _, p := range points {
			hw := halfWidth(p.PerFilter)
			r := (p.PerFilter.Center - f - k*p.InsnsPerFilter) / hw
			chi2 += r * r
		}
		if s := chi2 / float64(n-2); s > 1 {
			vf, vk, cov = vf*s, vk*s, cov*s
			if math.Sqrt(s) >= 1.5 {
				warnings = append(warnings, fmt.Sprintf("the calibration points scatter %.1f× more than their intervals allow around the per-filter + per-instruction line; intervals widened accordingly", math.Sqrt(s)))
			}
		}
	}
	hf, hk := math.Sqrt(vf), math.Sqrt(vk)
	m.PerFilter = Estimate{Center: f, Lo: f - hf, Hi: f + hf, Confidence: confidence}
	m.PerInsn = Estimate{Center: k, Lo: k - hk, Hi: k + hk, Confidence: confidence}
	m.Corr = cov / (hf * hk)
	return warnings, nil
}

// combineSame is the inverse-variance weighted mean of the points'
// per-filter costs (all at one instruction count).
func combineSame(points []CalibrationPoint) Estimate {
	var sw, swx float64
	for _, p := range points {
		hw := halfWidth(p.PerFilter)
		if !(hw > 0) {
			return points[0].PerFilter
		}
		sw += 1 / (hw * hw)
		swx += p.PerFilter.Center / (hw * hw)
	}
	c, hw := swx/sw, 1/math.Sqrt(sw)
	return Estimate{Center: c, Lo: c - hw, Hi: c + hw}
}

// CostItem is one syscall of a workload for CostModel.Predict.
type CostItem struct {
	// Calls is the number of calls.
	Calls float64
	// Cached reports that the action cache serves the syscall.
	Cached bool
	// Filters is the number of filters that run for the syscall when it is
	// not cached: the whole stack (kernel/seccomp.c: seccomp_run_filters).
	Filters float64
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
// Uncertainty: the prediction is linear in the parameters, so its interval
// half-width follows from the parameters' half-widths by the delta method
// (exact for normally distributed estimates): the root of the sum of the
// squared weighted half-widths plus the PerFilter–PerInsn covariance term
// (Corr). Entry and Cached are taken as independent of the rest. In an OLS
// stack fit, entry and per-filter estimates are negatively correlated, so
// for positive weights this overstates the spread: the intervals are
// conservative. A parameter without an interval (NaN bounds) makes every
// interval that uses it NaN. The intervals cover the calibration's sampling
// error only, not model error (docs/estimate.md measures that).
func (m CostModel) Predict(items []CostItem) (per []CostPrediction, total Estimate) {
	hwE, hwF, hwK, hwC := halfWidth(m.Entry), halfWidth(m.PerFilter), halfWidth(m.PerInsn), halfWidth(m.Cached)
	var a, f, b, c float64 // weights of Entry, PerFilter, PerInsn, Cached in the total
	per = make([]CostPrediction, len(items))
	for i, it := range items {
		var v, hw float64
		if it.Cached {
			v, hw = m.Cached.Center, weigh(1, hwC)
			c += it.Calls
		} else {
			v = m.Entry.Center + m.PerFilter.Center*it.Filters + m.PerInsn.Center*it.Instructions
			hw = m.spread(hwE, weigh(it.Filters, hwF), weigh(it.Instructions, hwK), 0)
			a += it.Calls
			f += it.Calls * it.Filters
			b += it.Calls * it.Instructions
		}
		per[i].PerCall = Estimate{Center: v, Lo: v - hw, Hi: v + hw, Confidence: m.Confidence}
		per[i].Total = scaleEstimate(per[i].PerCall, it.Calls)
	}
	v := a*m.Entry.Center + f*m.PerFilter.Center + b*m.PerInsn.Center + c*m.Cached.Center
	hw := m.spread(weigh(a, hwE), weigh(f, hwF), weigh(b, hwK), weigh(c, hwC))
	return per, Estimate{Center: v, Lo: v - hw, Hi: v + hw, Confidence: m.Confidence}
}

// spread combines weighted half-widths of Entry, PerFilter, PerInsn and
// Cached into the half-width of their sum.
func (m CostModel) spread(e, f, k, c float64) float64 {
	v := e*e + f*f + k*k + c*c
	if f != 0 && k != 0 && m.Corr != 0 {
		v += 2 * m.Corr * f * k
	}
	return math.Sqrt(math.Max(v, 0))
}

// weigh returns w·hw, and 0 for a zero weight even when hw is NaN: a
// parameter the prediction does not use cannot make it uncertain.
func weigh(w, hw float64) float64 {
	if w == 0 {
		return 0
	}
	return w * hw
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

// ReanchorCostModel returns m re-anchored on a measurement of the real
// stack: entry and perFilter are the stack's fit (ns per syscall, cache
// defeated) for a loop syscall whose path executes insns instructions per
// filter. The result keeps m's PerInsn k and Cached and sets Entry = entry
// and PerFilter = perFilter − k·insns, so that a syscall executing x
// instructions per filter costs entry + N·(perFilter + k·(x − insns)): the
// stack's own per-filter cost, shifted by the chain's per-instruction
// slope for paths longer or shorter than the loop's.
//
// perFilter and k come from independent runs, so the new PerFilter's
// half-width is √(hw_a² + insns²·hw_k²) and its correlation with PerInsn
// is −insns·hw_k / hw_f. Half-widths stand in for standard errors (one
// confidence level throughout). Without intervals the result has none.
func ReanchorCostModel(m CostModel, entry, perFilter Estimate, insns float64) CostModel {
	out := m
	out.Entry = Estimate{Center: entry.Center, Lo: entry.Lo, Hi: entry.Hi, Confidence: m.Confidence}
	k, hwK := m.PerInsn.Center, halfWidth(m.PerInsn)
	c := perFilter.Center - k*insns
	hwA := halfWidth(perFilter)
	hw := math.Sqrt(hwA*hwA + insns*insns*hwK*hwK)
	out.PerFilter = Estimate{Center: c, Lo: c - hw, Hi: c + hw, Confidence: m.Confidence}
	out.Corr = 0
	if hw > 0 && hwK > 0 {
		out.Corr = -insns * hwK / hw
	}
	return out
}
