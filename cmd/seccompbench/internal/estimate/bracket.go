package estimate

import (
	"bytes"
	_ "embed" // the validation rows
	"fmt"
	"sync"
	"time"

	"github.com/seccompbench/seccompbench/report/document"
)

// ColdDirectFactor is the ceiling's multiple of the warm loop's direct
// part (calls × the per-syscall loop cost): the largest ratio of sampled
// direct time to the loop model measured in this project's whole-program
// validation (docs/estimate.md, "What the prediction can and cannot
// reach", reason 2: go vet under hardened.service 6.17 ms sampled against
// 3.36 modelled, 1.84×; tar under docker-default ×16 defeated 7.14 against
// 5.29, 1.35×; python3 -c pass defeated 0.48 against 0.26, 1.85×).
// Filters run colder in a real program than in the loop (its calls are far
// apart, so the filter's code and data are evicted between them).
const ColdDirectFactor = 1.85

// ColdProcessFactor is the ceiling's multiple of the per-process term
// (/bin/true's added time under a freshly installed stack): the largest
// ratio measured in docs/validation/2026-12-03-install-aftermath.md
// (python3 -c pass 595 µs of added CPU against /bin/true's 129 µs, 4.6×;
// /bin/true itself 1×). A program's start under a fresh stack (its execve
// after the install, its exit releasing the filters, its start's memory
// management) is its own and no probe stands in for it.
const ColdProcessFactor = 4.6

// BracketPart is one term of a Bracket: Name says what it prices
// ("direct" or "per process"), Floor and Ceiling are its added time per
// run of the program, and Source names the measurement its ceiling's
// factor comes from.
type BracketPart struct {
	Name           string
	Floor, Ceiling time.Duration
	Factor         float64 // Ceiling / Floor
	Source         string
}

// Bracket is a prediction of a program's added time per run, made without
// running it (estimate --profile, top's merge and optimize predictions):
// Floor is the warm loop's cost × the profile's calls plus the per-process
// term; Ceiling applies ColdDirectFactor and ColdProcessFactor to those
// two. Parts holds the two terms. The bracket bounds the filters' cost on
// the host kind its factors were measured on (docs/estimate.md); it is not
// a confidence interval.
type Bracket struct {
	Floor, Ceiling time.Duration
	Parts          []BracketPart
}

// NewBracket returns the bracket for a program whose warm-loop direct
// part is direct (calls × per-call loop cost) and whose per-process term
// is process (/bin/true's added time), both per run of the program.
// Negative inputs (a calibration whose centre fell below 0) count as 0.
func NewBracket(direct, process time.Duration) Bracket {
	direct, process = max(direct, 0), max(process, 0)
	parts := []BracketPart{
		{Name: "direct", Floor: direct, Ceiling: scale(direct, ColdDirectFactor), Factor: ColdDirectFactor,
			Source: "sampled direct time 1.3–1.85× the warm loop (docs/estimate.md: go vet, tar, python3 -c pass)"},
		{Name: "per process", Floor: process, Ceiling: scale(process, ColdProcessFactor), Factor: ColdProcessFactor,
			Source: "a program's start 1–4.6× /bin/true's term (docs/estimate.md: python3 -c pass)"},
	}
	b := Bracket{Parts: parts}
	for _, p := range parts {
		b.Floor += p.Floor
		b.Ceiling += p.Ceiling
	}
	return b
}

// scale returns d × f, rounded to the nanosecond.
func scale(d time.Duration, f float64) time.Duration {
	return time.Duration(float64(d)*f + 0.5)
}

// BudgetVerdict is a bracket's answer against a budget.
type BudgetVerdict string

const (
	// BudgetWithin: the bracket's ceiling is below the budget.
	BudgetWithin BudgetVerdict = "within"
	// BudgetOver: the bracket's floor is above the budget.
	BudgetOver BudgetVerdict = "over"
	// BudgetUndecided: the budget lies inside the bracket; only running
	// the program under the stack (estimate --command) can decide.
	BudgetUndecided BudgetVerdict = "undecided"
)

// Decide judges the bracket against budget, an added time per run:
// within when Ceiling < budget, over when Floor > budget, else undecided.
func (b Bracket) Decide(budget time.Duration) BudgetVerdict {
	switch {
	case b.Ceiling < budget:
		return BudgetWithin
	case b.Floor > budget:
		return BudgetOver
	}
	return BudgetUndecided
}

// DecideRelative judges the bracket against a budget that is a fraction
// of the program's unfiltered time per run (base; --budget 2% is 0.02).
// It returns BudgetUndecided when base is not positive (nothing to take a
// share of).
func (b Bracket) DecideRelative(frac float64, base time.Duration) BudgetVerdict {
	if base <= 0 || frac <= 0 {
		return BudgetUndecided
	}
	return b.Decide(scale(base, frac))
}

// Holds reports that the bracket meets the measured interval [lo, hi]
// (any value the measurement allows is one the bracket allows): the
// validation's test of a bracket against a measurement whose interval
// cannot tell the values inside it apart.
func (b Bracket) Holds(lo, hi time.Duration) bool {
	return lo <= b.Ceiling && hi >= b.Floor
}

// String renders the bracket as "[floor, ceiling]" with units.
func (b Bracket) String() string {
	return fmt.Sprintf("[%v, %v]", b.Floor.Round(time.Microsecond), b.Ceiling.Round(time.Microsecond))
}

// BracketCoverage is how a Bracket built from each validation row's
// recorded inputs (its direct part Syscalls and per-process term Process)
// met the row's measured added time: Rows in all, Holds where the
// bracket meets the measured 95 % interval (Bracket.Holds), Centre where
// it contains the measured centre, and Missed the rows it does not meet.
type BracketCoverage struct {
	Rows, Holds, Centre int
	Missed              []ValidationRow
}

// CoverBracket builds each row's bracket (NewBracket of its Syscalls and
// Process, ms per run) and counts the rows it holds.
func CoverBracket(rows []ValidationRow) BracketCoverage {
	var c BracketCoverage
	for _, r := range rows {
		b := r.Bracket()
		c.Rows++
		if b.Holds(ms(r.MeasuredLo), ms(r.MeasuredHi)) {
			c.Holds++
		} else {
			c.Missed = append(c.Missed, r)
		}
		if m := ms(r.Measured); m >= b.Floor && m <= b.Ceiling {
			c.Centre++
		}
	}
	return c
}

// Bracket is the bracket the profile-only prediction gives for the row
// (NewBracket of its direct part and per-process term).
func (r ValidationRow) Bracket() Bracket { return NewBracket(ms(r.Syscalls), ms(r.Process)) }

// ms converts milliseconds to a Duration.
func ms(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

// String says how often the bracket held: "22 of 24 rows (92 %); centre
// inside on 14".
func (c BracketCoverage) String() string {
	if c.Rows == 0 {
		return "no rows"
	}
	return fmt.Sprintf("%d of %d rows (%.0f %%) meet the measured 95 %% interval; the measured centre is inside on %d",
		c.Holds, c.Rows, 100*float64(c.Holds)/float64(c.Rows), c.Centre)
}

// validationCSV is the whole-program validation table the bracket is held
// against (docs/validation/2026-12-03-estimate-programs.md).
//
//go:embed testdata/validation-programs.csv
var validationCSV []byte

// validationCoverage is CoverBracket over validationCSV, computed once.
var validationCoverage = sync.OnceValue(func() BracketCoverage {
	rows, err := ReadValidationRows(bytes.NewReader(validationCSV), "testdata/validation-programs.csv")
	if err != nil {
		return BracketCoverage{} // TestBracketValidation reads the same file
	}
	return CoverBracket(rows)
})

// Report is the bracket as the report states it: ns per run, its parts,
// whether the per-process term was measured, and how often the bracket
// met the validation rows' measurements (CoverBracket of the embedded
// testdata/validation-programs.csv).
func (b Bracket) Report(processMeasured bool) *document.EstimateBracket {
	c := validationCoverage()
	out := &document.EstimateBracket{FloorNs: float64(b.Floor), CeilingNs: float64(b.Ceiling), ProcessMeasured: processMeasured,
		ValidationRows: c.Rows, ValidationHolds: c.Holds, ValidationCentre: c.Centre}
	for _, p := range b.Parts {
		if p.Name == "per process" && !processMeasured {
			continue
		}
		out.Parts = append(out.Parts, document.EstimateBracketPart{Name: p.Name, FloorNs: float64(p.Floor), CeilingNs: float64(p.Ceiling),
			CeilingFactor: p.Factor, Source: p.Source})
	}
	return out
}
