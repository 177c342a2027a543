package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/report/internal/text"
	"github.com/seccompbench/seccompbench/stats"
)

// budgetAmount renders x in the verdict's unit: "0.41%" (no space, as
// the rest of the text output writes percentages) or "1.2 ms".
func budgetAmount(b *document.BudgetVerdict, x float64, signed bool) string {
	if math.IsNaN(x) {
		return "n/a"
	}
	if b.Unit == "%" {
		sign := ""
		if signed && x >= 0 {
			sign = "+"
		}
		return sign + strconv.FormatFloat(x, 'f', 2, 64) + "%"
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
	document.BudgetByNoFilters: "the targets' filter count",
}

// budgetBasis says, after a variant's name, what run's own figures the
// metric compares: run's wall and cpu pair each filtered run with an
// unfiltered one in the same child, its per_filter and entry compare
// each child's ns/op with that child's own bare-op baseline; so neither
// is the table's cell-against-0-filter-cell overhead.
var budgetBasis = map[string]string{
	"wall": "paired runs", "cpu": "paired runs",
	"per_filter": "vs each child's paired baseline", "entry": "vs each child's paired baseline",
}

// budgetMetricText names what decided b: the metric, and its variant
// with the basis of the figure when it has one; when several variants
// were judged, which.
func budgetMetricText(b *document.BudgetVerdict) string {
	name := budgetMetricNames[b.DecidedBy]
	if name == "" || b.Variant == "" {
		return name
	}
	name += " of variant " + b.Variant
	if basis := budgetBasis[b.DecidedBy]; basis != "" && b.Rounds > 0 {
		name += ", " + basis + ","
	}
	return name
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
		budget = strconv.FormatFloat(b.Budget, 'g', -1, 64) + "%"
	}
	if b.DecidedBy == document.BudgetByBracket {
		fmt.Fprintf(&s, "%s %s: bracket [%s, %s] from the profile, no run", b.Verdict, budget, budgetAmount(b, b.Lower, false), budgetAmount(b, b.Upper, false))
		if b.Verdict == string(stats.VerdictUndecided) {
			s.WriteString("; the budget lies inside the bracket: run the program (--command) to decide. Undecided is not within")
		}
		return s.String()
	}
	if b.DecidedBy == document.BudgetByNoFilters {
		fmt.Fprintf(&s, "%s %s: the targets have no seccomp filter (Seccomp_filters 0 in /proc/PID/status), so seccomp costs them nothing", b.Verdict, budget)
		return s.String()
	}
	if b.DecidedBy == "share" && b.N == 0 && b.Verdict == string(stats.VerdictUndecided) {
		fmt.Fprintf(&s, "%s %s: no CPU samples of the targets in %.0f s (%d windows): they did not run, or too briefly to be sampled; raise --max-time or --frequency. Undecided is not within", b.Verdict, budget, b.ElapsedS, b.Rounds)
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
	fmt.Fprintf(&s, " %s%% one-sided", strconv.FormatFloat(b.Confidence*100, 'g', 4, 64))
	if name := budgetMetricText(b); name != "" && b.Verdict != string(stats.VerdictUndecided) {
		fmt.Fprintf(&s, "; %s decided", name)
	} else if name != "" && b.N > 0 {
		fmt.Fprintf(&s, "; %s furthest from a decision", name)
	}
	if len(b.Variants) > 1 {
		fmt.Fprintf(&s, " (variants %s judged)", strings.Join(b.Variants, " and "))
	}
	if b.Verdict == string(stats.VerdictUndecided) {
		if b.N == 0 && b.Rounds > 0 {
			s.WriteString("; nothing measured could be judged: no child with a paired baseline at the deepest count")
		} else if b.DecidedBy == "share" && b.NeedN > 0 {
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

// BudgetBasisNote is the note a run report gives when its --budget
// verdict and its table rest on different data, "" otherwise: the verdict
// judges each child against its own paired baseline (the unfiltered runs
// of --workload command's --ab pairs, or a loop child's bare op timed
// before it installs its stack: runjob.BudgetMetrics and
// LoopBudgetMetrics), while the table's overhead columns compare a cell
// with its variant's 0-filter cell, which a run without 0 in --filters
// does not have, so they are n/a there beside a decided verdict.
func BudgetBasisNote(d *document.Document) string {
	b := d.Budget
	if b == nil || b.N == 0 || b.DecidedBy == document.BudgetByBracket {
		return ""
	}
	var missing []string
	for _, r := range d.Results {
		if r.Filters > 0 && baselineN(d, r.Variant) == 0 && !slices.Contains(missing, r.Variant) {
			missing = append(missing, r.Variant)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	basis := "each child's paired baseline (the bare op timed in the child before its filters)"
	if b.Pairs > 0 {
		basis = fmt.Sprintf("%d paired runs (each child also ran the program without filters)", b.Pairs)
	}
	return fmt.Sprintf("note: the budget verdict is from %s; the table's overhead columns compare each cell with its variant's 0-filter cell, which this run did not measure (%s): add 0 to --filters for them",
		basis, strings.Join(missing, ", "))
}
