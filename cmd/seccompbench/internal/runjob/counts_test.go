package runjob

import (
	"slices"
	"strings"
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

func TestParseCounts(t *testing.T) {
	tests := []struct {
		in      string
		want    []int
		wantErr string
	}{
		{"0,1,2,4,8,16,32", []int{0, 1, 2, 4, 8, 16, 32}, ""},
		{"0-4", []int{0, 1, 2, 3, 4}, ""},
		{"0-32/8", []int{0, 8, 16, 24, 32}, ""},
		{"4,0-2,2", []int{0, 1, 2, 4}, ""},
		{"", nil, "empty element"},
		{"1,,2", nil, "empty element"},
		{"a", nil, "bad count"},
		{"5-2", nil, "bad range"},
		{"0-8/0", nil, "bad stride"},
		{"-1", nil, "negative count"},
		{"5000", nil, "out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseCounts(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}
