package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/seccompbench/seccompbench/filters/analysis"
	"github.com/seccompbench/seccompbench/filters/systemd"
	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/report/internal/text"
)

// UnitDirectivesOf converts PartCosts' answer for a systemd unit, adding
// each directive's non-seccomp effects (systemd.OtherEffects). Nil for
// nil.
func UnitDirectivesOf(r *analysis.PartsReport) *document.UnitDirectives {
	if r == nil {
		return nil
	}
	u := &document.UnitDirectives{ABI: r.ABI, Uncached: r.Uncached, Cached: r.Cached, Total: r.Total}
	for _, p := range r.Parts {
		d := document.DirectiveCost{Name: p.Name, Uncached: p.Uncached, Refused: p.Refused, OnlyThis: p.OnlyThis, Redundant: p.Redundant,
			Witness: p.Witness, OtherEffects: systemd.OtherEffects(p.Name)}
		for _, f := range p.Filters {
			d.Filters = append(d.Filters, f.ABI)
			d.Instructions = append(d.Instructions, f.Insns)
		}
		u.Directives = append(u.Directives, d)
	}
	return u
}

// directiveLines are the per-directive lines under run's table: one per
// directive ("MemoryDenyWriteExecute: 3 filters, 45 insns; uncached:
// mmap, mprotect (only it: mmap)"), its redundancy and non-seccomp
// effects when proved redundant, and the whole stack's uncached list.
func directiveLines(u *document.UnitDirectives) []string {
	if u == nil || len(u.Directives) == 0 {
		return nil
	}
	var out []string
	for _, d := range u.Directives {
		n := 0
		for _, k := range d.Instructions {
			n += k
		}
		l := fmt.Sprintf("%s: %s, %d insns.", d.Name, Plural(len(d.Filters), "filter"), n)
		if len(d.Uncached) > 0 {
			l += " Uncached: " + strings.Join(d.Uncached, ", ")
			switch {
			case slices.Equal(d.OnlyThis, d.Uncached):
				l += " (only it)"
			case len(d.OnlyThis) > 0:
				l += " (only it: " + strings.Join(d.OnlyThis, ", ") + ")"
			}
			l += "."
		}
		if d.Redundant == analysis.RedundantYes {
			l += " Redundant: the others give the same verdicts."
			if d.OtherEffects != "" {
				l += " Outside seccomp it also gives " + d.OtherEffects + "."
			} else {
				l += " Nothing outside seccomp."
			}
		}
		out = append(out, l)
	}
	all := "none"
	if len(u.Uncached) > 0 {
		all = strings.Join(u.Uncached, ", ")
	}
	out = append(out, fmt.Sprintf("Uncached in the whole stack (%s, calls that can succeed): %s.", u.ABI, all))
	return out
}

// directivesHeading introduces directiveLines.
const directivesHeading = "what each directive costs (uncached: calls its argument checks or LOG make run every filter; redundant: one directive at a time):"

// tableDirectives writes directiveLines under the table, wrapped at
// TextWidth.
func tableDirectives(ew *errWriter, d *document.Document) {
	lines := directiveLines(d.Config.Directives)
	if len(lines) == 0 {
		return
	}
	var b strings.Builder
	b.WriteString("\n" + directivesHeading + "\n")
	for _, l := range lines {
		b.WriteString("  " + l + "\n")
	}
	ew.printf("%s", text.Wrap(b.String(), TextWidth))
}

// mdDirectives is tableDirectives as a Markdown list.
func mdDirectives(ew *errWriter, d *document.Document) {
	lines := directiveLines(d.Config.Directives)
	if len(lines) == 0 {
		return
	}
	ew.printf("%s%s\n\n", strings.ToUpper(directivesHeading[:1]), directivesHeading[1:])
	for _, l := range lines {
		ew.printf("- %s\n", mdEscape(l))
	}
	ew.printf("\n")
}
