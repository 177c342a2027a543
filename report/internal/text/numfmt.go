package text

import (
	"fmt"
	"math"
	"strings"
)

// Number formats of the estimate text: a value and its interval share unit
// and decimals, percentages keep 3 significant digits, and a missing
// (nil) number prints as "-" or "[no CI]".

// Ns formats a time in ns with a unit that keeps 3-4 significant digits.
func Ns(ns float64) string { return NsFormatter(ns)(ns) }

// NsFormatter returns a formatter that writes times in ns in ref's unit
// (s, ms, µs or ns) with the decimals that give ref 3 (s, ns) or 4 (ms, µs)
// significant digits, so that a value and its CI bounds share unit and
// decimals: "26.05 ms [24.60 ms, 27.49 ms]".
func NsFormatter(ref float64) func(float64) string {
	scale, unit, sig := 1.0, "ns", 3
	switch a := math.Abs(ref); {
	case a >= 1e9:
		scale, unit = 1e9, "s"
	case a >= 1e6:
		scale, unit, sig = 1e6, "ms", 4
	case a >= 1e3:
		scale, unit, sig = 1e3, "µs", 4
	}
	dec := DecimalsFor(ref/scale, sig)
	return func(ns float64) string { return Fixed(ns/scale, dec) + " " + unit }
}

// PctFormatter is nsFormatter for percentages: 3 significant digits of
// ref, the same decimals for every value ("0.806% [0.776%, 0.836%]").
func PctFormatter(ref float64) func(float64) string {
	dec := DecimalsFor(ref, 3)
	return func(p float64) string { return Fixed(p, dec) + "%" }
}

// DecimalsFor returns the number of decimals that shows x with sig
// significant digits (0 for 0, NaN, ±Inf or large x).
func DecimalsFor(x float64, sig int) int {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return max(sig-1-int(math.Floor(math.Log10(math.Abs(x)))), 0)
}

// Fixed formats x with dec decimals; a negative x that rounds to zero
// prints as 0, not -0.
func Fixed(x float64, dec int) string { return fmt.Sprintf("%.*f", dec, Num(x)) }

// CI formats an interval "[lo, hi]" with f, or "[no CI]" without one.
func CI(lo, hi *float64, f func(float64) string) string {
	if lo == nil || hi == nil {
		return "[no CI]"
	}
	return "[" + f(*lo) + ", " + f(*hi) + "]"
}

// Est formats an estimate and its interval: "12.0 ns [11.2 ns, 12.8 ns]".
func Est(c float64, lo, hi *float64, f func(float64) string) string {
	return f(c) + " " + CI(lo, hi, f)
}

// Cost formats a cost that cannot be negative (time a stack adds) with
// its interval, as fmtEst does; an interval reaching below 0 shows from 0
// and says that the cost is not resolved from none, with the interval's
// own lower end in the note: "+3.2 ms [0, 84.50 ms] (not resolved from 0:
// the interval reaches -36.54 ms)". JSON keeps the interval as computed.
func Cost(c float64, lo, hi *float64, f func(float64) string) string {
	if lo == nil || hi == nil || *lo >= 0 {
		return Est(c, lo, hi, f)
	}
	return f(c) + " [0, " + f(*hi) + "] (not resolved from 0: the interval reaches " + f(*lo) + ")"
}

// NsShort and nsFine format ns with 1 and 3 decimals.
func NsShort(x float64) string { return Fixed(x, 1) }
func NsFine(x float64) string  { return Fixed(x, 3) }

// Val is *p, or -Inf for nil (sorting missing values last).
func Val(p *float64) float64 {
	if p == nil {
		return math.Inf(-1)
	}
	return *p
}

// Pct formats a share (a fraction) as a percentage, "-" for nil.
func Pct(share *float64) string {
	if share == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", *share*100)
}

// SignedPct formats a signed error in percent: "+7.1%", "-" for nil.
func SignedPct(p *float64) string {
	if p == nil {
		return "-"
	}
	s := Fixed(*p, 1)
	if s[0] != '-' {
		s = "+" + s
	}
	return s + "%"
}

// UnsignedPct formats a percentage that has no sign of its own, such as
// a mean absolute error: "7.1%", not "+7.1%".
func UnsignedPct(p *float64) string {
	if p == nil {
		return "-"
	}
	return Fixed(*p, 1) + "%"
}

// Figures of whole-command runs (the command workload) and of sentences:
// each figure picks its own unit (ns, µs, ms, s) and shows 3 significant
// digits, so a 4.56 µs overhead of a 12 ms command is not "+0.0 ms"; a
// value and its interval share one unit and one number of decimals, both
// chosen by the largest of them (a bound near 0 then shows fewer digits,
// as it should: it is near 0 at that scale).

// UnitOf returns the scale (ns per unit) and name of the unit for ns.
func UnitOf(ns float64) (float64, string) {
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

// FigureGroup returns a formatter for figures that share a unit: the
// values (ns) of one estimate and its interval. signed adds "+" to
// positive figures. The formatter appends the unit when withUnit.
func FigureGroup(signed, withUnit bool, ns ...float64) func(float64) string {
	big := 0.0
	for _, x := range ns {
		if a := math.Abs(x); !math.IsNaN(a) && !math.IsInf(a, 0) {
			big = max(big, a)
		}
	}
	scale, unit := UnitOf(big)
	dec := DecimalsFor(big/scale, 3)
	return func(x float64) string {
		s := Fixed(x/scale, dec)
		if signed && s[0] != '-' {
			s = "+" + s
		}
		if withUnit {
			s += " " + unit
		}
		return s
	}
}

// Figure formats one time in ns in its own unit with 3 significant
// digits: "812 ns", "4.56 µs", "12.3 ms", "2.04 s".
func Figure(ns float64) string { return FigureGroup(false, true, ns)(ns) }

// SignedFigure is figure with an explicit sign.
func SignedFigure(ns float64) string { return FigureGroup(true, true, ns)(ns) }

// FirstLine is s up to its first newline.
func FirstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// Duration formats ns in its own unit with 3 significant digits
// (figure): "812 ns", "12.3 µs", "150 ms", "2.04 s".
func Duration(ns float64) string { return Figure(ns) }

// Signed is durationText with an explicit sign.
func Signed(ns float64) string { return SignedFigure(ns) }

// ShellWords renders argv for people, quoting words with blanks or quotes.
func ShellWords(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = a
		if a == "" || strings.ContainsAny(a, " \t\n'\"$") {
			q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(q, " ")
}
