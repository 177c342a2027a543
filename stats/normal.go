package stats

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Summary describes one sample (for example one cell's children) in
// nanoseconds per op.
type Summary struct {
	// N is the number of samples.
	N int
	// Mean, Median and StdDev (sample standard deviation, n-1 divisor) are
	// always filled; StdDev is NaN below 2 samples, all are NaN for none.
	Mean, Median, StdDev float64
	// Center is the estimate the interval belongs to: Mean for [Normal],
	// Median for [Robust].
	Center float64
	// Lo and Hi bound the confidence interval of Center; NaN when no
	// interval can be computed (fewer than 2 samples, invalid confidence).
	Lo, Hi float64
	// Confidence is the nominal confidence level of [Lo, Hi] as a fraction.
	Confidence float64
	// Warnings explain why the interval may be unreliable or absent.
	Warnings []string
}

// HalfWidth returns half the width of the interval in ns/op, NaN if there is
// none. A caller stopping adaptively compares it with a target precision.
func (s Summary) HalfWidth() float64 { return (s.Hi - s.Lo) / 2 }

// RelHalfWidth returns HalfWidth divided by |Center| (a fraction, 0.01 =
// 1 %), +Inf if Center is 0 and NaN if there is no interval.
func (s Summary) RelHalfWidth() float64 { return s.HalfWidth() / math.Abs(s.Center) }

// Normal summarizes xs (ns/op) assuming the mean is approximately normally
// distributed: center = mean, interval = mean ± t(1-α/2, n-1)·s/√n
// (Student 1908). An invalid confidence (not in (0, 1)) or fewer than 2
// samples give NaN bounds and a warning; fewer than 3 samples give a warning.
func Normal(xs []float64, confidence float64) Summary {
	return normal(xs, confidence, DefaultThresholds())
}

func normal(xs []float64, confidence float64, th Thresholds) Summary {
	s, ok := describe(xs, confidence, th)
	s.Center = s.Mean
	if !ok {
		return s
	}
	half := tQuantile(confidence, float64(s.N-1)) * s.StdDev / math.Sqrt(float64(s.N))
	s.Lo, s.Hi = s.Mean-half, s.Mean+half
	if s.StdDev == 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("all %d samples are equal; the interval has zero width", s.N))
	}
	return s
}

// describe fills N, Mean, Median, StdDev, Confidence and sample-size
// warnings, sets Lo and Hi to NaN and warns about an invalid confidence,
// leaving the center and interval to the caller. ok reports whether an
// interval can be computed: a valid confidence and at least 2 samples.
func describe(xs []float64, confidence float64, th Thresholds) (s Summary, ok bool) {
	s = Summary{N: len(xs), Confidence: confidence, Lo: math.NaN(), Hi: math.NaN()}
	switch {
	case s.N == 0:
		s.Mean, s.Median, s.StdDev = math.NaN(), math.NaN(), math.NaN()
		s.Warnings = append(s.Warnings, fmt.Sprintf("no samples; need at least %d", th.MinSamples))
	case s.N == 1:
		s.Mean, s.Median, s.StdDev = xs[0], xs[0], math.NaN()
	default:
		s.Mean, s.StdDev = stat.MeanStdDev(xs, nil)
		s.Median = Median(xs)
	}
	if s.N > 0 && s.N < th.MinSamples {
		s.Warnings = append(s.Warnings, fmt.Sprintf("only %d samples; need at least %d for a usable interval", s.N, max(th.MinSamples, 2)))
	}
	if err := CheckConfidence(confidence); err != nil {
		s.Warnings = append(s.Warnings, err.Error())
		return s, false
	}
	return s, s.N >= 2
}

// Median returns the median of xs (the mean of the two middle values for
// even n), NaN for none. xs is not modified.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return medianSorted(s)
}

// UpperMedian returns the upper median of xs: the element at index n/2 of
// xs sorted, the middle one for odd n and the larger of the two middle
// ones for even n, so that it is always one of xs (a whole number of
// nanoseconds stays one). It returns 0 for none; xs is not modified.
func UpperMedian(xs []int64) int64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func medianSorted(s []float64) float64 {
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// tQuantile returns the two-sided critical value t(1-(1-confidence)/2, df).
func tQuantile(confidence, df float64) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(1 - (1-confidence)/2)
}

// tTwoSidedP returns the two-sided p-value of a t statistic with df degrees
// of freedom.
func tTwoSidedP(t, df float64) float64 {
	return 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Survival(math.Abs(t))
}

// Diff compares a sample x with a baseline sample base: Delta = center(x) -
// center(base), in ns/op.
type Diff struct {
	// Delta is the difference of centers in ns/op; Lo and Hi bound its
	// confidence interval.
	Delta, Lo, Hi float64
	// Pct, PctLo and PctHi are Delta, Lo and Hi in percent of the baseline's
	// center. The interval is the delta interval divided by the baseline
	// center, treating that divisor as exact; the error this ignores is of
	// the order of the baseline's relative standard error (see
	// docs/methodology.md). NaN if the baseline center is not positive.
	Pct, PctLo, PctHi float64
	// P is the two-sided p-value of "no difference"; a small P says the
	// difference is unlikely to be noise, not that it is large.
	P float64
	// DF is the Welch–Satterthwaite degrees of freedom ([Welch]); NaN for
	// [RobustDiff].
	DF float64
	// Confidence is the nominal confidence level of the intervals.
	Confidence float64
	// N1 and N2 are the sample sizes of base and x.
	N1, N2 int
	// Warnings explain why intervals may be unreliable or absent.
	Warnings []string
}

// HalfWidth returns half the width of the delta interval in ns/op.
func (d Diff) HalfWidth() float64 { return (d.Hi - d.Lo) / 2 }

// Significant reports whether the interval excludes zero, which for [Welch]
// is equivalent to P < 1 - Confidence.
func (d Diff) Significant() bool { return d.Lo > 0 || d.Hi < 0 }

// Welch estimates mean(x) - mean(base) with Welch's unequal-variance
// interval: Delta ± t(1-α/2, ν)·SE, SE = √(s₁²/n₁ + s₂²/n₂), and the
// Welch–Satterthwaite degrees of freedom
//
//	ν = SE⁴ / ((s₁²/n₁)²/(n₁-1) + (s₂²/n₂)²/(n₂-1))
//
// (Welch 1947, Satterthwaite 1946). P is the two-sided p-value of t =
// Delta/SE. Pct is relative to mean(base); see [Diff] for its interval.
// Either sample with fewer than 2 values, or an invalid confidence, gives
// NaN bounds and P with a warning. If both samples are constant the interval
// is the point Delta, P is 1 (equal means) or 0, and a warning says so.
func Welch(base, x []float64, confidence float64) Diff {
	return welch(base, x, confidence, DefaultThresholds())
}

func welch(base, x []float64, confidence float64, th Thresholds) (d Diff) {
	d = newDiff(len(base), len(x), confidence, th)
	nan := math.NaN()
	if d.N1 == 0 || d.N2 == 0 {
		return d
	}
	m1, v1 := stat.MeanVariance(base, nil)
	m2, v2 := stat.MeanVariance(x, nil)
	if d.N1 == 1 {
		m1, v1 = base[0], nan
	}
	if d.N2 == 1 {
		m2, v2 = x[0], nan
	}
	d.Delta = m2 - m1
	defer d.setPct(m1) // d is the named result, so the deferred call updates what is returned
	if err := CheckConfidence(confidence); err != nil {
		d.Warnings = append(d.Warnings, err.Error())
		return d
	}
	if d.N1 < 2 || d.N2 < 2 {
		return d
	}
	a, b := v1/float64(d.N1), v2/float64(d.N2)
	se := math.Sqrt(a + b)
	if se == 0 {
		d.Lo, d.Hi = d.Delta, d.Delta
		d.DF = float64(d.N1 + d.N2 - 2)
		d.P = 0
		if d.Delta == 0 {
			d.P = 1
		}
		d.Warnings = append(d.Warnings, "both samples are constant; the interval has zero width")
		return d
	}
	d.DF = (a + b) * (a + b) / (a*a/float64(d.N1-1) + b*b/float64(d.N2-1))
	half := tQuantile(confidence, d.DF) * se
	d.Lo, d.Hi = d.Delta-half, d.Delta+half
	d.P = tTwoSidedP(d.Delta/se, d.DF)
	return d
}

// setPct fills the percentage fields relative to the baseline center c.
func (d *Diff) setPct(c float64) {
	if !(c > 0) {
		return
	}
	d.Pct, d.PctLo, d.PctHi = 100*d.Delta/c, 100*d.Lo/c, 100*d.Hi/c
}

// newDiff returns the Diff of a baseline of n1 and a sample of n2 values
// before anything is estimated: every number NaN, sample-size warnings.
func newDiff(n1, n2 int, confidence float64, th Thresholds) Diff {
	nan := math.NaN()
	return Diff{
		Delta: nan, Lo: nan, Hi: nan, P: nan, DF: nan,
		Pct: nan, PctLo: nan, PctHi: nan,
		N1: n1, N2: n2, Confidence: confidence,
		Warnings: sizeWarnings(n1, n2, th.MinSamples),
	}
}

// sizeWarnings warns about too few samples in a two-sample comparison.
func sizeWarnings(n1, n2, min int) []string {
	var w []string
	need := max(min, 2)
	if n1 < need {
		w = append(w, fmt.Sprintf("baseline has %d samples; need at least %d", n1, need))
	}
	if n2 < need {
		w = append(w, fmt.Sprintf("sample has %d samples; need at least %d", n2, need))
	}
	return w
}
