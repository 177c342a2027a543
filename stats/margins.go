package stats

// Margins are the decision margins of the conclusions a report states:
// how small an effect must be to count as one that does not matter. They
// belong to the statistics (a verdict is an interval against a margin,
// [Conclude]), not to the wording that reports it. A zero field means its
// default (see [DefaultMargins]).
type Margins struct {
	// PerFilterFloorNs is the per-filter cost, in ns per op, below which a
	// filter counts as free. Default 2.
	PerFilterFloorNs float64
	// PerFilterFraction is the same margin as a fraction of the baseline,
	// used when it is larger than the floor (hosts where one syscall costs
	// more than 1 µs). Default 0.002 (0.2 %).
	PerFilterFraction float64
	// EntryFloorNs is the entry cost, in ns per op, below which turning
	// filtering on counts as free. Default 5.
	EntryFloorNs float64
	// EntryFraction is the same margin as a fraction of the baseline, used
	// when it is larger than the floor. Default 0.005 (0.5 %).
	EntryFraction float64
	// ControlNoisePct is how far, in percent, the control loop's
	// after/before ratio swings between runs on an idle machine with no
	// mitigation at all (this project's VM: −10.3 % to +5.7 %, CIs up to
	// ±4.4 points). Only a slowdown whose interval lies above it is
	// attributed to a mitigation. Default 15.
	ControlNoisePct float64
	// LowR2 is the R² under which a fitted line is said to explain almost
	// none of the spread between children. Default 0.1.
	LowR2 float64
}

// DefaultMargins returns the default [Margins].
func DefaultMargins() Margins {
	return Margins{PerFilterFloorNs: 2, PerFilterFraction: 0.002, EntryFloorNs: 5, EntryFraction: 0.005, ControlNoisePct: 15, LowR2: 0.1}
}

// withDefaults fills zero (or invalid) fields with their defaults.
func (m Margins) withDefaults() Margins {
	d := DefaultMargins()
	for _, f := range []struct{ v, def *float64 }{
		{&m.PerFilterFloorNs, &d.PerFilterFloorNs}, {&m.PerFilterFraction, &d.PerFilterFraction},
		{&m.EntryFloorNs, &d.EntryFloorNs}, {&m.EntryFraction, &d.EntryFraction},
		{&m.ControlNoisePct, &d.ControlNoisePct}, {&m.LowR2, &d.LowR2},
	} {
		if !(*f.v > 0) {
			*f.v = *f.def
		}
	}
	return m
}

// PerFilter returns the per-filter margin, in ns per op, for a baseline of
// baselineNs ns per op: the larger of the floor and the fraction.
func (m Margins) PerFilter(baselineNs float64) float64 {
	m = m.withDefaults()
	return max(m.PerFilterFloorNs, m.PerFilterFraction*baselineNs)
}

// Entry returns the entry margin, in ns per op, for a baseline of
// baselineNs ns per op: the larger of the floor and the fraction.
func (m Margins) Entry(baselineNs float64) float64 {
	m = m.withDefaults()
	return max(m.EntryFloorNs, m.EntryFraction*baselineNs)
}

// Control returns the control-loop noise band in percent.
func (m Margins) Control() float64 { return m.withDefaults().ControlNoisePct }

// LowFit reports whether a fit's r2 is below the LowR2 margin.
func (m Margins) LowFit(r2 float64) bool { return r2 < m.withDefaults().LowR2 }

// ConcludePerFilter is [Conclude] on a per-filter cost interval (in ns per
// op) against [Margins.PerFilter] of baselineNs.
func (m Margins) ConcludePerFilter(center, lo, hi, baselineNs float64) Conclusion {
	return Conclude(center, lo, hi, m.PerFilter(baselineNs))
}

// ConcludeEntry is [Conclude] on an entry cost interval (in ns per op)
// against [Margins.Entry] of baselineNs.
func (m Margins) ConcludeEntry(center, lo, hi, baselineNs float64) Conclusion {
	return Conclude(center, lo, hi, m.Entry(baselineNs))
}

// ConcludeControl is [Conclude] on a control-loop slowdown interval (in
// percent) against the ControlNoisePct band.
func (m Margins) ConcludeControl(center, lo, hi float64) Conclusion {
	return Conclude(center, lo, hi, m.Control())
}
