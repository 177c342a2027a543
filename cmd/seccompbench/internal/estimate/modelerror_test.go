package estimate

import (
	"encoding/csv"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/stats"
)

// readValidationRows reads testdata/validation-programs.csv.
func readValidationRows(t *testing.T) []ValidationRow {
	t.Helper()
	f, err := os.Open("testdata/validation-programs.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment = '#'
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var rows []ValidationRow
	for i, rec := range recs[1:] {
		v := make([]float64, 9)
		for k := range v {
			if v[k], err = strconv.ParseFloat(rec[2+k], 64); err != nil {
				t.Fatalf("testdata/validation-programs.csv row %d column %d: %v", i+2, k+3, err)
			}
		}
		rows = append(rows, ValidationRow{Program: rec[0], Stack: rec[1], Syscalls: v[0], Process: v[1],
			Stated: stats.Estimate{Center: v[2], Lo: v[3], Hi: v[4]}, UsedModelError: v[5],
			Measured: v[6], MeasuredLo: v[7], MeasuredHi: v[8]})
	}
	return rows
}

// TestModelErrorRule: ModelError is what ModelErrorRule gives on the
// validation rows, rounded up to a whole per cent; with it, every row the
// rule does not list is covered (the stated interval recomputed with
// ModelError holds the measured centre), and the rows it lists are the
// five docs/estimate.md names.
func TestModelErrorRule(t *testing.T) {
	rows := readValidationRows(t)
	if len(rows) != 15 {
		t.Fatalf("%d validation rows, want 15", len(rows))
	}
	rel, uncovered := ModelErrorRule(rows)
	if want := math.Ceil(100*rel) / 100; ModelError != want {
		t.Errorf("ModelError = %v, the rule gives %.4f: want %v", ModelError, rel, want)
	}
	var names []string
	for _, r := range uncovered {
		names = append(names, r.Program+" / "+r.Stack)
	}
	want := []string{"find / docker-default x16 on", "tar / docker-default x16 on", "git status / docker-default x16 on",
		"python3 -c pass / docker-default x16 on", "python3 -c pass / hardened.service on"}
	if !slices.Equal(names, want) {
		t.Errorf("uncovered rows:\n  %s\nwant\n  %s", strings.Join(names, "\n  "), strings.Join(want, "\n  "))
	}
	for _, r := range rows {
		// Recompute the stated interval with ModelError on the
		// per-syscall part, the other parts as they were.
		m0 := r.UsedModelError * r.Syscalls
		lo := math.Sqrt(math.Max(math.Pow(r.Stated.Center-r.Stated.Lo, 2)-m0*m0, 0) + math.Pow(ModelError*r.Syscalls, 2))
		hi := math.Sqrt(math.Max(math.Pow(r.Stated.Hi-r.Stated.Center, 2)-m0*m0, 0) + math.Pow(ModelError*r.Syscalls, 2))
		covered := r.Stated.Center-lo <= r.Measured && r.Measured <= r.Stated.Center+hi
		listed := slices.Contains(uncovered, r)
		if covered == listed {
			t.Errorf("%s / %s: covered %v with ±%.0f %%, listed as uncovered %v", r.Program, r.Stack, covered, 100*ModelError, listed)
		}
	}
}

// TestNeededModelError checks stats.NeededModelError by hand: stated 10
// [7, 13] with used 0.1 on 20 of syscalls: other half-width² = 9 − 4 = 5;
// measured 14 needs (r·20)² ≥ 16 − 5 = 11, r = √11/20 = 0.16583.
func TestNeededModelError(t *testing.T) {
	e := stats.Estimate{Center: 10, Lo: 7, Hi: 13}
	if got, want := stats.NeededModelError(e, 20, 0.1, 14), math.Sqrt(11)/20; math.Abs(got-want) > 1e-12 {
		t.Errorf("needed %v, want %v", got, want)
	}
	if got := stats.NeededModelError(e, 20, 0.1, 12); got != 0 {
		t.Errorf("covered centre needs %v, want 0", got)
	}
	if got := stats.NeededModelError(e, 0, 0.1, 14); !math.IsInf(got, 1) {
		t.Errorf("no per-syscall part needs %v, want +Inf", got)
	}
}
