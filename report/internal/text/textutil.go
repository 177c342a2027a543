package text

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// YesNo is "yes" or "no".
func YesNo(b bool) string {
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

// JoinInts joins the decimal numbers with sep.
func JoinInts(xs []int, sep string) string {
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

// OneLine makes s safe as a benchfmt configuration value.
func OneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// GroupDigits writes n with thousands separators: 528482304 -> 528,482,304.
func GroupDigits(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// MaxLineWidth is the widest line of s, in runes.
func MaxLineWidth(s string) int {
	w := 0
	for _, l := range strings.Split(s, "\n") {
		w = max(w, utf8.RuneCountInString(strings.TrimRight(l, " ")))
	}
	return w
}

func SortedCopy(s []string) []string {
	out := append([]string{}, s...)
	sort.Strings(out)
	return out
}

// OrDash returns s, or "-" when s is empty.
func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func Dedupe(s []string) []string {
	var out []string
	for i, x := range s {
		if i == 0 || s[i-1] != x {
			out = append(out, x)
		}
	}
	return out
}
