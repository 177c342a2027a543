package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/report/internal/text"
)

// CompareHeadline answers a comparison in at most MaxHeadlineLines lines:
// what was compared (both policies), the change of each variant's
// per-filter and entry cost, the change at the deepest count, and a
// verdict. With more than one compared source, the lines are about the
// first pair and say so.
func CompareHeadline(c *document.Comparison) []HeadlineLine {
	if len(c.Sources) < 2 {
		return nil
	}
	b, o := c.Sources[0], c.Sources[1]
	what := fmt.Sprintf("base %s (%s) vs %s (%s)", b.Name, strings.Join(b.Policies, " + "), o.Name, strings.Join(o.Policies, " + "))
	if len(c.Sources) > 2 {
		what += fmt.Sprintf("; %d more below", len(c.Sources)-2)
	}
	out := append(BudgetHeadline(c.Budget), HeadlineLine{"compared", what})
	if !slices.Equal(b.Policies, o.Policies) {
		out = append(out, HeadlineLine{"compared", "the policies differ: the changes are between two policies, not one policy over time"})
	}
	for _, term := range []string{"per_filter", "entry"} {
		var parts []string
		for _, f := range c.Fits {
			if f.Source == 1 && f.Term == term {
				parts = append(parts, f.Variant+" "+changeText(f.Change))
			}
		}
		if len(parts) > 0 {
			out = append(out, HeadlineLine{map[string]string{"per_filter": "per-filter", "entry": "entry"}[term], strings.Join(parts, "; ")})
		}
	}
	if s := compareDeepest(c); s != "" {
		out = append(out, HeadlineLine{"deepest", s})
	}
	out = append(out, HeadlineLine{"verdict", compareVerdict(c)})
	out = append(out, HeadlineLine{"note", fmt.Sprintf("[ ]: %.0f%% CI; ~: no change detected (p ≥ %.2f); labels: see %s; --explain",
		c.Confidence*100, c.Alpha, ReadingDoc)})
	return out
}

// changeText is a change in ns/op with its interval, "~" first when no
// change was detected: "~ +6.6 ns/op [-14.5, 27.6]".
func changeText(ch document.Change) string {
	s := estText(true, ch.DeltaNs, ch.CILowNs, ch.CIHighNs)
	switch {
	case !ch.Known:
		return s + " (?: too few children)"
	case !ch.Significant:
		return "~ " + s
	}
	return s
}

// compareDeepest is the change of every variant's deepest cell of the
// first compared pair.
func compareDeepest(c *document.Comparison) string {
	deepest := map[string]document.CellChange{}
	var order []string
	for _, cc := range c.Cells {
		if cc.Source != 1 {
			continue
		}
		d, ok := deepest[cc.Variant]
		if !ok {
			order = append(order, cc.Variant)
		}
		if !ok || cc.Filters > d.Filters {
			deepest[cc.Variant] = cc
		}
	}
	var parts []string
	for _, v := range order {
		cc := deepest[v]
		s := fmt.Sprintf("%s at %d %s", v, cc.Filters, changeText(cc.Change))
		if cc.Known && cc.Significant {
			s += fmt.Sprintf(" (%+.*f%%)", pctDecimals(cc.DeltaPct), Num(cc.DeltaPct))
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// compareVerdict says in one sentence whether the per-filter cost
// changed, per variant.
func compareVerdict(c *document.Comparison) string {
	var up, down, same []string
	for _, f := range c.Fits {
		if f.Source != 1 || f.Term != "per_filter" {
			continue
		}
		switch {
		case !f.Known || !f.Significant:
			same = append(same, f.Variant)
		case f.DeltaNs > 0:
			up = append(up, f.Variant)
		default:
			down = append(down, f.Variant)
		}
	}
	var parts []string
	if len(up) > 0 {
		parts = append(parts, "dearer in "+strings.Join(up, ", "))
	}
	if len(down) > 0 {
		parts = append(parts, "cheaper in "+strings.Join(down, ", "))
	}
	if len(same) > 0 {
		parts = append(parts, "no change detected in "+strings.Join(same, ", "))
	}
	if len(parts) == 0 {
		return "no per-filter fit to compare: read the cells below"
	}
	return fmt.Sprintf("per filter, %s vs base %s: %s (workload %s).", c.Sources[1].Name, c.Sources[0].Name, strings.Join(parts, "; "), c.Sources[1].Workload)
}

// FleetHeadline answers a report over many results in at most
// MaxHeadlineLines lines: how many results and policies, per policy group
// the per-filter cost of each variant across its results (the range of
// the estimates, with the widest interval's ends), and a verdict on
// whether the results of a group agree.
func FleetHeadline(f *document.Fleet) []HeadlineLine {
	out := []HeadlineLine{{"policy", fmt.Sprintf("%s of %s; ns/op = per op of each group's workload",
		Plural(FleetResults(f), "result"), Plural(len(f.Groups), "policy group"))}}
	const maxGroups = MaxHeadlineLines - 3
	var disagree []string
	for gi, g := range f.Groups {
		if gi == maxGroups {
			out = append(out, HeadlineLine{"per-filter", fmt.Sprintf("%d more groups below", len(f.Groups)-maxGroups)})
			break
		}
		var parts []string
		for _, v := range fleetVariants(g) {
			lo, hi := math.Inf(1), math.Inf(-1)
			loCI, hiCI := math.Inf(1), math.Inf(-1)
			n := 0
			var one document.FleetRow
			for _, r := range g.Rows {
				if r.Variant != v || math.IsNaN(r.PerFilterNs) {
					continue
				}
				n++
				one = r
				lo, hi = min(lo, r.PerFilterNs), max(hi, r.PerFilterNs)
				loCI, hiCI = min(loCI, r.PerFilterCIHighNs), max(hiCI, r.PerFilterCILowNs)
			}
			switch {
			case n == 0:
				continue
			case n == 1:
				parts = append(parts, v+" "+estText(false, one.PerFilterNs, one.PerFilterCILowNs, one.PerFilterCIHighNs))
			default:
				parts = append(parts, fmt.Sprintf("%s %s to %s/op over %d results", v, text.Figure(lo), text.Figure(hi), n))
				if hiCI > loCI {
					disagree = append(disagree, v)
				}
			}
		}
		if len(parts) == 0 {
			// No result of the group has a fitted per-filter cost (too
			// few filter counts): say so rather than print nothing.
			parts = []string{"no per-filter fit (a run needs two counts of 1 or more filters)"}
		}
		// ns/op is defined on the policy line; a group's line says ns
		line := strings.ReplaceAll(text.ElideMiddle(g.Policy, 40)+": "+strings.Join(parts, "; "), " ns/op [", " ns [")
		out = append(out, HeadlineLine{"per-filter", line})
	}
	verdict := "one result per policy group: compare the groups by their intervals"
	for _, g := range f.Groups {
		if len(g.Rows) > len(fleetVariants(g)) {
			verdict = "the results of each policy group agree: their per-filter intervals overlap"
		}
	}
	if len(disagree) > 0 {
		verdict = "results disagree (intervals apart) for " + strings.Join(slices.Compact(disagree), ", ") + ": see the hosts with --explain"
	}
	out = append(out, HeadlineLine{"verdict", verdict})
	out = append(out, HeadlineLine{"note", "[ ]: each result's CI; labels: see " + ReadingDoc + "; --explain: where each ran"})
	return out
}

// fleetVariants lists the variants of a group's rows in first-seen order.
func fleetVariants(g document.FleetGroup) []string {
	var out []string
	for _, r := range g.Rows {
		if !slices.Contains(out, r.Variant) {
			out = append(out, r.Variant)
		}
	}
	return out
}
