package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Estimate is a point estimate in ns/op with a two-sided interval [Lo, Hi]
// at level Confidence, e.g. a [Fit]'s PerFilter as stored in a result file.
type Estimate struct {
	Center, Lo, Hi float64
	// Confidence is the level of [Lo, Hi], a fraction in (0, 1).
	Confidence float64
}

// DiffIndependent estimates x.Center - base.Center for two independent
// estimates known only by their centers and intervals, e.g. the per-filter
// slopes of two separate runs. It uses a normal approximation: each
// interval is read as Center ± z·SE with z the standard normal quantile of
// its own level, so SE = half-width / z; the difference has SE = √(SE₁² +
// SE₂²), its interval is Delta ± z·SE at confidence, and P is the two-sided
// normal p-value of Delta/SE. When an interval came from a t distribution
// (as [FitStack]'s do), half-width / z overstates its SE, so the combined
// interval is conservative (too wide), never too narrow. With equal levels
// the combined half-width is √(h₁² + h₂²).
//
// DF is +Inf (normal). Pct is relative to base.Center. A missing (NaN) or
// negative-width interval, or an invalid level, gives NaN bounds and P with
// a warning.
func DiffIndependent(base, x Estimate, confidence float64) Diff {
	nan := math.NaN()
	d := Diff{Delta: x.Center - base.Center, Lo: nan, Hi: nan, P: nan, DF: math.Inf(1), Confidence: confidence}
	d.Pct, d.PctLo, d.PctHi = nan, nan, nan
	defer d.setPct(base.Center)
	for _, c := range []float64{confidence, base.Confidence, x.Confidence} {
		if err := CheckConfidence(c); err != nil {
			d.Warnings = append(d.Warnings, err.Error())
			return d
		}
	}
	se1, ok1 := seFromInterval(base)
	se2, ok2 := seFromInterval(x)
	if !ok1 || !ok2 {
		d.Warnings = append(d.Warnings, fmt.Sprintf("an estimate has no interval (base [%g, %g], other [%g, %g]); the difference has none", base.Lo, base.Hi, x.Lo, x.Hi))
		return d
	}
	se := math.Hypot(se1, se2)
	if se == 0 {
		d.Lo, d.Hi = d.Delta, d.Delta
		d.P = 0
		if d.Delta == 0 {
			d.P = 1
		}
		d.Warnings = append(d.Warnings, "both intervals have zero width; the difference's interval is a point")
		return d
	}
	half := ZQuantile(confidence) * se
	d.Lo, d.Hi = d.Delta-half, d.Delta+half
	d.P = 2 * distuv.UnitNormal.Survival(math.Abs(d.Delta)/se)
	return d
}

// seFromInterval reads an interval as Center ± z·SE and returns SE.
func seFromInterval(e Estimate) (float64, bool) {
	h := (e.Hi - e.Lo) / 2
	if math.IsNaN(h) || math.IsInf(h, 0) || h < 0 {
		return 0, false
	}
	return h / ZQuantile(e.Confidence), true
}

// ZQuantile is the two-sided standard normal critical value at
// confidence (a fraction in (0, 1)): 1.96 at 0.95, 2.576 at 0.99.
func ZQuantile(confidence float64) float64 {
	return distuv.UnitNormal.Quantile(1 - (1-confidence)/2)
}
