package stats

import "math"

// Paired children: every measuring child times the workload twice on the
// same thread and CPU, first without filters (its own baseline b_i), then
// with its stack installed (y_i). The stack model is fitted to the ratio
//
//	y_i / b_i = β₀ + β_E·[N_i ≥ 1] + β_F·N_i + δ·(Seq_i − mean Seq) + ε_i
//
// so β_F is the per-filter cost as a fraction of the bare op measured in
// the same children, and β₀ (≈ 1) absorbs whatever the second timing of a
// child differs from its first without filters. A host that runs a few
// per cent faster or slower, for one child, one block or the whole run,
// multiplies y_i and b_i alike and cancels in the ratio; an additive
// disturbance of one timing does not cancel, in a ratio or a difference.
// docs/methodology.md ("Paired children") gives the simulation and the
// measurements behind choosing the ratio over the difference y_i − b_i.
//
// The ns figures are the ratios times B̄, the mean of the children's own
// baselines: PerFilter = β_F·B̄. B̄ carries the host's speed during the run,
// and its uncertainty comes from the run's time order: with K blocks and
// block means m_k of the baselines, SE(B̄) = sd(m_k)/√K on K − 1 degrees
// of freedom, so a host whose speed moved between parts of the run widens
// the ns interval by that much. By the delta method
//
//	SE(β_F·B̄)² = B̄²·SE(β_F)² + β_F²·SE(B̄)²
//
// with Welch–Satterthwaite degrees of freedom. What the run cannot see
// inside itself (a host that runs at one speed for the whole run) moves
// the ns figure and not the relative one; BareSegmentSD states how much
// the speed moved within the run.

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

// toNs turns a paired fit's relative coefficients (fractions of the bare
// op) into ns/op with B̄ from obs, keeping the relative ones in the Rel
// fields. entrySE and entryDF are the entry coefficient's OLS standard
// error and degrees of freedom.
func (f *Fit) toNs(obs []Observation, entrySE, entryDF, confidence float64) {
	bare, seB, dfB, segSD := bareLevel(obs)
	f.BareNs, f.BareSegmentSD = bare, segSD
	f.PerFilterRel, f.PerFilterRelLo, f.PerFilterRelHi = f.PerFilter, f.PerFilterLo, f.PerFilterHi
	f.EntryRel, f.EntryRelLo, f.EntryRelHi = f.Entry, f.EntryLo, f.EntryHi
	if math.IsNaN(seB) {
		seB, dfB = 0, 1
	}
	v, se, df := productSE(f.PerFilter, f.PerFilterSE, f.PerFilterDF, bare, seB, dfB)
	f.PerFilter, f.PerFilterSE, f.PerFilterDF = v, se, df
	f.PerFilterLo, f.PerFilterHi = halfInterval(v, se, df, confidence)
	if !math.IsNaN(f.Entry) {
		v, se, df := productSE(f.Entry, entrySE, entryDF, bare, seB, dfB)
		f.Entry = v
		f.EntryLo, f.EntryHi = halfInterval(v, se, df, confidence)
	}
	f.Baseline *= bare
	f.Drift, f.DriftLo, f.DriftHi = f.Drift*bare, f.DriftLo*bare, f.DriftHi*bare
	f.PlacementSD *= bare
	f.BlockSD *= bare
}

// halfInterval returns v ± t(1-α/2, df)·se, NaN bounds without an SE.
func halfInterval(v, se, df, confidence float64) (lo, hi float64) {
	if math.IsNaN(se) || !(df >= 1) {
		return math.NaN(), math.NaN()
	}
	hw := tQuantile(confidence, df) * se
	return v - hw, v + hw
}
