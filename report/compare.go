package report

import (
	"fmt"
	"io"

	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/report/internal/text"
	"github.com/seccompbench/seccompbench/stats"
)

// Compare builds the comparison of every document after the first with
// the first: it pairs cells and fitted terms and takes each difference,
// its test and its decision from stats (stats.CompareSamples, Welch t on
// results[].samples_ns, per cell; stats.CompareEstimates on per_filter and
// entry), computing none itself. Cells or fits present in
// only one side are listed in Missing. Different kernels, CPU models,
// confidence levels or partial results give warnings. Errors wrap
// [ErrTooFewResults], [stats.ErrConfidence] or, unless opt.Force,
// [ErrWorkloadMismatch].
func Compare(docs []document.NamedDocument, opt document.CompareOptions) (*document.Comparison, error) {
	if len(docs) < 2 {
		return nil, fmt.Errorf("compare: %w (got %d)", document.ErrTooFewResults, len(docs))
	}
	if err := stats.CheckConfidence(opt.Confidence); err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	c := &document.Comparison{SchemaVersion: document.ComparisonSchemaVersion, Kind: document.KindCompare, Test: document.CellTest, FitMethod: document.FitMethod,
		Confidence: opt.Confidence, Alpha: 1 - opt.Confidence, Cells: []document.CellChange{}, Fits: []document.FitChange{}, Warnings: []string{}}
	for _, nd := range docs {
		d := nd.Doc
		var pols []string
		for _, p := range d.Config.Policies {
			pols = append(pols, p.Path)
		}
		c.Sources = append(c.Sources, document.Source{Name: nd.Name, Created: d.Created, ToolVersion: d.Tool.Version, Kernel: d.Environment.Kernel,
			CPUModel: d.Environment.CPUModel, Workload: d.Config.Workload, Policies: pols, Partial: d.Partial,
			ParentSeccompFilters: d.Environment.ParentSeccompFilters})
		if d.Partial {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s is a partial result (the run was interrupted)", nd.Name))
		}
		if segmentless(d.Fits) {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: its intervals leave out how the host's speed wanders between parts of a run (fewer than 15 blocks, or written before time segments); a change's interval that uses them may be too narrow, since two runs differ by that wander too", nd.Name))
		}
	}
	base := docs[0]
	for i := 1; i < len(docs); i++ {
		o := docs[i]
		bw, ow := base.Doc.Config.Workload, o.Doc.Config.Workload
		if bw != ow {
			if !opt.Force {
				return nil, fmt.Errorf("compare %s with %s: %w: %q vs %q count different ops", base.Name, o.Name, document.ErrWorkloadMismatch, bw, ow)
			}
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s measured workload %q, %s %q: forced comparison of different ops", base.Name, bw, o.Name, ow))
		}
		be, oe := base.Doc.Environment, o.Doc.Environment
		if be.Kernel != oe.Kernel {
			c.Warnings = append(c.Warnings, fmt.Sprintf("different kernels: %s ran on %s, %s on %s; a change may come from the kernel, not the policy", base.Name, text.OrDash(be.Kernel), o.Name, text.OrDash(oe.Kernel)))
		}
		if be.CPUModel != oe.CPUModel {
			c.Warnings = append(c.Warnings, fmt.Sprintf("different CPUs: %s ran on %q, %s on %q; a change may come from the machine, not the policy", base.Name, be.CPUModel, o.Name, oe.CPUModel))
		}
		if w := InheritedFiltersWarning(base.Name, be.ParentSeccompFilters, o.Name, oe.ParentSeccompFilters); w != "" {
			c.Warnings = append(c.Warnings, w)
		}
		if w := PolicyMismatchWarning(base, o); w != "" {
			c.Warnings = append(c.Warnings, w)
		}
		if base.Doc.Config.Confidence != o.Doc.Config.Confidence {
			c.Warnings = append(c.Warnings, fmt.Sprintf("the results used different confidence levels (%g, %g); fit intervals are rescaled to %g", base.Doc.Config.Confidence, o.Doc.Config.Confidence, opt.Confidence))
		}
		compareCells(c, i, base, o, opt.Confidence)
		compareFits(c, i, base, o, opt.Confidence)
	}
	return c, nil
}

// InheritedFiltersWarning says, when two runs named a and b inherited
// different numbers of seccomp filters (Environment.ParentSeccompFilters,
// -1 unknown), that every filter count of one side ran on top of more
// filters than the other's: the baseline (0 added filters) and the entry
// cost differ for that reason alone (kernel/seccomp.c runs every filter
// of the stack, inherited ones included). "" when they agree.
func InheritedFiltersWarning(a string, na int, b string, nb int) string {
	if na == nb {
		return ""
	}
	count := func(n int) string {
		if n < 0 {
			return "an unknown number of"
		}
		return fmt.Sprint(n)
	}
	return fmt.Sprintf("different inherited seccomp filters: %s ran under %s, %s under %s (a container or service manager installed them); every filter count of one runs on top of more filters, so its baseline and entry cost move for that reason alone",
		a, count(na), b, count(nb))
}

// sameLoader reports whether cells or fits of loaders a and b compare:
// equal, or one of them from a document written before --loader.
func sameLoader(a, b string) bool { return a == b || a == "" || b == "" }

// compareLabel names a variant for a comparison: with its loader when the
// document measured several ("defeat/privileged").
func compareLabel(d *document.Document, variant, loader string) string {
	if d.Config.Loader == "both" && loader != "" {
		return variant + "/" + loader
	}
	return variant
}

func compareCells(c *document.Comparison, src int, base, o document.NamedDocument, conf float64) {
	find := func(d *document.Document, v, l string, n int) *document.CellResult {
		for i := range d.Results {
			if d.Results[i].Variant == v && sameLoader(d.Results[i].Loader, l) && d.Results[i].Filters == n {
				return &d.Results[i]
			}
		}
		return nil
	}
	for _, br := range base.Doc.Results {
		name := compareLabel(base.Doc, br.Variant, br.Loader)
		or := find(o.Doc, br.Variant, br.Loader, br.Filters)
		if or == nil {
			c.Missing = append(c.Missing, document.MissingCell{Source: src, Variant: name, Filters: br.Filters, In: base.Name})
			continue
		}
		d := stats.CompareSamples(br.SamplesNs, or.SamplesNs, conf)
		cc := document.CellChange{Source: src, Variant: name, Filters: br.Filters, NBase: len(br.SamplesNs), N: len(or.SamplesNs), Change: change(d)}
		cc.BaseNs, cc.Ns = br.MeanNs, or.MeanNs
		c.Cells = append(c.Cells, cc)
	}
	for _, or := range o.Doc.Results {
		if find(base.Doc, or.Variant, or.Loader, or.Filters) == nil {
			c.Missing = append(c.Missing, document.MissingCell{Source: src, Variant: compareLabel(o.Doc, or.Variant, or.Loader), Filters: or.Filters, In: o.Name})
		}
	}
}

func compareFits(c *document.Comparison, src int, base, o document.NamedDocument, conf float64) {
	for _, bf := range base.Doc.Fits {
		var of *document.Fit
		name := compareLabel(base.Doc, bf.Variant, bf.Loader)
		for i := range o.Doc.Fits {
			if o.Doc.Fits[i].Variant == bf.Variant && sameLoader(o.Doc.Fits[i].Loader, bf.Loader) {
				of = &o.Doc.Fits[i]
				break
			}
		}
		if of == nil {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s has no fit for variant %s; its per-filter change is not shown", o.Name, name))
			continue
		}
		bc, oc := base.Doc.Config.Confidence, o.Doc.Config.Confidence
		terms := []struct {
			name   string
			b, x   stats.Estimate
			exists bool
		}{
			{"per_filter", stats.Estimate{Center: bf.PerFilterNs, Lo: bf.PerFilterCILowNs, Hi: bf.PerFilterCIHighNs, Confidence: bc},
				stats.Estimate{Center: of.PerFilterNs, Lo: of.PerFilterCILowNs, Hi: of.PerFilterCIHighNs, Confidence: oc}, true},
			{"entry", stats.Estimate{Center: bf.EntryNs, Lo: bf.EntryCILowNs, Hi: bf.EntryCIHighNs, Confidence: bc},
				stats.Estimate{Center: of.EntryNs, Lo: of.EntryCILowNs, Hi: of.EntryCIHighNs, Confidence: oc},
				// Documents store a missing entry (no 0-filter children) as 0 with a 0-width interval.
				!(bf.EntryCILowNs == 0 && bf.EntryCIHighNs == 0) && !(of.EntryCILowNs == 0 && of.EntryCIHighNs == 0)},
		}
		for _, t := range terms {
			if !t.exists {
				continue
			}
			ch := change(stats.CompareEstimates(t.b, t.x, conf))
			ch.BaseNs, ch.Ns = t.b.Center, t.x.Center
			c.Fits = append(c.Fits, document.FitChange{Source: src, Variant: name, Term: t.name, Change: ch})
		}
	}
}

// change copies a stats.Comparison into a Change, mapping NaN to 0 (the
// comparison's Known says whether there was a value).
func change(d stats.Comparison) document.Change {
	return document.Change{DeltaNs: document.Finite(d.Delta), CILowNs: document.Finite(d.Lo), CIHighNs: document.Finite(d.Hi), DeltaPct: document.Finite(d.Pct),
		PctLow: document.Finite(d.PctLo), PctHigh: document.Finite(d.PctHi), P: document.Finite(d.P), Warnings: d.Warnings,
		Known: d.Known, Significant: d.Significant}
}

// WriteComparisonJSON writes c as indented JSON.
func WriteComparisonJSON(w io.Writer, c *document.Comparison) error {
	return document.WriteIndented(w, c, "encode comparison")
}

// deltaText is a change as people read it: "~" when not significant, "?"
// without enough data, else the signed change in percent of the base, or
// in ns when inNs (model terms, whose base may be ~0).
func deltaText(ch document.Change, inNs bool) string {
	switch {
	case !ch.Known:
		return "?"
	case !ch.Significant:
		return "~"
	case inNs || ch.BaseNs <= 0:
		return fmt.Sprintf("%+.2f ns", text.Num(ch.DeltaNs))
	}
	return fmt.Sprintf("%+.1f%%", text.Num(ch.DeltaPct))
}

func pText(ch document.Change) string {
	if !ch.Known {
		return "-"
	}
	if ch.P < 0.001 {
		return "<0.001"
	}
	return fmt.Sprintf("%.3f", ch.P)
}

// fitTermLabel names a fitted term for people.
func fitTermLabel(t string) string {
	if t == "per_filter" {
		return "per filter"
	}
	return t
}

// PolicyMismatchWarning says that two compared runs measured different
// policies (by path and content hash), naming both: a change between
// them is the policies' difference, not a regression of one. "" when
// they measured the same.
func PolicyMismatchWarning(base, o document.NamedDocument) string {
	bp, op := base.Doc.Config.Policies, o.Doc.Config.Policies
	same := len(bp) == len(op)
	for i := 0; same && i < len(bp); i++ {
		same = bp[i].Path == op[i].Path && bp[i].SHA256 == op[i].SHA256
	}
	if same {
		return ""
	}
	return fmt.Sprintf("different policies: %s measured %s, %s measured %s; the changes below are between two policies, not one policy over time",
		base.Name, PolicyTitle(base.Doc), o.Name, PolicyTitle(o.Doc))
}
