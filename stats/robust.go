package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	moremath "github.com/aclements/go-moremath/stats"
)

// Robust summarizes xs (ns/op) without assuming a distribution: center =
// median, interval = percentile bootstrap of the median (Efron & Tibshirani
// 1993, ch. 13) from 10000 resamples (the default [Thresholds].Resamples,
// linear interpolation between order statistics) drawn with a
// PCG generator seeded by seed, so the same input and seed always give the
// same interval. Fewer than 2 samples or an invalid confidence give NaN
// bounds; fewer than MinRobustSamples (10) give a warning, because the
// bootstrap distribution of a median from few values is coarse and its
// interval undercovers.
func Robust(xs []float64, confidence float64, seed uint64) Summary {
	return robust(xs, confidence, seed, DefaultThresholds())
}

func robust(xs []float64, confidence float64, seed uint64, th Thresholds) Summary {
	s, ok := describe(xs, confidence, th)
	s.Center = s.Median
	if !ok {
		return s
	}
	if s.N < th.MinRobustSamples {
		s.Warnings = append(s.Warnings, fmt.Sprintf("only %d samples; a bootstrap interval of the median needs at least %d", s.N, th.MinRobustSamples))
	}
	r := newRand(seed)
	buf := make([]float64, s.N)
	meds := make([]float64, th.Resamples)
	for i := range meds {
		meds[i] = resampleMedian(r, xs, buf)
	}
	s.Lo, s.Hi = percentileInterval(meds, confidence)
	return s
}

// RobustDiff estimates median(x) - median(base) with a percentile bootstrap
// interval (both samples resampled independently 10000 times, the default
// [Thresholds].Resamples, seeded by seed) and the two-sided [MannWhitney]
// p-value.
// Pct is relative to median(base); see [Diff] for its interval. DF is NaN.
// Either sample with fewer than 2 values, or an invalid confidence, gives
// NaN bounds with a warning.
func RobustDiff(base, x []float64, confidence float64, seed uint64) Diff {
	return robustDiff(base, x, confidence, seed, DefaultThresholds())
}

func robustDiff(base, x []float64, confidence float64, seed uint64, th Thresholds) Diff {
	d := newDiff(len(base), len(x), confidence, th)
	if d.N1 == 0 || d.N2 == 0 {
		return d
	}
	mb := Median(base)
	d.Delta = Median(x) - mb
	d.P = MannWhitney(base, x)
	if err := CheckConfidence(confidence); err != nil {
		d.Warnings = append(d.Warnings, err.Error())
	} else if d.N1 >= 2 && d.N2 >= 2 {
		r := newRand(seed)
		b1, b2 := make([]float64, d.N1), make([]float64, d.N2)
		deltas := make([]float64, th.Resamples)
		for i := range deltas {
			deltas[i] = resampleMedian(r, x, b2) - resampleMedian(r, base, b1)
		}
		d.Lo, d.Hi = percentileInterval(deltas, confidence)
	}
	d.setPct(mb)
	return d
}

// newRand returns a deterministic PCG generator for seed.
func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// resampleMedian draws len(xs) values from xs with replacement into buf and
// returns their median.
func resampleMedian(r *rand.Rand, xs, buf []float64) float64 {
	for i := range buf {
		buf[i] = xs[r.IntN(len(xs))]
	}
	slices.Sort(buf)
	return medianSorted(buf)
}

// percentileInterval sorts stats in place and returns its (1-c)/2 and
// 1-(1-c)/2 quantiles, linearly interpolated.
func percentileInterval(stats []float64, confidence float64) (lo, hi float64) {
	slices.Sort(stats)
	a := (1 - confidence) / 2
	return quantileSorted(stats, a), quantileSorted(stats, 1-a)
}

// quantileSorted returns the p-quantile of sorted s, interpolating linearly
// between order statistics (Hyndman & Fan type 7).
func quantileSorted(s []float64, p float64) float64 {
	h := p * float64(len(s)-1)
	i := int(math.Floor(h))
	if i >= len(s)-1 {
		return s[len(s)-1]
	}
	return s[i] + (h-float64(i))*(s[i+1]-s[i])
}

// MannWhitney returns the two-sided p-value of the Mann–Whitney U
// (Wilcoxon rank-sum) test that a and b come from the same distribution,
// by go-moremath's MannWhitneyUTest (the test benchstat uses): the exact
// distribution of U for up to 50 values per sample (25 with ties, where
// it is the exact distribution conditional on the ties, Klotz 1966), the
// normal approximation with tie and continuity correction above
// (R's wilcox.test(a, b, exact=FALSE, correct=TRUE)). Without ties the
// exact p equals R's wilcox.test(a, b); with ties R gives only the
// approximation. NaN if either sample is empty; 1 if all values are
// equal.
func MannWhitney(a, b []float64) (p float64) {
	if len(a) == 0 || len(b) == 0 {
		return math.NaN()
	}
	r, err := moremath.MannWhitneyUTest(a, b, moremath.LocationDiffers)
	if err != nil { // ErrSamplesEqual: every value is the same
		return 1
	}
	return math.Min(1, r.P)
}

// Outliers returns, in ascending order, the indices of xs whose modified
// z-score |0.6745·(x - median)/MAD| exceeds k (Iglewicz & Hoaglin 1993);
// k ≤ 0 means 3.5. MAD is the median absolute deviation from the median.
// When MAD is 0 (more than half the values are equal) it uses the mean
// absolute deviation instead, z = (x - median)/(1.253314·MeanAD); if that is
// 0 too, nothing is an outlier. Outliers are for reporting only: every
// estimator in this package keeps them.
func Outliers(xs []float64, k float64) []int {
	if !(k > 0) {
		k = DefaultThresholds().OutlierK
	}
	if len(xs) < 3 {
		return nil
	}
	med := Median(xs)
	dev := make([]float64, len(xs))
	for i, x := range xs {
		dev[i] = math.Abs(x - med)
	}
	var scale float64 // z = |x - med| / scale
	if mad := Median(dev); mad > 0 {
		scale = mad / 0.6745
	} else {
		var sum float64
		for _, d := range dev {
			sum += d
		}
		scale = 1.253314 * sum / float64(len(dev))
	}
	if scale == 0 {
		return nil
	}
	var out []int
	for i, d := range dev {
		if d/scale > k {
			out = append(out, i)
		}
	}
	return out
}
