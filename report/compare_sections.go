package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/report/internal/text"
)

// compareSections are the sections of a comparison, in order: the
// answer (headline), what was compared, one part per compared source,
// how to read them, the warnings. WriteComparisonText,
// WriteComparisonMarkdown and WriteComparisonHTML render this one list.
var compareSections = []section[*document.Comparison]{
	{name: "title", textOmit: true, blocks: func(*document.Comparison) []block { return []block{titleBlock("seccompbench comparison")} }},
	{name: "headline", blocks: func(c *document.Comparison) []block { return []block{headlineBlock(CompareHeadline(c))} }},
	{name: "sources", explain: true, blocks: compareSourcesBlocks},
	{name: "changes", blocks: compareChangeBlocks},
	{name: "legend", explain: true, blocks: func(c *document.Comparison) []block {
		return []block{listBlock{title: "How to read this", items: legendLines(c)}}
	}},
	{name: "warnings", blocks: func(c *document.Comparison) []block {
		return []block{listBlock{title: "warnings", heading: true, items: compareWarnings(c)}}
	}},
}

// WriteComparisonTable writes c as aligned text tables, one block per
// compared source, after the headline, followed by the warnings
// (WriteComparisonText without --explain).
func WriteComparisonTable(w io.Writer, c *document.Comparison) error {
	return WriteComparisonText(w, c, TextOptions{})
}

// WriteComparisonText writes c's headline, then (with opts.Explain) the
// compared results, one block of tables per compared source, how to read
// them (with opts.Explain) and the warnings, wrapped at TextWidth. It
// returns the first write error.
func WriteComparisonText(w io.Writer, c *document.Comparison, opts TextOptions) error {
	return writeSectionsText(w, compareSections, c, textOpts{explain: opts.Explain, wrap: true})
}

// WriteComparisonMarkdown writes c as Markdown: what was compared, one
// table of cells and one of fitted terms per compared source, how to read
// them, and the warnings. It returns the first write error.
func WriteComparisonMarkdown(w io.Writer, c *document.Comparison) error {
	return writeSectionsMarkdown(w, compareSections, c)
}

// compareSourcesBlocks is the table of compared results: file, workload,
// policies, kernel, CPU and tool version, the base first.
func compareSourcesBlocks(c *document.Comparison) []block {
	t := tableBlock{cols: []column{{head: ""}, {head: "file"}, {head: "workload"}, {head: "policies"}, {head: "kernel"}, {head: "CPU"}, {head: "tool"}}, textPad: 2}
	for i, s := range c.Sources {
		role := cell{s: "compared"}
		if i == 0 {
			role = cell{s: "base", strong: true}
		}
		t.rows = append(t.rows, append([]cell{role}, cells(s.Name, s.Workload, strings.Join(s.Policies, " + "), text.OrDash(s.Kernel), text.OrDash(s.CPUModel), text.OrDash(s.ToolVersion))...))
	}
	return []block{t}
}

// compareChangeBlocks is, per compared source, a heading, the table of
// cells and the table of fitted model terms.
func compareChangeBlocks(c *document.Comparison) []block {
	ci := fmt.Sprintf("%.0f%% CI ns", c.Confidence*100)
	num := func(h string) column { return column{head: h, num: true} }
	var out []block
	for i := 1; i < len(c.Sources); i++ {
		b, o := c.Sources[0], c.Sources[i]
		out = append(out, headingBlock{title: fmt.Sprintf("%s vs %s, workload %s", b.Name, o.Name, o.Workload), textHidden: len(c.Sources) == 2})
		cellsT := tableBlock{cols: []column{{head: "variant"}, num("filters"), num("base ns/op"), num("ns/op"), num("change"), num("delta ns"), num(ci), num("p"), num("children")},
			textRight: true, textPad: 2}
		for _, cc := range c.Cells {
			if cc.Source == i {
				cellsT.rows = append(cellsT.rows, []cell{{s: cc.Variant}, {s: fmt.Sprint(cc.Filters)}, {s: fmt.Sprintf("%.1f", text.Num(cc.BaseNs))}, {s: fmt.Sprintf("%.1f", text.Num(cc.Ns))},
					changeCell(cc.Change, false), {s: fmt.Sprintf("%+.1f", text.Num(cc.DeltaNs))}, {s: fmt.Sprintf("[%+.1f, %+.1f]", text.Num(cc.CILowNs), text.Num(cc.CIHighNs))},
					{s: pText(cc.Change)}, {s: fmt.Sprintf("%d+%d", cc.NBase, cc.N)}})
			}
		}
		out = append(out, cellsT)
		if !hasFits(c, i) {
			continue
		}
		fitsT := tableBlock{caption: "fitted model terms (ns/op):", cols: []column{{head: "variant"}, {head: "term"}, num("base ns/op"), num("ns/op"), num("change"), num("delta ns"), num(ci), num("p")},
			textRight: true, textPad: 2}
		for _, fc := range c.Fits {
			if fc.Source == i {
				fitsT.rows = append(fitsT.rows, []cell{{s: fc.Variant}, {s: fitTermLabel(fc.Term)}, {s: fmt.Sprintf("%.2f", text.Num(fc.BaseNs))}, {s: fmt.Sprintf("%.2f", text.Num(fc.Ns))},
					changeCell(fc.Change, true), {s: fmt.Sprintf("%+.2f", text.Num(fc.DeltaNs))}, {s: fmt.Sprintf("[%+.2f, %+.2f]", text.Num(fc.CILowNs), text.Num(fc.CIHighNs))}, {s: pText(fc.Change)}})
			}
		}
		out = append(out, fitsT)
	}
	return out
}

// changeCell is deltaText as a cell, strong when the change is
// significant.
func changeCell(ch document.Change, inNs bool) cell {
	return cell{s: deltaText(ch, inNs), strong: ch.Known && ch.Significant}
}

func hasFits(c *document.Comparison, src int) bool {
	return slices.ContainsFunc(c.Fits, func(f document.FitChange) bool { return f.Source == src })
}

// legendLines explain the comparison's columns and methods.
func legendLines(c *document.Comparison) []string {
	return []string{
		fmt.Sprintf("cells: Welch's t-test on the per-child ns/op values (means, unequal variances), two-sided; %.0f%% CIs.", c.Confidence*100),
		"model terms: difference of two independent fits, their intervals combined by a normal approximation (SE = half-width / z; conservative for t intervals).",
		fmt.Sprintf("p: how often a difference at least this large would appear by chance if nothing had changed. \"~\": p >= %.2f, no change detected (not proof of no change); \"?\": too few children.", c.Alpha),
		"Significant is not large: read the delta and its CI to judge whether a change matters.",
	}
}

// compareWarnings are c's warnings, then a line per cell measured in
// only one result of a pair and per cell without enough data to compare.
func compareWarnings(c *document.Comparison) []string {
	var ws []string
	ws = append(ws, c.Warnings...)
	for _, m := range c.Missing {
		ws = append(ws, fmt.Sprintf("%s filters=%d was measured only in %s (%s vs %s)", m.Variant, m.Filters, m.In, c.Sources[0].Name, c.Sources[m.Source].Name))
	}
	for _, cc := range c.Cells {
		if !cc.Known {
			ws = append(ws, fmt.Sprintf("%s filters=%d (%s): %s", cc.Variant, cc.Filters, c.Sources[cc.Source].Name, strings.Join(cc.Warnings, "; ")))
		}
	}
	return ws
}
