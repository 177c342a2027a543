package stats

import (
	"fmt"
	"math"
)

// Batch is one batch of consecutive samples, e.g. one second of a
// sampling profile: Hits of its Total samples fell in the category whose
// share is estimated (seccomp). Counts may be weighted (non-integer).
type Batch struct {
	Hits, Total float64
}

// ShareThresholds are the limits behind BatchShare's warnings.
type ShareThresholds struct {
	// MinBatches is the number of non-empty batches below which the
	// interval is flagged as unreliable (the t interval's assumption that
	// batch ratios are roughly normal needs several batches).
	MinBatches int
	// MaxLag1 is the lag-1 autocorrelation of the batch residuals above
	// which the batches are flagged as not independent (longer batches
	// would be needed).
	MaxLag1 float64
}

// DefaultShareThresholds are the thresholds BatchShare uses.
var DefaultShareThresholds = ShareThresholds{MinBatches: 10, MaxLag1: 0.5}

// Share is a share estimated from batches, a fraction in [0, 1].
type Share struct {
	// Center is ΣHits / ΣTotal; Lo and Hi bound its interval at
	// Confidence, clipped to [0, 1]. NaN without samples.
	Center, Lo, Hi float64
	// Confidence is the level of [Lo, Hi], a fraction in (0, 1).
	Confidence float64
	// Batches is the number of batches with samples; Hits and Total are
	// the sums over them.
	Batches     int
	Hits, Total float64
	// Lag1 is the lag-1 autocorrelation of the batch residuals
	// Hits_i − Center·Total_i, NaN with fewer than three batches.
	Lag1 float64
	// Warnings say what makes the interval doubtful.
	Warnings []string
}

// BatchShare estimates the share of hits among samples that are not
// independent (successive CPU samples of one thread are strongly
// correlated: a thread in a syscall loop alternates between user and
// kernel far faster than the sampling rate, but a burst of syscall work
// lasts many samples). It uses the method of batch means for a ratio
// (regenerative or "ratio estimator" form): with batch i holding H_i hits
// of T_i samples and R = ΣH/ΣT,
//
//	SE(R) = √( Σ (H_i − R·T_i)² / (k(k−1)) ) / T̄,   T̄ = ΣT/k,
//
// and the interval is R ± t(k−1)·SE(R), clipped to [0, 1]. Batches long
// against the correlation time are nearly independent even when samples
// are not; the lag-1 autocorrelation of the residuals checks that, and a
// warning names it when it exceeds th.MaxLag1.
//
// When no batch has a hit (or every sample is a hit) the residuals are all
// 0 and carry no spread; the bound on the other side is then the exact
// binomial bound for zero events among ΣT samples, 1 − (1−confidence)^(1/ΣT)
// ("rule of three" at 95 %), which treats samples as independent and is
// too narrow by the unknown correlation; a warning says so. Batches with no
// samples are skipped. Too few batches is a warning, not an error.
func BatchShare(batches []Batch, confidence float64) Share {
	return batchShare(batches, confidence, DefaultShareThresholds)
}

func batchShare(batches []Batch, confidence float64, th ShareThresholds) Share {
	s := Share{Center: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Lag1: math.NaN(), Confidence: confidence}
	if err := CheckConfidence(confidence); err != nil {
		s.Warnings = append(s.Warnings, err.Error())
		return s
	}
	var bs []Batch
	for _, b := range batches {
		if b.Total > 0 {
			bs = append(bs, b)
			s.Hits += b.Hits
			s.Total += b.Total
		}
	}
	s.Batches = len(bs)
	if s.Total <= 0 {
		s.Warnings = append(s.Warnings, "no samples")
		return s
	}
	k := float64(len(bs))
	r := s.Hits / s.Total
	s.Center = r
	if s.Batches < th.MinBatches {
		s.Warnings = append(s.Warnings, fmt.Sprintf("only %d batches with samples; the interval needs at least %d (sample longer)", s.Batches, th.MinBatches))
	}
	switch {
	case s.Hits == 0 || s.Hits == s.Total:
		b := 1 - math.Pow(1-confidence, 1/s.Total)
		if s.Hits == 0 {
			s.Lo, s.Hi = 0, b
		} else {
			s.Lo, s.Hi = 1-b, 1
		}
		s.Warnings = append(s.Warnings, fmt.Sprintf("%s of %.0f samples are hits: the bound is the binomial one for independent samples, narrower than the truth", map[bool]string{true: "none", false: "all"}[s.Hits == 0], s.Total))
		return s
	case s.Batches < 2:
		return s
	}
	d := make([]float64, len(bs))
	var ss float64
	for i, b := range bs {
		d[i] = b.Hits - r*b.Total
		ss += d[i] * d[i]
	}
	se := math.Sqrt(ss/(k*(k-1))) / (s.Total / k)
	hw := tQuantile(confidence, k-1) * se
	s.Lo, s.Hi = math.Max(0, r-hw), math.Min(1, r+hw)
	if len(d) >= 3 && ss > 0 {
		var num float64
		for i := 1; i < len(d); i++ {
			num += d[i] * d[i-1]
		}
		s.Lag1 = num / ss
		if s.Lag1 > th.MaxLag1 {
			s.Warnings = append(s.Warnings, fmt.Sprintf("successive batches are correlated (lag-1 autocorrelation %.2f > %.2f): the interval is too narrow; sample longer so batches get longer", s.Lag1, th.MaxLag1))
		}
	}
	return s
}
