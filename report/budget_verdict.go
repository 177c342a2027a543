package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/report/internal/text"
	"github.com/seccompbench/seccompbench/stats"
)

// budgetAmount renders x in the verdict's unit: "0.41 %" or "1.2 ms".
func budgetAmount(b *document.BudgetVerdict, x float64, signed bool) string {
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
		return text.SignedFigure(x)
	}
	return text.Figure(x)
}

// budgetMetricNames says in words what each decided_by value judged.
var budgetMetricNames = map[string]string{
	document.BudgetByBracket: "the prediction's bracket (floor and ceiling, no run)",
	"wall":                   "wall time per run", "cpu": "CPU time per run", "share": "share of the target's CPU",
	"per_filter": "per-filter cost", "entry": "entry cost", "deepest": "cost per op at the deepest count",
}

// BudgetText is b's headline text, after "budget: ": the verdict and
// the budget, the estimate with the bound that decided (both for
// undecided), the time and data it took, the level and the metric; for
// undecided, what a decision would need.
func BudgetText(b *document.BudgetVerdict) string {
	var s strings.Builder
	scale, unit := text.UnitOf(b.Budget)
	budget := strconv.FormatFloat(b.Budget/scale, 'g', 4, 64) + " " + unit
	if b.Unit == "%" {
		budget = strconv.FormatFloat(b.Budget, 'g', -1, 64) + " %"
	}
	if b.DecidedBy == document.BudgetByBracket {
		fmt.Fprintf(&s, "%s %s: bracket [%s, %s] from the profile, no run", b.Verdict, budget, budgetAmount(b, b.Lower, false), budgetAmount(b, b.Upper, false))
		if b.Verdict == string(stats.VerdictUndecided) {
			s.WriteString("; the budget lies inside the bracket: run the program (--command) to decide. Undecided is not within")
		}
		return s.String()
	}
	fmt.Fprintf(&s, "%s %s: %s ", b.Verdict, budget, budgetAmount(b, b.Estimate, true))
	switch b.Verdict {
	case string(stats.VerdictWithin):
		fmt.Fprintf(&s, "[upper %s]", budgetAmount(b, b.Upper, false))
	case string(stats.VerdictOver):
		fmt.Fprintf(&s, "[lower %s]", budgetAmount(b, b.Lower, false))
	default:
		fmt.Fprintf(&s, "[%s, %s]", budgetAmount(b, b.Lower, false), budgetAmount(b, b.Upper, false))
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
func BudgetHeadline(b *document.BudgetVerdict) []HeadlineLine {
	if b == nil {
		return nil
	}
	return []HeadlineLine{{"budget", BudgetText(b)}}
}
