package analysis

import (
	"fmt"
	"slices"
	"strings"
)

// Lint finding codes of PartFindings.
const (
	// LintDirectiveCost: what one directive installs and which syscalls
	// it keeps out of the action cache (info).
	LintDirectiveCost = "directive-cost"
	// LintRedundantDirective: the other directives' filters already give
	// every input the same outcome as the stack with this one (info: the
	// directive may still do more outside seccomp, which the message
	// names).
	LintRedundantDirective = "redundant-directive"
)

// PartFindings turns r into lint findings: one LintDirectiveCost per part
// (its filters per ABI with their instructions, the syscalls it keeps out
// of the kernel's action cache without refusing them, those only it
// keeps out, how many it refuses),
// and one LintRedundantDirective per part proved redundant, whose message
// says what the directive does besides its filters (otherEffects(name),
// "" for nothing: systemd.OtherEffects) so that removing it is never
// advised blindly. depth is the whole stack's filter count, named as what
// an uncached call runs. A source of one part gets none: its one
// directive is the whole stack, which Lint's own findings describe.
func PartFindings(r *PartsReport, otherEffects func(string) string) []Finding {
	if r == nil || len(r.Parts) < 2 {
		return nil
	}
	depth := 0
	for _, p := range r.Parts {
		depth += len(p.Filters)
	}
	var out []Finding
	for _, p := range r.Parts {
		first := -1
		if len(p.Filters) > 0 {
			first = p.Filters[0].Index
		}
		msg := fmt.Sprintf("%s= installs %s.", p.Name, PartFiltersText(p))
		if len(p.Uncached) > 0 {
			msg += fmt.Sprintf(" Uncached on %s (argument checks or LOG): %s.", r.ABI, sampleNames(p.Uncached))
			msg += fmt.Sprintf(" Each such call runs all %d filters", depth)
			switch {
			case slices.Equal(p.OnlyThis, p.Uncached):
				msg += "; only it keeps them out of the cache."
			case len(p.OnlyThis) > 0:
				msg += fmt.Sprintf("; only it keeps out %s.", sampleNames(p.OnlyThis))
			default:
				msg += "."
			}
		} else {
			msg += " It keeps no syscall that can succeed out of the action cache."
		}
		if p.Refused > 0 {
			msg += fmt.Sprintf(" It refuses %s by number.", plural(p.Refused, "syscall"))
		}
		out = append(out, Finding{Severity: SeverityInfo, Code: LintDirectiveCost, Filter: first, Message: msg,
			Hint: "the uncached calls are what its filters cost on every call; `run` on the unit measures each directive's prefix"})
		if p.Redundant != RedundantYes {
			continue
		}
		rmsg := fmt.Sprintf("%s='s filters are redundant: the others give every input the same outcome without them.", p.Name)
		rmsg += " Proved by equiv over every syscall, argument and ABI."
		hint := fmt.Sprintf("it does nothing outside seccomp (systemd.exec(5)); removing it saves %s. Check again after removing one: two directives can each cover the other", plural(len(p.Filters), "filter"))
		if e := otherEffects(p.Name); e != "" {
			rmsg += " Outside seccomp it also gives " + e + "."
			hint = "keep it for what it does outside seccomp, or remove it knowing those go too; its filters alone add nothing"
		}
		out = append(out, Finding{Severity: SeverityInfo, Code: LintRedundantDirective, Filter: first, Message: rmsg, Hint: hint})
	}
	return out
}

// PartFiltersText is "3 filters (x86 12, x32 12, x86_64 14 instructions)":
// a part's filters by ABI with their lengths.
func PartFiltersText(p PartCost) string {
	var each []string
	for _, f := range p.Filters {
		abi := f.ABI
		if abi == "" {
			abi = fmt.Sprintf("#%d", f.Index)
		}
		each = append(each, fmt.Sprintf("%s %d", abi, f.Insns))
	}
	return fmt.Sprintf("%s (%s instructions)", plural(len(p.Filters), "filter"), strings.Join(each, ", "))
}
