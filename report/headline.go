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
// with continuation lines indented, except the budget verdict line, which
// stays one line however long; the note line has no label.
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
		if l.Label == "budget" {
			// The verdict line is never wrapped: a CI step reads only
			// the first line of the output (docs/ci-gate.md).
			first = line
		}
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
