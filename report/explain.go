package report

import (
	"fmt"
	"strings"
)

// Explain returns one sentence per variant that says what its numbers mean,
// from the document's fits and cache predictions.
func Explain(d *Document) []Meaning {
	var out []Meaning
	for _, v := range d.Config.Variants {
		var fit *Fit
		for i := range d.Fits {
			if d.Fits[i].Variant == v {
				fit = &d.Fits[i]
			}
		}
		var cached, uncached []string
		var reasons []string
		for _, cv := range d.Cache {
			if cv.Variant != v {
				continue
			}
			for _, s := range cv.Syscalls {
				if s.Cached {
					cached = append(cached, s.Name)
				} else {
					uncached = append(uncached, s.Name)
					if s.Reason != "" && len(reasons) < 2 {
						reasons = append(reasons, s.Name+": "+s.Reason)
					}
				}
			}
		}
		var b strings.Builder
		if d.Config.Workload == "notify" {
			b.WriteString(notifyRoundTrip(d, v))
		}
		switch {
		case len(cached) > 0 && len(uncached) == 0:
			fmt.Fprintf(&b, "%s %s allowed unconditionally by every filter: the kernel's action cache skips the filters", list(cached), verbFor(cached, "is", "are"))
		case len(cached) == 0 && len(uncached) > 0:
			fmt.Fprintf(&b, "no workload syscall is served by the action cache, so every filter runs on every syscall")
			if v == "defeat" {
				b.WriteString(" (ld [instruction_pointer] prepended to each filter)")
			} else if len(reasons) > 0 {
				fmt.Fprintf(&b, " (%s)", strings.Join(reasons, "; "))
			}
		case len(cached) > 0:
			fmt.Fprintf(&b, "%s %s served by the action cache, %s %s every filter", list(cached), verbFor(cached, "is", "are"), list(uncached), verbFor(uncached, "runs", "run"))
			if len(reasons) > 0 {
				fmt.Fprintf(&b, " (%s)", strings.Join(reasons, "; "))
			}
		default:
			fmt.Fprintf(&b, "no cache prediction")
		}
		if fit == nil {
			b.WriteString("; too few filter counts ≥ 1 to fit a per-filter cost")
		} else {
			ci := fmt.Sprintf("%.0f%% CI [%.2f, %.2f]", d.Config.Confidence*100, num(fit.PerFilterCILowNs), num(fit.PerFilterCIHighNs))
			half := (fit.PerFilterCIHighNs - fit.PerFilterCILowNs) / 2
			switch {
			case fit.PerFilterCILowNs <= 0 && fit.PerFilterCIHighNs >= 0 && half <= max(2, 0.002*fit.BaselineNs):
				fmt.Fprintf(&b, "; per-filter cost ~0 ns (%.1f ns, %s includes 0)", num(fit.PerFilterNs), ci)
			case fit.PerFilterCILowNs <= 0 && fit.PerFilterCIHighNs >= 0:
				fmt.Fprintf(&b, "; no per-filter cost is distinguishable from 0 at this precision (%.1f ns, %s): add --trials or quiet the machine", num(fit.PerFilterNs), ci)
			default:
				fmt.Fprintf(&b, "; each filter adds %.1f ns per op (%s)", num(fit.PerFilterNs), ci)
			}
			if fit.EntryCILowNs > 0 || fit.EntryCIHighNs < 0 {
				fmt.Fprintf(&b, ", and turning filtering on costs %.0f ns per op once (entry, CI [%.0f, %.0f])", num(fit.EntryNs), num(fit.EntryCILowNs), num(fit.EntryCIHighNs))
			}
		}
		b.WriteString(".")
		out = append(out, Meaning{Variant: v, Text: b.String()})
	}
	return out
}

// list joins names as "a, b and c".
func list(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// verbFor picks the verb form for a list of names.
func verbFor(names []string, one, many string) string {
	if len(names) == 1 {
		return one
	}
	return many
}

// notifyRoundTrip states the notify workload's round trip in microseconds
// at the variant's lowest filter count: "one SECCOMP_RET_USER_NOTIF round
// trip takes 16.1 µs at 0 filters (mean 18.0 µs, 95% CI [15.2, 20.9] µs);
// ". "" when that cell has no result.
func notifyRoundTrip(d *Document, v string) string {
	var low *CellResult
	for i := range d.Results {
		r := &d.Results[i]
		if r.Variant == v && (low == nil || r.Filters < low.Filters) {
			low = r
		}
	}
	if low == nil || low.N == 0 {
		return ""
	}
	return fmt.Sprintf("one SECCOMP_RET_USER_NOTIF round trip takes %.1f µs at %d filters (median; mean %.1f µs, %.0f%% CI [%.1f, %.1f] µs); ",
		num(low.MedianNs/1e3), low.Filters, num(low.MeanNs/1e3), d.Config.Confidence*100, num(low.CILowNs/1e3), num(low.CIHighNs/1e3))
}
