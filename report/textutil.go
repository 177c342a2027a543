package report

import (
	"fmt"
	"strconv"
	"strings"
)

// yesNo is "yes" or "no".
func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// Plural writes "1 filter" or "n filters".
func Plural[T int | int64](n T, one string) string {
	if n == 1 {
		return "1 " + one
	}
	if strings.HasSuffix(one, "s") || strings.HasSuffix(one, "x") || strings.HasSuffix(one, "ch") || strings.HasSuffix(one, "sh") {
		return strconv.FormatInt(int64(n), 10) + " " + one + "es"
	}
	return strconv.FormatInt(int64(n), 10) + " " + one + "s"
}

// joinInts joins the decimal numbers with sep.
func joinInts(xs []int, sep string) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, sep)
}

// IndexRanges formats ascending indexes compactly: 0-3,7,9-10 (the
// filters of an inspect group, the executed lines of a simulate path).
func IndexRanges(xs []int) string {
	var parts []string
	for i := 0; i < len(xs); {
		j := i
		for j+1 < len(xs) && xs[j+1] == xs[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", xs[i], xs[j]))
		} else {
			parts = append(parts, strconv.Itoa(xs[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}
