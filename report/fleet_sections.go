package report

import (
	"fmt"
	"io"

	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/report/internal/text"
)

// fleetSections are the sections of a report of many results, in order:
// the title (Markdown), the headline, one table per policy group, the
// warnings. WriteFleetText, WriteFleetMarkdown and WriteFleetHTML render
// this one list.
var fleetSections = []section[*document.Fleet]{
	{name: "title", textOmit: true, blocks: func(f *document.Fleet) []block {
		return []block{titleBlock("seccompbench report: " + text.Plural(FleetResults(f), "result"))}
	}},
	{name: "headline", blocks: func(f *document.Fleet) []block { return []block{headlineBlock(FleetHeadline(f))} }},
	{name: "groups", blocks: func(f *document.Fleet) []block {
		var out []block
		for _, g := range f.Groups {
			out = append(out, fleetGroupTable(g))
		}
		return out
	}},
	{name: "warnings", blocks: func(f *document.Fleet) []block {
		return []block{listBlock{title: "warnings", heading: true, items: f.Warnings}}
	}},
}

// WriteFleetTable writes f as text without --explain (WriteFleetText).
func WriteFleetTable(w io.Writer, f *document.Fleet) error {
	return WriteFleetText(w, f, TextOptions{})
}

// WriteFleetText writes f as text: the headline, then per group a heading
// and a table with one row per result and variant, then the warnings. The
// default table has the figures only, within TextWidth; opts.Explain adds
// where each result was measured (host, kernel, CPU, loader, mitigations,
// foreign load) and the children. It returns the first write error.
func WriteFleetText(w io.Writer, f *document.Fleet, opts TextOptions) error {
	return writeSectionsText(w, fleetSections, f, textOpts{explain: opts.Explain, wrap: true})
}

// WriteFleetMarkdown writes f as Markdown: the title, the headline, per
// group a heading and a table with every column, the warnings. It returns
// the first write error.
func WriteFleetMarkdown(w io.Writer, f *document.Fleet) error {
	return writeSectionsMarkdown(w, fleetSections, f)
}

// maxFleetName is the most characters of a result's name the default
// report table shows (elided in the middle; --explain has it whole).
const maxFleetName = 15

// fleetGroupTable is a group's rows under its policy and workload. The
// default text has the figures only, as one table when it fits TextWidth,
// else (wide intervals) the per-filter and the entry figures as two tables
// of the same rows. The intervals are each result's own: the CI headers
// name the level when every row of the group shares it, else each
// interval does.
func fleetGroupTable(g document.FleetGroup) tableBlock {
	same := true
	for _, r := range g.Rows {
		same = same && r.Confidence == g.Rows[0].Confidence
	}
	ciHead := "CI"
	if same && len(g.Rows) > 0 {
		ciHead = fmt.Sprintf("%.0f%% CI", g.Rows[0].Confidence*100)
	}
	ci := func(conf, lo, hi float64, prec int) string {
		s := fmt.Sprintf("[%.*f, %.*f]", prec, text.Num(lo), prec, text.Num(hi))
		if !same {
			s = fmt.Sprintf("%.0f%% %s", conf*100, s)
		}
		return s
	}
	where := column{explain: true}
	t := tableBlock{caption: fmt.Sprintf("policy %s, workload %s", g.Policy, text.OrDash(g.Workload)), note: "ns/op = " + text.OrDash(g.Op), heading: true,
		empty: "no result with a fitted model (see the warnings)", textPad: 1, textSplit: [][]int{{0, 7, 8, 9, 10}, {0, 7, 11, 12}},
		cols: []column{{head: "result", elide: maxFleetName}, named(where, "host"), named(where, "kernel"), named(where, "CPU"), named(where, "loader"),
			named(where, "mitigations"), {head: "foreign load", num: true, explain: true}, {head: "variant"}, {head: "baseline ns", short: "base ns", num: true},
			{head: "per-filter ns", short: "per-filter", num: true}, {head: ciHead, num: true}, {head: "entry ns", num: true}, {head: ciHead, num: true},
			{head: "n", num: true, explain: true}}}
	for _, r := range g.Rows {
		name := cell{s: r.Result}
		if r.Partial {
			name.tail = " (partial)"
		}
		t.rows = append(t.rows, append([]cell{name}, cells(text.OrDash(r.Host), text.OrDash(r.Kernel), text.OrDash(r.CPUModel), text.OrDash(r.Loader), r.Mitigations,
			foreignText(r.ForeignLoad), fleetVariant(r), fmt.Sprintf("%.1f", text.Num(r.BaselineNs)), fmt.Sprintf("%.2f", text.Num(r.PerFilterNs)),
			ci(r.Confidence, r.PerFilterCILowNs, r.PerFilterCIHighNs, 2), fmt.Sprintf("%.1f", text.Num(r.EntryNs)),
			ci(r.Confidence, r.EntryCILowNs, r.EntryCIHighNs, 1), fmt.Sprint(r.Children))...))
	}
	return t
}

// named is c headed h.
func named(c column, h string) column {
	c.head = h
	return c
}
