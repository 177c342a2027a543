package report

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/seccompbench/seccompbench/stats"
)

// ComparisonSchemaVersion is the version of the comparison JSON document
// (kind "compare").
const ComparisonSchemaVersion = ContractVersion

// Names of the methods a comparison uses, as written into it.
const (
	// CellTest is the per-cell test: Welch's unequal-variance t-test on the
	// per-child ns/op values (results[].samples_ns), two-sided.
	CellTest = "welch-t"
	// FitMethod is how per-filter and entry changes are estimated: the
	// difference of two independent least-squares estimates, their
	// intervals combined by a normal approximation (stats.DiffIndependent).
	FitMethod = "independent-normal"
)

// ErrTooFewResults is returned by [Compare] when it gets fewer than two
// result documents.
var ErrTooFewResults = errors.New("need at least two results to compare")

// ErrWorkloadMismatch is returned (wrapped) by [Compare] when two results
// measured different workloads: their ns/op count different ops.
var ErrWorkloadMismatch = errors.New("results measured different workloads")

// NamedDocument is a result document with the name it is shown under
// (usually its file name).
type NamedDocument struct {
	Name string
	Doc  *Document
}

// CompareOptions tune [Compare].
type CompareOptions struct {
	// Confidence is the level of every interval, a fraction in (0, 1); a
	// change is significant when p < 1 - Confidence.
	Confidence float64
	// Force compares results of different workloads instead of returning
	// ErrWorkloadMismatch (a warning says so).
	Force bool
}

// Comparison is the result of `seccompbench compare` (JSON: schema_version
// 1). Sources[0] is the base every other source is compared with. Times in
// ns/op; percentages are percent of the base.
type Comparison struct {
	SchemaVersion int `json:"schema_version"`
	// Kind is KindCompare ("comparison" before docs/json.md fixed kinds).
	Kind       Kind    `json:"kind"`
	Test       string  `json:"test"`
	FitMethod  string  `json:"fit_method"`
	Confidence float64 `json:"confidence"`
	// Alpha is 1 - Confidence: changes with p < Alpha are significant.
	Alpha    float64       `json:"alpha"`
	Sources  []Source      `json:"sources"`
	Cells    []CellChange  `json:"cells"`
	Fits     []FitChange   `json:"fits"`
	Missing  []MissingCell `json:"missing,omitempty"`
	Warnings []string      `json:"warnings"`
	// Budget is the --budget verdict on the second source against the
	// base (CompareBudget), the headline's first line; absent otherwise.
	Budget *BudgetVerdict `json:"budget,omitempty"`
}

// Source describes one compared result.
type Source struct {
	Name        string    `json:"name"`
	Created     time.Time `json:"created"`
	ToolVersion string    `json:"tool_version"`
	Kernel      string    `json:"kernel"`
	CPUModel    string    `json:"cpu_model"`
	Workload    string    `json:"workload"`
	Policies    []string  `json:"policies"`
	Partial     bool      `json:"partial,omitempty"`
	// ParentSeccompFilters is the number of seccomp filters the run
	// inherited (Environment.ParentSeccompFilters; -1 unknown).
	ParentSeccompFilters int `json:"parent_seccomp_filters"`
}

// Change is one estimated change from the base to another source, with its
// interval and p-value. Significant is p < alpha; it says the change is
// unlikely to be noise, not that it is large.
type Change struct {
	BaseNs      float64 `json:"base_ns"`
	Ns          float64 `json:"ns"`
	DeltaNs     float64 `json:"delta_ns"`
	CILowNs     float64 `json:"ci_low_ns"`
	CIHighNs    float64 `json:"ci_high_ns"`
	DeltaPct    float64 `json:"delta_pct"`
	PctLow      float64 `json:"delta_pct_ci_low"`
	PctHigh     float64 `json:"delta_pct_ci_high"`
	P           float64 `json:"p"`
	Significant bool    `json:"significant"`
	// Known is false when there was too little data for an interval or a
	// p-value (the numbers are then 0 and a warning says why).
	Known    bool     `json:"known"`
	Warnings []string `json:"warnings,omitempty"`
}

// CellChange is the change of one (variant, filter count) cell's mean ns/op
// (Welch t-test on the per-child values). Source indexes Sources.
type CellChange struct {
	Source  int    `json:"source"`
	Variant string `json:"variant"`
	Filters int    `json:"filters"`
	NBase   int    `json:"n_base"`
	N       int    `json:"n"`
	Change
}

// FitChange is the change of one fitted term of a variant's model: "per_filter"
// (ns/op per filter) or "entry" (ns/op once for any filter).
type FitChange struct {
	Source  int    `json:"source"`
	Variant string `json:"variant"`
	Term    string `json:"term"`
	Change
}

// MissingCell is a cell measured in only one of a compared pair.
type MissingCell struct {
	Source  int    `json:"source"`
	Variant string `json:"variant"`
	Filters int    `json:"filters"`
	// In names the source that has it.
	In string `json:"in"`
}

// Compare builds the comparison of every document after the first with
// the first: it pairs cells and fitted terms and takes each difference,
// its test and its decision from stats (stats.CompareSamples, Welch t on
// results[].samples_ns, per cell; stats.CompareEstimates on per_filter and
// entry), computing none itself. Cells or fits present in
// only one side are listed in Missing. Different kernels, CPU models,
// confidence levels or partial results give warnings. Errors wrap
// [ErrTooFewResults], [stats.ErrConfidence] or, unless opt.Force,
// [ErrWorkloadMismatch].
func Compare(docs []NamedDocument, opt CompareOptions) (*Comparison, error) {
	if len(docs) < 2 {
		return nil, fmt.Errorf("compare: %w (got %d)", ErrTooFewResults, len(docs))
	}
	if err := stats.CheckConfidence(opt.Confidence); err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	c := &Comparison{SchemaVersion: ComparisonSchemaVersion, Kind: KindCompare, Test: CellTest, FitMethod: FitMethod,
		Confidence: opt.Confidence, Alpha: 1 - opt.Confidence, Cells: []CellChange{}, Fits: []FitChange{}, Warnings: []string{}}
	for _, nd := range docs {
		d := nd.Doc
		var pols []string
		for _, p := range d.Config.Policies {
			pols = append(pols, p.Path)
		}
		c.Sources = append(c.Sources, Source{Name: nd.Name, Created: d.Created, ToolVersion: d.Tool.Version, Kernel: d.Environment.Kernel,
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
				return nil, fmt.Errorf("compare %s with %s: %w: %q vs %q count different ops", base.Name, o.Name, ErrWorkloadMismatch, bw, ow)
			}
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s measured workload %q, %s %q: forced comparison of different ops", base.Name, bw, o.Name, ow))
		}
		be, oe := base.Doc.Environment, o.Doc.Environment
		if be.Kernel != oe.Kernel {
			c.Warnings = append(c.Warnings, fmt.Sprintf("different kernels: %s ran on %s, %s on %s; a change may come from the kernel, not the policy", base.Name, OrDash(be.Kernel), o.Name, OrDash(oe.Kernel)))
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
func compareLabel(d *Document, variant, loader string) string {
	if d.Config.Loader == "both" && loader != "" {
		return variant + "/" + loader
	}
	return variant
}

func compareCells(c *Comparison, src int, base, o NamedDocument, conf float64) {
	find := func(d *Document, v, l string, n int) *CellResult {
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
			c.Missing = append(c.Missing, MissingCell{Source: src, Variant: name, Filters: br.Filters, In: base.Name})
			continue
		}
		d := stats.CompareSamples(br.SamplesNs, or.SamplesNs, conf)
		cc := CellChange{Source: src, Variant: name, Filters: br.Filters, NBase: len(br.SamplesNs), N: len(or.SamplesNs), Change: change(d)}
		cc.BaseNs, cc.Ns = br.MeanNs, or.MeanNs
		c.Cells = append(c.Cells, cc)
	}
	for _, or := range o.Doc.Results {
		if find(base.Doc, or.Variant, or.Loader, or.Filters) == nil {
			c.Missing = append(c.Missing, MissingCell{Source: src, Variant: compareLabel(o.Doc, or.Variant, or.Loader), Filters: or.Filters, In: o.Name})
		}
	}
}

func compareFits(c *Comparison, src int, base, o NamedDocument, conf float64) {
	for _, bf := range base.Doc.Fits {
		var of *Fit
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
			c.Fits = append(c.Fits, FitChange{Source: src, Variant: name, Term: t.name, Change: ch})
		}
	}
}

// change copies a stats.Comparison into a Change, mapping NaN to 0 (the
// comparison's Known says whether there was a value).
func change(d stats.Comparison) Change {
	return Change{DeltaNs: finite(d.Delta), CILowNs: finite(d.Lo), CIHighNs: finite(d.Hi), DeltaPct: finite(d.Pct),
		PctLow: finite(d.PctLo), PctHigh: finite(d.PctHi), P: finite(d.P), Warnings: d.Warnings,
		Known: d.Known, Significant: d.Significant}
}

// WriteComparisonJSON writes c as indented JSON.
func WriteComparisonJSON(w io.Writer, c *Comparison) error {
	return writeIndented(w, c, "encode comparison")
}

// deltaText is a change as people read it: "~" when not significant, "?"
// without enough data, else the signed change in percent of the base, or
// in ns when inNs (model terms, whose base may be ~0).
func deltaText(ch Change, inNs bool) string {
	switch {
	case !ch.Known:
		return "?"
	case !ch.Significant:
		return "~"
	case inNs || ch.BaseNs <= 0:
		return fmt.Sprintf("%+.2f ns", Num(ch.DeltaNs))
	}
	return fmt.Sprintf("%+.1f%%", Num(ch.DeltaPct))
}

func pText(ch Change) string {
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
func PolicyMismatchWarning(base, o NamedDocument) string {
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
