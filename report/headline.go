package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/report/internal/text"
	"github.com/seccompbench/seccompbench/stats"
)

// MaxHeadlineLines is the most lines a headline takes in text output,
// wrapped lines included: the answer a reader gets before any table.
const MaxHeadlineLines = 8

// TextWidth is the widest line the default text output of a measuring
// command prints, in characters; longer prose is wrapped.
const TextWidth = 100

// ReadingDoc is the page every headline line points into: its label is a
// section anchor there (docs/reading-results.md#per-filter).
const ReadingDoc = "docs/reading-results.md"

// HeadlineLine is one line of a command's headline: Label names the
// section of ReadingDoc that explains it (its anchor), Text is the answer
// in plain words with its intervals.
type HeadlineLine struct {
	Label string
	Text  string
}

// Anchor is the line's link into ReadingDoc, e.g.
// "docs/reading-results.md#per-filter".
func (h HeadlineLine) Anchor() string { return ReadingDoc + "#" + h.Label }

// writeHeadlineText writes lines as "label: text", wrapped at TextWidth
// with continuation lines indented; the note line has no label.
func writeHeadlineText(ew *errWriter, lines []HeadlineLine) {
	writeHeadlineLines(ew, foldNote(lines))
}

// writeHeadlineLines is writeHeadlineText without the folding.
func writeHeadlineLines(ew *errWriter, lines []HeadlineLine) {
	for _, l := range lines {
		line := l.Label + ": " + shortSentencesAfter(l.Label+": ", l.Text)
		if l.Label == "note" {
			line = l.Text
		}
		// The legend's "[ ]" is one word: a line must not end in "([".
		line = strings.ReplaceAll(strings.Join(strings.Fields(line), " "), "[ ]", "[\x00]")
		unprotect := func(s string) string { return strings.ReplaceAll(s, "\x00", " ") }
		first := text.WrapWords(line, TextWidth)[0]
		ew.printf("%s\n", unprotect(first))
		if rest := strings.TrimSpace(strings.TrimPrefix(line, first)); rest != "" {
			for _, part := range text.WrapWords(rest, TextWidth-2) {
				ew.printf("  %s\n", unprotect(part))
			}
		}
	}
}

// writeHeadlineMarkdown writes lines as a list, each label linking to its
// section of ReadingDoc (relative to the repository root).
func writeHeadlineMarkdown(ew *errWriter, lines []HeadlineLine) {
	for _, l := range lines {
		if l.Label == "note" {
			ew.printf("\n%s\n", mdEscape(l.Text))
			continue
		}
		ew.printf("- **[%s](%s)**: %s\n", l.Label, l.Anchor(), mdEscape(shortSentencesAfter(l.Label+": ", l.Text)))
	}
	ew.printf("\n")
}

// RunHeadline answers what a run measured in at most MaxHeadlineLines
// lines: the policy, each fit's per-filter cost (in ns and as a multiple
// of the bare op), the cost at the deepest count, the one-off entry cost,
// whether the action cache serves the workload, and a verdict.
func RunHeadline(d *document.Document) []HeadlineLine {
	out := BudgetHeadline(d.Budget)
	out = append(out, HeadlineLine{"policy", runPolicyText(d)})
	out = append(out, perFilterLines(d)...)
	if s := deepestText(d); s != "" {
		out = append(out, HeadlineLine{"deepest", s})
	}
	if s := entryText(d); s != "" {
		out = append(out, HeadlineLine{"entry", s})
	}
	if s := cacheText(d); s != "" {
		out = append(out, HeadlineLine{"cache", s})
	}
	out = append(out, HeadlineLine{"verdict", runVerdict(d)})
	note := fmt.Sprintf("[ ]: %.0f%% CI; ", d.Config.Confidence*100)
	if anyPaired(d) {
		note += "× bare: × the op without filters; "
	}
	out = append(out, HeadlineLine{"note", note + "labels: see " + ReadingDoc + "; --explain"})
	return out
}

// perFilterLines is one per-filter line per fit, or, when the run measured
// both loaders, one per variant with both loaders' figures on it (two
// cache variants × two loaders would otherwise take four lines).
func perFilterLines(d *document.Document) []HeadlineLine {
	if d.Config.Loader != "both" {
		var out []HeadlineLine
		for _, f := range d.Fits {
			out = append(out, HeadlineLine{"per-filter", fitName(d, f, true) + ": " + fitPerFilterText(f)})
		}
		return out
	}
	var order []string
	parts := map[string][]string{}
	for _, f := range d.Fits {
		if _, ok := parts[f.Variant]; !ok {
			order = append(order, f.Variant)
		}
		parts[f.Variant] = append(parts[f.Variant], OrDash(f.Loader)+" "+fitPerFilterText(f))
	}
	var out []HeadlineLine
	for _, v := range order {
		name := fitName(d, document.Fit{Variant: v}, false)
		out = append(out, HeadlineLine{"per-filter", name + ": " + strings.Join(parts[v], "; ")})
	}
	return out
}

// headlineTextLines is how many lines writeHeadlineText prints for lines.
func headlineTextLines(lines []HeadlineLine) int {
	var b strings.Builder
	writeHeadlineLines(&errWriter{w: &b}, lines)
	return strings.Count(b.String(), "\n")
}

// foldNote keeps a headline within MaxHeadlineLines text lines: it folds
// the trailing note line (the legend) into the line before it, shortens
// the legend, and then drops the cache, entry
// and deepest lines, in that order (a run with both loaders and both
// cache variants); the table and --explain still give what they said.
func foldNote(lines []HeadlineLine) []HeadlineLine {
	if headlineTextLines(lines) <= MaxHeadlineLines || len(lines) < 2 || lines[len(lines)-1].Label != "note" {
		return lines
	}
	note := lines[len(lines)-1].Text
	out := slices.Clone(lines[:len(lines)-1])
	last := &out[len(out)-1]
	base := last.Text
	last.Text = base + " (" + note + ")"
	if headlineTextLines(out) > MaxHeadlineLines {
		short, _, _ := strings.Cut(note, "labels: see")
		last.Text = base + " (" + strings.TrimSuffix(strings.TrimSpace(short), ";") + "; --explain)"
	}
	for _, drop := range []string{"cache", "entry", "deepest"} {
		if headlineTextLines(out) <= MaxHeadlineLines {
			break
		}
		out = slices.DeleteFunc(out, func(l HeadlineLine) bool { return l.Label == drop })
	}
	return out
}

// maxPathInHeadline is the most characters of a policy path a headline
// shows; longer paths are elided in the middle (--explain has them whole).
const maxPathInHeadline = 40

// runPolicyText names the policies, their size and what one op is.
func runPolicyText(d *document.Document) string {
	op, _, _ := strings.Cut(d.Config.Op, ":")
	room := maxPathInHeadline
	if n := len(d.Config.Policies); n > 1 {
		room = max(16, maxPathInHeadline/n)
	}
	var pol []string
	for _, p := range d.Config.Policies {
		pol = append(pol, fmt.Sprintf("%s, %s", text.ElidePolicyName(p.Path, room), Plural(p.Instructions, "instruction")))
	}
	if len(pol) == 0 {
		pol = []string{"no policy"}
	}
	s := strings.Join(pol, " + ") + "; op = " + op
	if d.Partial {
		s = "PARTIAL (interrupted, finished children only): " + s
	}
	return s
}

// fitName names a fit by its variant, with its loader when the run
// measured both; define adds what the variant is.
func fitName(d *document.Document, f document.Fit, define bool) string {
	n := f.Variant
	if d.Config.Loader == "both" && f.Loader != "" {
		n += "/" + f.Loader
	}
	if w := map[string]string{"on": "as installed", "defeat": "cache defeated"}[f.Variant]; define && w != "" {
		n += " (" + w + ")"
	}
	return n
}

// fitPerFilterText is a fit's per-filter cost with its interval, and the
// same as a multiple of the bare op when the run was paired.
func fitPerFilterText(f document.Fit) string {
	if math.IsNaN(f.PerFilterNs) {
		return "not estimated (see the warnings)"
	}
	s := estText(false, f.PerFilterNs, f.PerFilterCILowNs, f.PerFilterCIHighNs)
	if f.Paired && !math.IsNaN(f.PerFilterRel) && !math.IsNaN(f.PerFilterRelCILow) {
		dg := relDigits(f.PerFilterRelCILow, f.PerFilterRelCIHigh)
		s += fmt.Sprintf(" = %.*f× bare [%.*f, %.*f]", dg, Num(f.PerFilterRel), dg, Num(f.PerFilterRelCILow), dg, Num(f.PerFilterRelCIHigh))
	}
	return s
}

// estText formats an estimate in ns with its interval, sharing one unit:
// "44.8 ns/op [40.2, 49.5]".
func estText(signed bool, c, lo, hi float64) string {
	g := text.FigureGroup(false, false, c, lo, hi)
	center := g(c)
	if signed {
		center = text.FigureGroup(true, false, c, lo, hi)(c)
	}
	_, unit := text.UnitOf(max(math.Abs(c), math.Abs(lo), math.Abs(hi)))
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return fmt.Sprintf("%s %s/op (no interval)", center, unit)
	}
	return fmt.Sprintf("%s %s/op [%s, %s]", center, unit, g(lo), g(hi))
}

// deepestCell is the variant's (and loader's) cell at its largest filter
// count, nil if none.
func deepestCell(d *document.Document, v, loader string) *document.CellResult {
	var c *document.CellResult
	for i := range d.Results {
		r := &d.Results[i]
		if r.Variant == v && r.Loader == loader && r.Filters > 0 && (c == nil || r.Filters > c.Filters) {
			c = r
		}
	}
	return c
}

// deepestText is the overhead at the deepest count of every fit's cells.
func deepestText(d *document.Document) string {
	var parts []string
	n := 0
	for _, f := range d.Fits {
		c := deepestCell(d, f.Variant, f.Loader)
		if c == nil {
			continue
		}
		n = c.Filters
		parts = append(parts, fmt.Sprintf("%s %s (%+.*f%%)", fitName(d, f, false),
			estText(true, c.OverheadNs, c.OverheadCILowNs, c.OverheadCIHighNs), pctDecimals(c.OverheadPct), Num(c.OverheadPct)))
	}
	if len(parts) == 0 {
		return ""
	}
	return Plural(n, "filter") + ": " + strings.Join(parts, "; ")
}

// pctDecimals is 1 for a percentage under 10 in magnitude, else 0.
func pctDecimals(p float64) int {
	if math.Abs(p) < 10 {
		return 1
	}
	return 0
}

// entryText is the one-off entry cost of every fit.
func entryText(d *document.Document) string {
	var parts []string
	for _, f := range d.Fits {
		if math.IsNaN(f.EntryNs) {
			continue
		}
		parts = append(parts, fitName(d, f, false)+" "+estText(false, f.EntryNs, f.EntryCILowNs, f.EntryCIHighNs))
	}
	if len(parts) == 0 {
		return ""
	}
	return "paid once for having any filter: " + strings.Join(parts, "; ")
}

// cacheText says, per variant, how many of the workload's syscalls the
// kernel's action cache serves at the deepest stack.
func cacheText(d *document.Document) string {
	if d.CommandWorkload != nil || len(d.Cache) == 0 {
		return ""
	}
	var parts []string
	for i, cv := range d.Cache {
		cached := 0
		for _, s := range cv.Syscalls {
			if s.Cached {
				cached++
			}
		}
		var s string
		what := Plural(len(cv.Syscalls), "workload syscall")
		if len(cv.Syscalls) == 1 {
			what = "its syscall " + cv.Syscalls[0].Name
		}
		switch {
		case len(cv.Syscalls) == 1 && cached == 1 && i == 0:
			s = what + " served by the action cache (no filter runs)"
		case len(cv.Syscalls) == 1 && cached == 0 && i == 0:
			s = what + " not served by the action cache"
		case cached == len(cv.Syscalls) && i == 0:
			s = fmt.Sprintf("all %s served by the action cache (no filter runs)", Plural(len(cv.Syscalls), "workload syscall"))
		case cached == len(cv.Syscalls):
			s = "all served"
		case cached == 0 && i == 0:
			s = fmt.Sprintf("none of %s served by the action cache", Plural(len(cv.Syscalls), "workload syscall"))
		case cached == 0:
			s = "none"
		default:
			s = fmt.Sprintf("%d of %s served by the action cache", cached, Plural(len(cv.Syscalls), "workload syscall"))
		}
		parts = append(parts, cv.Variant+": "+s)
	}
	s := strings.Join(parts, "; ")
	if kernelLacksCache(d) {
		s += "; this kernel has none (Linux 5.11+)"
	}
	return s
}

// runVerdict is one sentence on what the stack costs as installed.
func runVerdict(d *document.Document) string {
	var on, def *document.Fit
	for i := range d.Fits {
		switch d.Fits[i].Variant {
		case "on":
			on = &d.Fits[i]
		case "defeat":
			def = &d.Fits[i]
		}
	}
	if on == nil && len(d.Fits) > 0 {
		on = &d.Fits[0]
	}
	if on == nil {
		return "no per-filter fit: see the table and the warnings"
	}
	con := margins.ConcludePerFilter(on.PerFilterNs, on.PerFilterCILowNs, on.PerFilterCIHighNs, on.BaselineNs)
	var s string
	switch con.Verdict {
	case stats.Negligible:
		s = "stacking costs ~nothing as installed"
		if on.Variant == "on" && cacheSupported(d, on) {
			s += " (all calls cached)"
		}
	case stats.Positive:
		s = fmt.Sprintf("as installed, each filter stacked adds %s per op", text.Figure(on.PerFilterNs))
	default:
		s = "as installed, inconclusive: the interval is too wide to tell a filter's cost (--explain)"
	}
	if def != nil && def != on {
		if margins.ConcludePerFilter(def.PerFilterNs, def.PerFilterCILowNs, def.PerFilterCIHighNs, def.BaselineNs).Verdict == stats.Positive {
			s += fmt.Sprintf("; uncached, +%s/op per filter", text.Figure(def.PerFilterNs))
		}
	}
	return s + "."
}

// stackLines says which filters each measured count installs, for a
// stack whose filters have names (Config.FilterNames: a systemd unit's
// directives): "4 filters: ProtectHostname (x86, x32), ...", each count
// naming only what it adds to the one before. Nil without names.
func stackLines(d *document.Document) []string {
	names := d.Config.FilterNames
	if len(names) == 0 {
		return nil
	}
	var out []string
	prev := 0
	for _, n := range d.Config.FilterCounts {
		if n == 0 || n <= prev {
			continue
		}
		var added []string
		for i := prev; i < n; i++ {
			added = append(added, names[i%len(names)])
		}
		verb := ""
		if prev > 0 {
			verb = "+ "
		}
		out = append(out, fmt.Sprintf("%s: %s%s", Plural(n, "filter"), verb, SummarizeNames(added)))
		prev = n
	}
	return out
}

// tableStack writes stackLines under the table, wrapped at TextWidth.
func tableStack(ew *errWriter, d *document.Document) {
	lines := stackLines(d)
	if len(lines) == 0 {
		return
	}
	var b strings.Builder
	b.WriteString("\nwhat each count installs (oldest first; a count installs the first N filters):\n")
	for _, l := range lines {
		b.WriteString("  " + l + "\n")
	}
	ew.printf("%s", text.Wrap(b.String(), TextWidth))
}

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

// EstimateHeadline answers an estimate in at most MaxHeadlineLines lines:
// the stack and the profile; with --command data (Validation's
// EstimateCommand) the predicted added time per run of every part with
// its stated interval and the measured added time (wall and CPU) with
// its interval; the direct part (time inside seccomp, Total) with its
// calibration interval, labelled "direct" because it is not the whole
// added time; without --command the model's per-filter and entry costs;
// how many calls the action cache serves; and which syscalls dominate
// the direct part.
func EstimateHeadline(e *document.Estimate) []HeadlineLine {
	var names []string
	for _, s := range e.Stack {
		names = append(names, s.Name)
	}
	cache := "as installed"
	if e.Cache == "defeat" {
		cache = "cache defeated"
	}
	m, t := e.Model, e.Total
	out := append(BudgetHeadline(e.Budget), []HeadlineLine{
		{"policy", fmt.Sprintf("%s (%s), %s; profile %s: %s", Plural(len(e.Stack), "filter"), SummarizeNames(names), cache,
			text.ElideMiddle(e.Profile.Source, 2*maxPathInHeadline), Plural(t.Calls, "call"))},
	}...)
	c := estimateCommandOf(e)
	if c != nil {
		out = append(out, HeadlineLine{"predicted", predictedHeadText(c)}, HeadlineLine{"measured", measuredHeadText(c)})
	}
	out = append(out, HeadlineLine{"direct", directHeadText(e, c != nil)})
	if c == nil {
		out = append(out,
			HeadlineLine{"per-filter", fmt.Sprintf("%s per filter + %s per instruction run, uncached",
				estPtr(m.PerFilterNs, m.PerFilterCILowNs, m.PerFilterCIHigh), estPtr(m.PerInsnNs, m.PerInsnCILowNs, m.PerInsnCIHighNs))},
			HeadlineLine{"entry", fmt.Sprintf("%s once per uncached call; a cached call %s",
				estPtr(m.EntryNs, m.EntryCILowNs, m.EntryCIHighNs), estPtr(m.CachedNs, m.CachedCILowNs, m.CachedCIHighNs))})
	}
	out = append(out, HeadlineLine{"cache", fmt.Sprintf("%d of %s served by the action cache (no filter runs for them)", t.CachedCalls, Plural(t.Calls, "call"))})
	if b := t.Bracket; b != nil && c == nil {
		out = append(out, HeadlineLine{"bracket", BracketText(b)})
	}
	verdict := estimateVerdict(e)
	if c != nil {
		verdict = coverageHeadText(c)
	}
	out = append(out, HeadlineLine{"verdict", verdict})
	note := fmt.Sprintf("[ ]: %.0f%% CI", m.Confidence*100)
	switch {
	case c != nil && t.ModelErrorPct > 0:
		note += fmt.Sprintf(", predicted's with model error ±%.0f%%", t.ModelErrorPct)
	case c != nil:
		note += ", predicted's with model error"
	case t.Bracket != nil:
		note += " of the calibration; the bracket is a floor and a ceiling, not an interval"
	case t.ModelErrorPct > 0:
		note += fmt.Sprintf(" of the calibration only (the model error on real programs, ±%.0f%%, widens it)", t.ModelErrorPct)
	default:
		note += " of the calibration"
	}
	out = append(out, HeadlineLine{"note", note + "; labels: see " + ReadingDoc + "; --explain"})
	return out
}

// estimateCommandOf is e's --command comparison, nil without one.
func estimateCommandOf(e *document.Estimate) *document.EstimateCommand {
	if e.Validation == nil {
		return nil
	}
	return e.Validation.EstimateCommand
}

// predictedHeadText is the predicted added time per run of the command
// with its stated interval (the note says it includes the model error),
// as the sum of its parts (direct, per process when measured, indirect
// when predicted).
func predictedHeadText(c *document.EstimateCommand) string {
	parts := []string{"direct " + text.Signed(c.SyscallsAddedNs)}
	if c.ProcessProbe != "" {
		parts = append(parts, "per process "+text.Signed(c.ProcessAddedNs))
	}
	if c.GapNs > 0 {
		parts = append(parts, "indirect "+text.Signed(c.IndirectAddedNs))
	}
	return signedInterval(c.PredictedAddedNs, c.PredictedCILowNs, c.PredictedCIHighNs) + " per run = " + strings.Join(parts, " + ")
}

// measuredHeadText is the measured added time per run, wall and CPU,
// with their intervals.
func measuredHeadText(c *document.EstimateCommand) string {
	return fmt.Sprintf("%s per run of %s (wall), CPU user+sys %s",
		signedInterval(c.MeasuredAddedNs, c.MeasuredCILowNs, c.MeasuredCIHighNs), text.Duration(c.BaselineRunNs),
		signedInterval(c.MeasuredCPUAddedNs, c.MeasuredCPUCILowNs, c.MeasuredCPUCIHighNs))
}

// coverageHeadText says whether the stated interval covers the measured
// wall and CPU added times (no verdict for a measurement whose interval
// holds 0), and their ratios.
func coverageHeadText(c *document.EstimateCommand) string {
	word := func(covered bool, lo, hi float64) string {
		switch {
		case spansZero(lo, hi):
			return "no verdict (interval holds 0)"
		case covered:
			return "covered"
		}
		return "NOT covered"
	}
	wall, cpu := word(c.Covered, c.MeasuredCILowNs, c.MeasuredCIHighNs), word(c.CPUCovered, c.MeasuredCPUCILowNs, c.MeasuredCPUCIHighNs)
	cover := "wall " + wall + ", CPU " + cpu
	if wall == cpu {
		cover = "wall and CPU " + wall
	}
	return fmt.Sprintf("predicted interval: %s; predicted ÷ measured %.2f wall, %.2f CPU", cover, c.Ratio, c.CPURatio)
}

// signedInterval is a signed time and its interval in one unit, named
// once: "+437 µs [+120, +754]".
func signedInterval(c, lo, hi float64) string {
	g := text.FigureGroup(true, false, c, lo, hi)
	_, unit := text.UnitOf(max(math.Abs(c), math.Abs(lo), math.Abs(hi)))
	return g(c) + " " + unit + " [" + g(lo) + ", " + g(hi) + "]"
}

// directHeadText is the direct part (Total): the time inside seccomp
// over the profile's calls with its calibration interval; an interval
// reaching below 0 shows from 0 and says so. Without --command it says
// that this is not the whole added time.
func directHeadText(e *document.Estimate, command bool) string {
	t := e.Total
	total := estPtr(t.AddedNs, t.CILowNs, t.CIHighNs)
	if t.AddedNs > 0 {
		total = "+" + total
	}
	clip := ""
	if t.CILowNs != nil && t.CIHighNs != nil && *t.CILowNs < 0 && t.AddedNs >= 0 {
		g := text.FigureGroup(false, true, t.AddedNs, *t.CIHighNs, *t.CILowNs)
		total = "+" + g(t.AddedNs) + " [0, " + g(*t.CIHighNs) + "]"
		clip = " (interval clipped at 0 from " + g(*t.CILowNs) + ": not resolved from 0)"
	}
	if command {
		return total + " in seccomp, " + Plural(t.Calls, "call") + clip + shareText(e)
	}
	total += " inside seccomp over " + Plural(t.Calls, "call") + clip
	if t.NsPerSecond != nil {
		total += fmt.Sprintf(" = %s of the run's time", text.PctFormatter(*t.NsPerSecond/1e7)(*t.NsPerSecond/1e7))
	} else if t.PctOfSyscallTime != nil {
		total += fmt.Sprintf(" = %s of its strace-timed syscall time (inflated by tracing)", text.PctFormatter(*t.PctOfSyscallTime)(*t.PctOfSyscallTime))
	}
	return total + "; the direct part only: the per-process part needs --command"
}

// estimateVerdict names the syscalls that make up most of the direct
// part.
func estimateVerdict(e *document.Estimate) string {
	if s := shareText(e); s != "" {
		return "most of the direct part goes to" + strings.TrimPrefix(s, ":")
	}
	return "no syscall adds time inside seccomp"
}

// shareText is ": " and the (up to three) syscalls with the largest
// shares of the direct part, "" when none adds time.
func shareText(e *document.Estimate) string {
	rows := append([]document.EstimateSyscall(nil), e.Syscalls...)
	slices.SortStableFunc(rows, func(a, b document.EstimateSyscall) int { return cmpDesc(text.Val(a.TotalNs), text.Val(b.TotalNs)) })
	var top []string
	for _, r := range rows {
		if r.Share == nil || *r.Share <= 0 || len(top) == 3 {
			break
		}
		top = append(top, fmt.Sprintf("%s %.0f%%", r.Name, *r.Share*100))
	}
	if len(top) == 0 {
		return ""
	}
	return ": " + strings.Join(top, ", ")
}

// estPtr formats an estimate in ns and its interval (nil: none) in one
// unit: "502 ns [-1104, 2107]".
func estPtr(c float64, lo, hi *float64) string {
	if lo == nil || hi == nil {
		return text.Figure(c) + " (no interval)"
	}
	g := text.FigureGroup(false, false, c, *lo, *hi)
	_, unit := text.UnitOf(max(math.Abs(c), math.Abs(*lo), math.Abs(*hi)))
	return fmt.Sprintf("%s %s [%s, %s]", g(c), unit, g(*lo), g(*hi))
}

// cmpDesc orders a before b when a is larger.
func cmpDesc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// TopHeadline answers top in at most MaxHeadlineLines lines: what was
// sampled, the seccomp share of the processes that spend the most in it
// (with intervals and their filter counts), and a verdict with the best
// predicted saving.
func TopHeadline(t *document.Top) []HeadlineLine {
	sampled := topSampledLine(t)
	if c := t.Children; c != nil {
		sampled += fmt.Sprintf("; the --pid targets' children followed: %d when top started, %d found since", c.AtStart, c.Since)
	}
	out := append(BudgetHeadline(t.Budget), HeadlineLine{"sampled", sampled})
	const maxProcs = MaxHeadlineLines - 3
	for i, p := range t.Processes {
		if i == maxProcs {
			break
		}
		filters := "? filters"
		if p.Filters != nil {
			filters = Plural(*p.Filters, "filter")
		}
		if p.Samples == 0 {
			state := "idle"
			if p.Exited {
				state = "exited"
			}
			out = append(out, HeadlineLine{"seccomp", fmt.Sprintf("%d %s: %s, no samples in the window (%s of CPU), %s", p.Pid, p.Comm,
				state, fmtDurNs(p.CPUNs), filters)})
			continue
		}
		share := "-"
		if p.SeccompShare != nil {
			share = fmt.Sprintf("%.2f%%", *p.SeccompShare*100)
			if p.SeccompShareCILow != nil && p.SeccompShareCIHigh != nil {
				share += fmt.Sprintf(" [%.2f, %.2f]", *p.SeccompShareCILow*100, *p.SeccompShareCIHigh*100)
			}
		}
		out = append(out, HeadlineLine{"seccomp", fmt.Sprintf("%d %s: %s of its CPU in seccomp (%s of %s), %s", p.Pid, p.Comm,
			share, fmtDurNs(p.SeccompNs), fmtDurNs(p.CPUNs), filters)})
	}
	out = append(out, HeadlineLine{"verdict", topVerdict(t)})
	out = append(out, HeadlineLine{"note", fmt.Sprintf("[ ]: %.0f%% CI of the share of CPU samples; labels: see %s; --explain", t.Method.Confidence*100, ReadingDoc)})
	return out
}

// topSampledLine counts the processes sampled over the window, the --pid
// targets without samples that are alive (idle), and those that exited.
func topSampledLine(t *document.Top) string {
	var n, idle, exited int
	for _, p := range t.Processes {
		if p.Exited {
			exited++
		}
		switch {
		case p.Samples > 0:
			n++
		case p.Idle:
			idle++
		}
	}
	s := fmt.Sprintf("%s over %s of wall time", Plural(n, "process"), fmtDurNs(float64(t.WindowNs)))
	if idle > 0 {
		s += fmt.Sprintf("; %s idle (no samples)", Plural(idle, "--pid target"))
	}
	if exited > 0 {
		s += fmt.Sprintf("; %s exited", Plural(exited, "--pid target"))
	}
	return s
}

// topVerdict names the largest predicted saving, or says that none was
// predicted.
func topVerdict(t *document.Top) string {
	best, pid, comm := document.TopPredictionRow{}, 0, ""
	for _, p := range t.Processes {
		if p.Prediction == nil {
			continue
		}
		for _, r := range p.Prediction.Rows {
			if r.SavedNs > best.SavedNs {
				best, pid, comm = r, p.Pid, p.Comm
			}
		}
	}
	if best.SavedNs <= 0 {
		if !topSampled(t) {
			return "nothing to say: no samples of the selected processes"
		}
		return "no merge or optimize saving predicted for these stacks"
	}
	return fmt.Sprintf("%s of %d %s's stack would save %s (%.1f%% of its CPU), predicted", best.Name, pid, comm, fmtDurNs(best.SavedNs), best.SavedShare*100)
}
