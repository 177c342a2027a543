package report

import "github.com/seccompbench/seccompbench/report/internal/text"

// The text helpers the commands share with report's renderers; they live
// in report/internal/text, which only report's packages may import.

// Num is a float64 that never prints as negative zero and prints an
// undefined value as "n/a" (text.Num).
type Num = text.Num

// Plural writes "1 filter" or "n filters".
func Plural[T int | int64](n T, one string) string { return text.Plural(n, one) }

// OrDash returns s, or "-" when s is empty.
func OrDash(s string) string { return text.OrDash(s) }

// IndexRanges formats ascending indexes compactly: 0-3,7,9-10.
func IndexRanges(xs []int) string { return text.IndexRanges(xs) }
