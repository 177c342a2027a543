package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/seccompbench/seccompbench/stats"
)

// BudgetVerdict is the answer of a measuring command given --budget
// (stats.Decide): JSON's "budget" object, and the first headline line of
// the text, Markdown and HTML outputs (BudgetHeadline). Undefined numbers
// (a bound not yet reached) are null in JSON.
type BudgetVerdict struct {
	// Verdict is "within" (the upper bound is below the budget), "over"
	// (the lower bound is above it) or "undecided" (--max-time came
	// first). Undecided is not within.
	Verdict string `json:"verdict"`
	// Budget is the budget in Unit: "ns" (per syscall for a loop
	// workload, per run of the program for the command workload) or "%"
	// (of the unfiltered cost).
	Budget float64 `json:"budget"`
	Unit   string  `json:"unit"`
	// Estimate is the deciding metric's mean added cost in Unit; Lower
	// and Upper its one-sided anytime-valid bounds at Confidence
	// (docs/methodology.md, "Budget decisions").
	Estimate   float64 `json:"estimate"`
	Lower      float64 `json:"lower"`
	Upper      float64 `json:"upper"`
	Confidence float64 `json:"confidence"`
	// ElapsedS is the measuring time in seconds; Rounds the blocks of
	// children measured; N the observations (children) of the deciding
	// metric and Pairs the run pairs behind them.
	ElapsedS float64 `json:"elapsed_s"`
	Rounds   int     `json:"rounds"`
	N        int     `json:"n"`
	Pairs    int     `json:"pairs,omitempty"`
	// DecidedBy names the deciding metric: "wall" or "cpu" (time per run
	// of a program), "share", "per_filter" or "entry".
	DecidedBy string `json:"decided_by"`
	// NeedN and NeedS are, for undecided, the observations and seconds
	// the current spread projects a decision would need (0: cannot say).
	NeedN int     `json:"need_n,omitempty"`
	NeedS float64 `json:"need_s,omitempty"`
}

// MarshalJSON writes undefined (NaN, infinite) numbers as null.
func (b BudgetVerdict) MarshalJSON() ([]byte, error) { return marshalWire(b) }

// UnmarshalJSON reads null numbers as NaN.
func (b *BudgetVerdict) UnmarshalJSON(data []byte) error { return unmarshalWire(data, b) }

// NewBudgetVerdict converts a stats.Decision for the document.
func NewBudgetVerdict(d stats.Decision) *BudgetVerdict {
	fin := func(x float64) float64 {
		if math.IsInf(x, 0) {
			return math.NaN()
		}
		return x
	}
	return &BudgetVerdict{Verdict: string(d.Verdict), Budget: d.Budget, Unit: d.Unit, Estimate: d.Estimate,
		Lower: fin(d.Lower), Upper: fin(d.Upper), Confidence: d.Confidence, ElapsedS: d.ElapsedS,
		Rounds: d.Rounds, N: d.N, Pairs: d.Pairs, DecidedBy: d.DecidedBy, NeedN: d.NeedN, NeedS: d.NeedS}
}

// budgetAmount renders x in the verdict's unit: "0.41 %" or "1.2 ms".
func (b *BudgetVerdict) budgetAmount(x float64, signed bool) string {
	if math.IsNaN(x) {
		return "n/a"
	}
	if b.Unit == "%" {
		sign := ""
		if signed && x >= 0 {
			sign = "+"
		}
		return sign + strconv.FormatFloat(x, 'f', 2, 64) + " %"
	}
	if signed {
		return signedFigure(x)
	}
	return figure(x)
}

// BudgetByBracket is the decided_by of a verdict taken on estimate's
// profile-only bracket (no run of the program): Lower and Upper are the
// bracket's floor and ceiling, Estimate their midpoint, and the verdict
// within only when the ceiling is below the budget, over only when the
// floor is above it.
const BudgetByBracket = "bracket"

// budgetMetricNames says in words what each decided_by value judged.
var budgetMetricNames = map[string]string{
	BudgetByBracket: "the prediction's bracket (floor and ceiling, no run)",
	"wall":          "wall time per run", "cpu": "CPU time per run", "share": "share of the target's CPU",
	"per_filter": "per-filter cost", "entry": "entry cost", "deepest": "cost per op at the deepest count",
}

// Text is the verdict's headline text, after "budget: ": the verdict and
// the budget, the estimate with the bound that decided (both for
// undecided), the time and data it took, the level and the metric; for
// undecided, what a decision would need.
func (b *BudgetVerdict) Text() string {
	var s strings.Builder
	scale, unit := unitOf(b.Budget)
	budget := strconv.FormatFloat(b.Budget/scale, 'g', 4, 64) + " " + unit
	if b.Unit == "%" {
		budget = strconv.FormatFloat(b.Budget, 'g', -1, 64) + " %"
	}
	if b.DecidedBy == BudgetByBracket {
		fmt.Fprintf(&s, "%s %s: bracket [%s, %s] from the profile, no run", b.Verdict, budget, b.budgetAmount(b.Lower, false), b.budgetAmount(b.Upper, false))
		if b.Verdict == string(stats.VerdictUndecided) {
			s.WriteString("; the budget lies inside the bracket: run the program (--command) to decide. Undecided is not within")
		}
		return s.String()
	}
	fmt.Fprintf(&s, "%s %s: %s ", b.Verdict, budget, b.budgetAmount(b.Estimate, true))
	switch b.Verdict {
	case string(stats.VerdictWithin):
		fmt.Fprintf(&s, "[upper %s]", b.budgetAmount(b.Upper, false))
	case string(stats.VerdictOver):
		fmt.Fprintf(&s, "[lower %s]", b.budgetAmount(b.Lower, false))
	default:
		fmt.Fprintf(&s, "[%s, %s]", b.budgetAmount(b.Lower, false), b.budgetAmount(b.Upper, false))
	}
	if b.DecidedBy == "share" {
		fmt.Fprintf(&s, " after %.0f s, %d windows,", b.ElapsedS, b.Rounds)
	} else if b.Rounds > 0 {
		fmt.Fprintf(&s, " after %.0f s, %d rounds", b.ElapsedS, b.Rounds)
		if b.Pairs > 0 {
			fmt.Fprintf(&s, ", %d pairs", b.Pairs)
		}
		s.WriteString(",")
	} else {
		s.WriteString(" from the two results,")
	}
	fmt.Fprintf(&s, " %s %% one-sided", strconv.FormatFloat(b.Confidence*100, 'g', 4, 64))
	if name := budgetMetricNames[b.DecidedBy]; name != "" && b.Verdict != string(stats.VerdictUndecided) {
		fmt.Fprintf(&s, "; %s decided", name)
	} else if name != "" {
		fmt.Fprintf(&s, "; %s furthest from a decision", name)
	}
	if b.Verdict == string(stats.VerdictUndecided) {
		if b.DecidedBy == "share" && b.NeedN > 0 {
			fmt.Fprintf(&s, "; the spread so far needs about %d windows (%.0f s) to decide: raise --max-time", b.NeedN, b.NeedS)
		} else if b.Rounds == 0 {
			s.WriteString("; the two results do not decide it: measure both with more --trials")
		} else if b.NeedN > 0 && b.NeedS > 0 {
			fmt.Fprintf(&s, "; the spread so far needs about %d children (%.0f s) to decide: raise --max-time", b.NeedN, b.NeedS)
		} else {
			s.WriteString("; the estimate sits on the budget: no time decides it")
		}
		s.WriteString(". Undecided is not within")
	}
	return s.String()
}

// BudgetHeadline is the headline line of a verdict, nil for none.
func BudgetHeadline(b *BudgetVerdict) []HeadlineLine {
	if b == nil {
		return nil
	}
	return []HeadlineLine{{"budget", b.Text()}}
}
