package stats

import (
	"math/rand/v2"
	"testing"
)

// Coverage: over 1000 simulated experiments with a fixed PCG seed, a 95 %
// interval must contain the true value in about 95 % of them. The band
// 93–97 % is about ±3 binomial standard errors (√(.95·.05/1000) = 0.69 %);
// it is stricter than 90–99 % so that e.g. a normal instead of a t quantile
// (coverage ≈ 88 % at n = 5) fails. The seeds are fixed, so the test is
// deterministic.
const (
	coverageSims = 1000
	coverageLo   = 0.93
	coverageHi   = 0.97
)

func checkCoverage(t *testing.T, what string, hits int) {
	t.Helper()
	got := float64(hits) / coverageSims
	t.Logf("%s: coverage %.3f", what, got)
	if got < coverageLo || got > coverageHi {
		t.Errorf("%s: coverage %.3f of nominal 0.95; want within [%v, %v]", what, got, coverageLo, coverageHi)
	}
}

func TestCoverageNormalMean(t *testing.T) {
	r := rand.New(rand.NewPCG(101, 0))
	const mu = 1000.0
	hits := 0
	xs := make([]float64, 5)
	for range coverageSims {
		for i := range xs {
			xs[i] = mu + 50*r.NormFloat64()
		}
		s := Normal(xs, 0.95)
		if s.Lo <= mu && mu <= s.Hi {
			hits++
		}
	}
	checkCoverage(t, "Normal mean, n = 5", hits)
}

func TestCoverageWelch(t *testing.T) {
	// Unequal sizes and spreads, where a pooled-variance interval would
	// undercover.
	r := rand.New(rand.NewPCG(102, 0))
	const delta = 150.0
	hits := 0
	base, x := make([]float64, 12), make([]float64, 5)
	for range coverageSims {
		for i := range base {
			base[i] = 1000 + 10*r.NormFloat64()
		}
		for i := range x {
			x[i] = 1000 + delta + 60*r.NormFloat64()
		}
		d := Welch(base, x, 0.95)
		if d.Lo <= delta && delta <= d.Hi {
			hits++
		}
	}
	checkCoverage(t, "Welch difference, n = 12 and 5", hits)
}

func TestCoverageFitStack(t *testing.T) {
	// Three randomized blocks of counts 0..32 with drift and noise.
	r := rand.New(rand.NewPCG(103, 0))
	tr := truth{base: 1000, entry: 200, slope: 20, drift: 1, noise: 25}
	slopeHits, entryHits, driftHits := 0, 0, 0
	for range coverageSims {
		obs := simulate(tr, "defeat", stdCounts, 3, true, r)
		f, err := FitStack(obs, 0.95)
		if err != nil {
			t.Fatalf("FitStack: %v", err)
		}
		if f.PerFilterLo <= tr.slope && tr.slope <= f.PerFilterHi {
			slopeHits++
		}
		if f.EntryLo <= tr.entry && tr.entry <= f.EntryHi {
			entryHits++
		}
		if f.DriftLo <= tr.drift && tr.drift <= f.DriftHi {
			driftHits++
		}
	}
	checkCoverage(t, "FitStack per-filter slope", slopeHits)
	checkCoverage(t, "FitStack entry", entryHits)
	checkCoverage(t, "FitStack drift", driftHits)
}
