package text

import (
	"fmt"
	"math"
	"strconv"
)

// Num is a float64 that never prints as negative zero: with a %f verb, a
// negative value that rounds to zero at the verb's precision prints as 0
// ("0.0", "+0.00" with the + flag), so a tiny negative estimate does not
// read as "-0.0". An undefined value (NaN, ±Inf: JSON null in the result
// document) prints as "n/a" in the verb's width, never as a number.
// Other values and verbs print as the float64 would.
type Num float64

// Format implements fmt.Formatter.
func (x Num) Format(s fmt.State, verb rune) {
	v := float64(x)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		w, _ := s.Width()
		if s.Flag('-') {
			fmt.Fprintf(s, "%-*s", w, "n/a")
		} else {
			fmt.Fprintf(s, "%*s", w, "n/a")
		}
		return
	}
	if verb == 'f' || verb == 'F' {
		prec, ok := s.Precision()
		if !ok {
			prec = 6
		}
		if math.Signbit(v) && strconv.FormatFloat(-v, 'f', prec, 64) == strconv.FormatFloat(0, 'f', prec, 64) {
			v = 0
		}
	}
	fmt.Fprintf(s, fmt.FormatString(s, verb), v)
}
