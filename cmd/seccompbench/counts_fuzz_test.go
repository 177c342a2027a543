package main

import (
	"slices"
	"testing"
)

// FuzzParseCounts: any --filters value is either refused or gives sorted,
// distinct counts in [0, 4096].
func FuzzParseCounts(f *testing.F) {
	for _, s := range []string{"0,1,2,4,8,16,32", "0-32", "0-32/4", "4,0-2,2", "1-", "-3", "0,,1", "0-4096/4095"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseCounts(s)
		if err != nil {
			return
		}
		if len(got) == 0 || !slices.IsSorted(got) || len(slices.Compact(slices.Clone(got))) != len(got) {
			t.Fatalf("ParseCounts(%q) = %v: want sorted distinct counts", s, got)
		}
		if got[0] < 0 || got[len(got)-1] > 4096 {
			t.Fatalf("ParseCounts(%q) = %v: out of [0, 4096]", s, got)
		}
	})
}
