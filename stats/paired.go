package stats

import "math"

// Paired children: every measuring child times the workload twice on the
// same thread and CPU, first without filters (its own baseline b_i), then
// with its stack installed (y_i). A host that runs a few per cent faster
// or slower for one child or one block multiplies both:
//
//	b_i = h_i·bare + e₁,   y_i = h_i·(bare + E·[N_i ≥ 1] + F·N_i) + e₂
//
// With δ_i = b_i/b̄ − 1 (b̄ the mean of the baselines) this is, to first
// order, the stack model plus three covariates,
//
//	y_i = β₀ + β_E·[N_i ≥ 1] + β_F·N_i + δ·(Seq_i − mean Seq)
//	      + γ₀·δ_i + γ_E·δ_i·[N_i ≥ 1] + γ_F·δ_i·N_i + ε_i,
//
// fitted by OLS (analysis of covariance with the pre-treatment
// measurement as covariate; Senn 2006). β_F is the per-filter cost at the
// children's mean speed. The difference y_i − b_i fixes γ₀ = b̄, γ_E =
// γ_F = 0 and leaves the speed's share on the added part; the ratio
// y_i/b_i fixes all three at the noiseless values and multiplies the
// baseline's own timing noise by y_i/b_i (10× at 32 filters on getpid).
// Estimating them lets the run decide how much of b_i's spread is speed:
// with pure timing noise the γ come out near 0 and the fit is as good as
// the unpaired one; with a moving host speed it removes it, better than
// the difference. TestPairedRatioVersusDifference shows both cases;
// docs/methodology-variation.md ("Paired children") has the figures.
//
// Randomization makes δ_i independent of N_i, so adjusting for it changes
// the precision of β_F, not its expectation.
//
// b̄ carries the host's speed during the run, and so does β_F. Its
// uncertainty comes from the run's time order: with K blocks and block
// means m_k of the baselines, SE(b̄) = sd(m_k)/√K on K − 1 degrees of
// freedom. The ns interval adds β_F·SE(b̄)/b̄ in quadrature (delta method,
// Welch–Satterthwaite degrees of freedom): a host whose speed moved
// between parts of the run widens it by that much. The relative figure
// PerFilterRel = β_F/b̄ is a ratio of two estimates from the same children,
// in which the speed cancels; its interval uses the children's SE of b̄.
// What the run cannot see inside itself (a host that runs at one speed
// for the whole run) moves the ns figure and not the relative one;
// BareSegmentSD states how much the speed moved within the run.

// paired reports whether every observation has its own baseline.
func paired(obs []Observation) bool {
	for _, o := range obs {
		if !(o.BaselineNs > 0) {
			return false
		}
	}
	return len(obs) > 0
}

// bareLevel returns the mean of obs' own baselines in ns/op, its standard
// error and degrees of freedom from the block means (time order), and the
// block means' SD as a fraction of the mean (NaN with fewer than two
// blocks, when the SE falls back to the children's SD over √n).
func bareLevel(obs []Observation) (mean, se, df, segSD float64) {
	sums := map[int]float64{}
	counts := map[int]int{}
	for _, o := range obs {
		mean += o.BaselineNs
		sums[o.Block] += o.BaselineNs
		counts[o.Block]++
	}
	n := float64(len(obs))
	mean /= n
	if len(sums) < 2 {
		var ss float64
		for _, o := range obs {
			ss += (o.BaselineNs - mean) * (o.BaselineNs - mean)
		}
		if len(obs) < 2 {
			return mean, math.NaN(), math.NaN(), math.NaN()
		}
		return mean, math.Sqrt(ss / (n - 1) / n), n - 1, math.NaN()
	}
	k := float64(len(sums))
	var mm, ss float64
	for b, s := range sums {
		mm += s / float64(counts[b])
	}
	mm /= k
	for b, s := range sums {
		d := s/float64(counts[b]) - mm
		ss += d * d
	}
	sd := math.Sqrt(ss / (k - 1))
	return mean, sd / math.Sqrt(k), k - 1, sd / mean
}

// productSE returns c·m with the standard error of the product of two
// independent estimates (delta method) and its Welch–Satterthwaite
// degrees of freedom: c with (seC, dfC), m with (seM, dfM).
func productSE(c, seC, dfC, m, seM, dfM float64) (v, se, df float64) {
	va, vb := m*m*seC*seC, c*c*seM*seM
	v, se = c*m, math.Sqrt(va+vb)
	switch {
	case vb == 0 || math.IsNaN(vb):
		return v, math.Sqrt(va), dfC
	case va == 0:
		return v, se, dfM
	}
	df = (va + vb) * (va + vb) / (va*va/dfC + vb*vb/dfM)
	return v, se, df
}

// relative adds the relative figures of a paired fit (fractions of b̄, the
// mean of obs' own baselines) and widens its ns intervals by the
// time-order uncertainty of b̄ (see above). entrySE and entryDF are the
// entry coefficient's OLS standard error and degrees of freedom.
func (f *Fit) relative(obs []Observation, entrySE, entryDF, confidence float64) {
	bare, seB, dfB, segSD := bareLevel(obs)
	f.BareNs, f.BareSegmentSD = bare, segSD
	// The children's own SE of b̄, for the relative figures.
	var ss float64
	for _, o := range obs {
		ss += (o.BaselineNs - bare) * (o.BaselineNs - bare)
	}
	n := float64(len(obs))
	seIID := math.Sqrt(ss / (n - 1) / n)
	if math.IsNaN(seB) {
		seB, dfB = seIID, n-1
	}
	conv := func(c, se, df float64) (rel, relLo, relHi, ns, nsSE, nsDF float64) {
		r, rse, rdf := productSE(c, se, df, 1/bare, seIID/(bare*bare), n-1)
		rel = r
		relLo, relHi = halfInterval(r, rse, rdf, confidence)
		ns, nsSE, nsDF = productSE(c, se, df, 1, seB/bare, dfB)
		return
	}
	var lo, hi float64
	var se, df float64
	f.PerFilterRel, f.PerFilterRelLo, f.PerFilterRelHi, _, se, df = conv(f.PerFilter, f.PerFilterSE, f.PerFilterDF)
	if lo, hi = halfInterval(f.PerFilter, se, df, confidence); !math.IsNaN(lo) {
		f.PerFilterSE, f.PerFilterDF = se, df
		f.PerFilterLo, f.PerFilterHi = lo, hi
	}
	if !math.IsNaN(f.Entry) {
		f.EntryRel, f.EntryRelLo, f.EntryRelHi, _, se, df = conv(f.Entry, entrySE, entryDF)
		if lo, hi = halfInterval(f.Entry, se, df, confidence); !math.IsNaN(lo) {
			f.EntryLo, f.EntryHi = lo, hi
		}
	}
}

// halfInterval returns v ± t(1-α/2, df)·se, NaN bounds without an SE.
func halfInterval(v, se, df, confidence float64) (lo, hi float64) {
	if math.IsNaN(se) || !(df >= 1) {
		return math.NaN(), math.NaN()
	}
	hw := tQuantile(confidence, df) * se
	return v - hw, v + hw
}
