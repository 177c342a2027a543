package report

import (
	"math"
	"slices"

	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/stats"
)

// CompareBudget judges a regression budget between the base and the
// second source (compare A B --budget 5%): a fixed-sample decision, since
// both results are already measured. An absolute budget (ns) is judged
// on the fitted per-filter and entry costs of every variant where the
// results have fits (loop workloads); a % budget, or results without
// fits, on every variant's cell at the deepest filter count both
// measured, in % of the base's ns/op ("deepest"; "wall" for the command
// workload, where an op is a run). Each is bounded
// one-sided at level 1 − α/k for k terms (Bonferroni; the two-sided
// Welch or fit interval at 1 − 2α/k gives the one-sided bound), so that a
// wrong verdict has probability at most α = 1 − confidence: over when
// some term's lower bound on the increase is above the budget, within when
// every term's upper bound is below it, undecided otherwise. budget is
// in % of the base, or ns when absolute. The verdict names the variant
// of the deciding term and, when terms of several were judged, them all.
// docs is the compared results in
// order (as Compare took them).
func CompareBudget(docs []document.NamedDocument, budget stats.Budget, confidence float64, force bool) (*document.BudgetVerdict, error) {
	base, err := Compare(docs[:2], document.CompareOptions{Confidence: confidence, Force: force})
	if err != nil {
		return nil, err
	}
	terms := compareBudgetTerms(base, docs[1].Doc, budget)
	v := &document.BudgetVerdict{Verdict: string(stats.VerdictUndecided), Budget: budget.Value(), Unit: budget.Unit(), Confidence: confidence,
		Estimate: math.NaN(), Lower: math.NaN(), Upper: math.NaN()}
	if len(terms) == 0 {
		return v, nil
	}
	for _, t := range terms {
		if t.variant != "" && !slices.Contains(v.Variants, t.variant) {
			v.Variants = append(v.Variants, t.variant)
		}
	}
	if len(v.Variants) < 2 {
		v.Variants = nil
	}
	alpha := (1 - confidence) / float64(len(terms))
	wide, err := Compare(docs[:2], document.CompareOptions{Confidence: 1 - 2*alpha, Force: force})
	if err != nil {
		return nil, err
	}
	bounds := func(ch *document.Change) (est, lo, hi float64) {
		if budget.Relative {
			return ch.DeltaPct, ch.PctLow, ch.PctHigh
		}
		return ch.DeltaNs, ch.CILowNs, ch.CIHighNs
	}
	set := func(t budgetTerm, ch *document.Change, verdict stats.BudgetVerdict) {
		v.Verdict, v.DecidedBy, v.Variant = string(verdict), t.name, t.variant
		v.Estimate, v.Lower, v.Upper = bounds(ch)
	}
	within, least := true, math.Inf(-1)
	for _, t := range terms {
		ch := t.pick(wide)
		_, lo, hi := bounds(ch)
		switch {
		case lo > v.Budget:
			set(t, ch, stats.VerdictOver)
			return v, nil
		case !(hi < v.Budget):
			within = false
			set(t, ch, stats.VerdictUndecided)
		case within && hi > least:
			least = hi
			set(t, ch, stats.VerdictWithin)
		}
	}
	if !within {
		v.Verdict = string(stats.VerdictUndecided)
	}
	return v, nil
}

// budgetTerm is one term CompareBudget judges: its decided_by name, its
// variant, and where its change is in a comparison.
type budgetTerm struct {
	name, variant string
	pick          func(*document.Comparison) *document.Change
}

// compareBudgetTerms are the terms CompareBudget judges in base (the
// comparison at the caller's level) for budget: an absolute budget's
// known fitted terms, else (a % budget, or no fits) every variant's cell
// at the deepest count both results measured; newDoc is the second result.
func compareBudgetTerms(base *document.Comparison, newDoc *document.Document, budget stats.Budget) []budgetTerm {
	var terms []budgetTerm
	if !budget.Relative {
		for i, f := range base.Fits {
			if f.Source == 1 && f.Known {
				terms = append(terms, budgetTerm{f.Term, f.Variant, func(c *document.Comparison) *document.Change { return &c.Fits[i].Change }})
			}
		}
	}
	if len(terms) == 0 {
		// A cached per-filter cost is about 0, so no % of a fitted term
		// bounds it: a % budget, and results without fits, are judged
		// on the cells at the deepest count both measured.
		name := "deepest"
		if newDoc.CommandWorkload != nil {
			name = "wall"
		}
		deepest := -1
		for _, c := range base.Cells {
			if c.Source == 1 && c.Known {
				deepest = max(deepest, c.Filters)
			}
		}
		for i, c := range base.Cells {
			if c.Source == 1 && c.Known && c.Filters == deepest {
				terms = append(terms, budgetTerm{name, c.Variant, func(c *document.Comparison) *document.Change { return &c.Cells[i].Change }})
			}
		}
	}
	return terms
}
