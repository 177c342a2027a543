package estimate

import (
	"slices"
	"testing"
	"time"
)

// TestBracketValidation: the profile-only bracket, recomputed from each
// validation row's recorded inputs (testdata/validation-programs.csv, the
// rows of docs/estimate.md), meets the measured added time's 95 % interval
// on at least 90 % of the rows, and the rows it misses are the two whose
// measurement falls below the warm loop's floor (tar defeated: tar and
// gzip overlap on two CPUs, so wall time grows less than CPU time; go vet
// defeated: its measured 23.8 ms [20.5, 27.1] is below the loop's 31.9).
// docs/estimate.md prints the same count.
func TestBracketValidation(t *testing.T) {
	rows := readValidationRows(t)
	c := CoverBracket(rows)
	t.Logf("bracket: %v", c)
	if c.Rows != 24 {
		t.Fatalf("%d rows, want 24", c.Rows)
	}
	if 10*c.Holds < 9*c.Rows {
		t.Errorf("bracket holds %d of %d rows, want ≥ 90 %%", c.Holds, c.Rows)
	}
	var missed []string
	for _, r := range c.Missed {
		missed = append(missed, r.Program+" / "+r.Cache)
		if ms(r.MeasuredHi) >= r.Bracket().Floor {
			t.Errorf("%s %s %s: missed but its measurement is not below the floor", r.Program, r.Stack, r.Cache)
		}
	}
	if want := []string{"tar / defeat", "go vet / defeat"}; !slices.Equal(missed, want) {
		t.Errorf("missed %v, want %v", missed, want)
	}
	if got, want := c.String(), "22 of 24 rows (92 %) meet the measured 95 % interval; the measured centre is inside on 14"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

// TestBracketDecide: the bracket's parts and sums, and the three answers
// against a budget at, below and above its ends.
func TestBracketDecide(t *testing.T) {
	b := NewBracket(10*time.Millisecond, 200*time.Microsecond)
	if b.Floor != 10200*time.Microsecond || b.Ceiling != 18500*time.Microsecond+920*time.Microsecond {
		t.Fatalf("bracket %v, want [10.2ms, 19.42ms]", b)
	}
	if len(b.Parts) != 2 || b.Parts[0].Name != "direct" || b.Parts[1].Name != "per process" || b.Parts[0].Source == "" {
		t.Errorf("parts %+v", b.Parts)
	}
	for _, tc := range []struct {
		budget time.Duration
		want   BudgetVerdict
	}{
		{20 * time.Millisecond, BudgetWithin},
		{b.Ceiling, BudgetUndecided}, // within needs the ceiling strictly below
		{15 * time.Millisecond, BudgetUndecided},
		{b.Floor, BudgetUndecided},
		{10 * time.Millisecond, BudgetOver},
		{0, BudgetOver},
	} {
		if got := b.Decide(tc.budget); got != tc.want {
			t.Errorf("Decide(%v) = %s, want %s", tc.budget, got, tc.want)
		}
	}
	// 2 % of 1 s = 20 ms: within; of 500 ms = 10 ms: over; no base: undecided.
	if got := b.DecideRelative(0.02, time.Second); got != BudgetWithin {
		t.Errorf("2%% of 1s: %s", got)
	}
	if got := b.DecideRelative(0.02, 500*time.Millisecond); got != BudgetOver {
		t.Errorf("2%% of 500ms: %s", got)
	}
	if got := b.DecideRelative(0.02, 0); got != BudgetUndecided {
		t.Errorf("2%% of 0: %s", got)
	}
	if z := NewBracket(-time.Millisecond, -time.Microsecond); z.Floor != 0 || z.Ceiling != 0 {
		t.Errorf("negative inputs: %v", z)
	}
	if !b.Holds(0, b.Floor) || !b.Holds(b.Ceiling, time.Hour) || b.Holds(0, b.Floor-1) || b.Holds(b.Ceiling+1, time.Hour) {
		t.Errorf("Holds at the ends is wrong for %v", b)
	}
}

// TestBracketReport: the report's bracket leaves the per-process part out
// when it was not measured, and carries the validation's counts.
func TestBracketReport(t *testing.T) {
	b := NewBracket(time.Millisecond, 100*time.Microsecond)
	r := b.Report(false)
	if len(r.Parts) != 1 || r.Parts[0].Name != "direct" || r.Parts[0].CeilingFactor != ColdDirectFactor || r.ProcessMeasured {
		t.Errorf("unmeasured per-process term: %+v", r)
	}
	if r.ValidationRows != 24 || r.ValidationHolds != 22 || r.ValidationCentre != 14 {
		t.Errorf("validation counts %d/%d/%d, want 24/22/14", r.ValidationRows, r.ValidationHolds, r.ValidationCentre)
	}
	r = b.Report(true)
	if len(r.Parts) != 2 || r.FloorNs != 1.1e6 || r.CeilingNs != 1.85e6+4.6e5 || !r.ProcessMeasured {
		t.Errorf("measured per-process term: %+v", r)
	}
}
