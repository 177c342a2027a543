// Package suggest finds the names closest to a misspelt one, for the
// "did you mean" hints of the filters format parsers.
package suggest

import (
	"sort"
	"strings"
)

// Closest returns up to n names from set at the smallest edit distance
// from s (case-insensitive), if that distance is at most 2 (at most 1 for
// names of up to 4 bytes), sorted by name. Aliases come first: the name
// one ABI spells with a width suffix and another without (x86_64's
// pwrite64 for pwrite, i386's getuid32 for getuid, umount2 for umount),
// which a reader means more often than a name one letter away (pwritev).
func Closest[V any](s string, set map[string]V, n int) []string {
	if len(s) > 64 {
		return nil // no syscall or key is that long; spare the quadratic work
	}
	if a := aliases(strings.ToLower(s), set); len(a) > 0 {
		return a[:min(n, len(a))]
	}
	lim := 2
	if len(s) <= 4 {
		lim = 1
	}
	low := strings.ToLower(s)
	var out []string
	for name := range set {
		d := EditDistance(low, name)
		if d > lim {
			continue
		}
		if d < lim {
			lim, out = d, out[:0]
		}
		out = append(out, name)
	}
	sort.Strings(out)
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// aliasSuffixes are the suffixes syscall tables add to a name for the
// width of its arguments (pwrite64, getuid32) or a second version
// (umount2).
var aliasSuffixes = []string{"64", "32", "2"}

// aliases returns the names of set that are low with an alias suffix
// added or removed, sorted.
func aliases[V any](low string, set map[string]V) []string {
	var out []string
	for _, suf := range aliasSuffixes {
		if _, ok := set[low+suf]; ok {
			out = append(out, low+suf)
		}
		if base, ok := strings.CutSuffix(low, suf); ok && base != "" {
			if _, ok := set[base]; ok {
				out = append(out, base)
			}
		}
	}
	sort.Strings(out)
	return out
}

// EditDistance is the optimal-string-alignment distance between a and b, in
// bytes: insertions, deletions, substitutions and swaps of adjacent bytes
// each cost 1.
func EditDistance(a, b string) int {
	rows := make([][]int, len(a)+1)
	for i := range rows {
		rows[i] = make([]int, len(b)+1)
		rows[i][0] = i
	}
	for j := range rows[0] {
		rows[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d := min(rows[i-1][j]+1, rows[i][j-1]+1, rows[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d = min(d, rows[i-2][j-2]+1)
			}
			rows[i][j] = d
		}
	}
	return rows[len(a)][len(b)]
}
