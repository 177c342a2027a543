package report

import (
	"fmt"
	"math"
)

// Number formats of the estimate text: a value and its interval share unit
// and decimals, percentages keep 3 significant digits, and a missing
// (nil) number prints as "-" or "[no CI]".

// fmtNs formats a time in ns with a unit that keeps 3-4 significant digits.
func fmtNs(ns float64) string { return nsFormatter(ns)(ns) }

// nsFormatter returns a formatter that writes times in ns in ref's unit
// (s, ms, µs or ns) with the decimals that give ref 3 (s, ns) or 4 (ms, µs)
// significant digits, so that a value and its CI bounds share unit and
// decimals: "26.05 ms [24.60 ms, 27.49 ms]".
func nsFormatter(ref float64) func(float64) string {
	scale, unit, sig := 1.0, "ns", 3
	switch a := math.Abs(ref); {
	case a >= 1e9:
		scale, unit = 1e9, "s"
	case a >= 1e6:
		scale, unit, sig = 1e6, "ms", 4
	case a >= 1e3:
		scale, unit, sig = 1e3, "µs", 4
	}
	dec := decimalsFor(ref/scale, sig)
	return func(ns float64) string { return fixed(ns/scale, dec) + " " + unit }
}

// pctFormatter is nsFormatter for percentages: 3 significant digits of
// ref, the same decimals for every value ("0.806% [0.776%, 0.836%]").
func pctFormatter(ref float64) func(float64) string {
	dec := decimalsFor(ref, 3)
	return func(p float64) string { return fixed(p, dec) + "%" }
}

// decimalsFor returns the number of decimals that shows x with sig
// significant digits (0 for 0, NaN, ±Inf or large x).
func decimalsFor(x float64, sig int) int {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return max(sig-1-int(math.Floor(math.Log10(math.Abs(x)))), 0)
}

// fixed formats x with dec decimals; a negative x that rounds to zero
// prints as 0, not -0.
func fixed(x float64, dec int) string { return fmt.Sprintf("%.*f", dec, Num(x)) }

// fmtCI formats an interval "[lo, hi]" with f, or "[no CI]" without one.
func fmtCI(lo, hi *float64, f func(float64) string) string {
	if lo == nil || hi == nil {
		return "[no CI]"
	}
	return "[" + f(*lo) + ", " + f(*hi) + "]"
}

// fmtEst formats an estimate and its interval: "12.0 ns [11.2 ns, 12.8 ns]".
func fmtEst(c float64, lo, hi *float64, f func(float64) string) string {
	return f(c) + " " + fmtCI(lo, hi, f)
}

// fmtCost formats a cost that cannot be negative (time a stack adds) with
// its interval, as fmtEst does; an interval reaching below 0 shows from 0
// and says that the cost is not resolved from none, with the interval's
// own lower end in the note: "+3.2 ms [0, 84.50 ms] (not resolved from 0:
// the interval reaches -36.54 ms)". JSON keeps the interval as computed.
func fmtCost(c float64, lo, hi *float64, f func(float64) string) string {
	if lo == nil || hi == nil || *lo >= 0 {
		return fmtEst(c, lo, hi, f)
	}
	return f(c) + " [0, " + f(*hi) + "] (not resolved from 0: the interval reaches " + f(*lo) + ")"
}

// nsShort and nsFine format ns with 1 and 3 decimals.
func nsShort(x float64) string { return fixed(x, 1) }
func nsFine(x float64) string  { return fixed(x, 3) }

// val is *p, or -Inf for nil (sorting missing values last).
func val(p *float64) float64 {
	if p == nil {
		return math.Inf(-1)
	}
	return *p
}

// fmtPct formats a share (a fraction) as a percentage, "-" for nil.
func fmtPct(share *float64) string {
	if share == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", *share*100)
}

// fmtSignedPct formats a signed error in percent: "+7.1%", "-" for nil.
func fmtSignedPct(p *float64) string {
	if p == nil {
		return "-"
	}
	s := fixed(*p, 1)
	if s[0] != '-' {
		s = "+" + s
	}
	return s + "%"
}

// fmtUnsignedPct formats a percentage that has no sign of its own, such as
// a mean absolute error: "7.1%", not "+7.1%".
func fmtUnsignedPct(p *float64) string {
	if p == nil {
		return "-"
	}
	return fixed(*p, 1) + "%"
}

// Figures of whole-command runs (the command workload) and of sentences:
// each figure picks its own unit (ns, µs, ms, s) and shows 3 significant
// digits, so a 4.56 µs overhead of a 12 ms command is not "+0.0 ms"; a
// value and its interval share one unit and one number of decimals, both
// chosen by the largest of them (a bound near 0 then shows fewer digits,
// as it should: it is near 0 at that scale).

// unitOf returns the scale (ns per unit) and name of the unit for ns.
func unitOf(ns float64) (float64, string) {
	switch a := math.Abs(ns); {
	case a >= 1e9:
		return 1e9, "s"
	case a >= 1e6:
		return 1e6, "ms"
	case a >= 1e3:
		return 1e3, "µs"
	}
	return 1, "ns"
}

// figureGroup returns a formatter for figures that share a unit: the
// values (ns) of one estimate and its interval. signed adds "+" to
// positive figures. The formatter appends the unit when withUnit.
func figureGroup(signed, withUnit bool, ns ...float64) func(float64) string {
	big := 0.0
	for _, x := range ns {
		if a := math.Abs(x); !math.IsNaN(a) && !math.IsInf(a, 0) {
			big = max(big, a)
		}
	}
	scale, unit := unitOf(big)
	dec := decimalsFor(big/scale, 3)
	return func(x float64) string {
		s := fixed(x/scale, dec)
		if signed && s[0] != '-' {
			s = "+" + s
		}
		if withUnit {
			s += " " + unit
		}
		return s
	}
}

// figure formats one time in ns in its own unit with 3 significant
// digits: "812 ns", "4.56 µs", "12.3 ms", "2.04 s".
func figure(ns float64) string { return figureGroup(false, true, ns)(ns) }

// signedFigure is figure with an explicit sign.
func signedFigure(ns float64) string { return figureGroup(true, true, ns)(ns) }
