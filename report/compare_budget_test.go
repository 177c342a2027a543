package report

import (
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/stats"
)

// TestCompareBudget: the same result against itself is within a 20 ns
// regression budget on the fitted terms and within 5 % at the deepest
// count (every upper bound below it, not merely "no significant
// change"). A result whose defeated filters cost 200 ns more per op is
// over 5 %; a budget the interval straddles is undecided.
func TestCompareBudget(t *testing.T) {
	a := fixtureDoc(t, 0)
	pair := func(b *document.Document) []document.NamedDocument {
		return []document.NamedDocument{{Name: "a.json", Doc: a}, {Name: "b.json", Doc: b}}
	}
	v, err := CompareBudget(pair(fixtureDoc(t, 0)), stats.Budget{Ns: 20}, 0.95, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("same: %s", BudgetText(v))
	if v.Verdict != "within" || !(v.Upper < 20) || v.DecidedBy != "entry" {
		t.Errorf("same result: %+v", v)
	}
	if v, _ = CompareBudget(pair(fixtureDoc(t, 0)), stats.Budget{Pct: 5, Relative: true}, 0.95, false); v.Verdict != "within" || v.DecidedBy != "deepest" {
		t.Errorf("same result at 5 %%: %+v", v)
	}
	v, err = CompareBudget(pair(fixtureDoc(t, 200)), stats.Budget{Pct: 5, Relative: true}, 0.95, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("+200 ns: %s", BudgetText(v))
	if v.Verdict != "over" || !(v.Lower > 5) || !strings.Contains(BudgetText(v), "from the two results") {
		t.Errorf("+200 ns: %+v", v)
	}
	// The verdict names the variant that decided (the defeated filters
	// got slower) among those judged.
	if v.Variant != "defeat" || len(v.Variants) != 2 || !strings.Contains(BudgetText(v), "of variant defeat decided (variants ") {
		t.Errorf("+200 ns: variant %q of %q, %q", v.Variant, v.Variants, BudgetText(v))
	}
	// Absolute: the increase is certainly above 1 ns, and its interval
	// is wider than 1e-6 ns, so a budget just above the estimate is
	// undecided.
	if v, _ = CompareBudget(pair(fixtureDoc(t, 200)), stats.Budget{Ns: 1}, 0.95, false); v.Verdict != "over" {
		t.Errorf("1 ns: %+v", v)
	}
	mid := v.Estimate
	if v, _ = CompareBudget(pair(fixtureDoc(t, 200)), stats.Budget{Ns: mid + 1e-6}, 0.95, false); v.Verdict != "undecided" || !strings.Contains(BudgetText(v), "do not decide") {
		t.Errorf("on the estimate: %+v", v)
	}
	c, err := Compare(pair(fixtureDoc(t, 0)), document.CompareOptions{Confidence: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	c.Budget = &document.BudgetVerdict{Verdict: "within", Budget: 5, Unit: "%", Confidence: 0.95, DecidedBy: "per_filter"}
	if h := CompareHeadline(c); h[0].Label != "budget" {
		t.Errorf("compare headline starts %+v", h[0])
	}
}
