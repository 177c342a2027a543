// Package report turns a finished measurement (stats.Result, samples,
// environment) into the JSON result document and renders it as text. It
// formats; it never measures and computes no statistics of its own.
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"

	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/stats"
)

// Build assembles the result document. It copies numbers; the statistics
// come from stats.Result.
func Build(in document.Input) *document.Document {
	d := &document.Document{
		SchemaVersion: document.SchemaVersion,
		Kind:          document.KindRun,
		Partial:       in.Partial,
		Tool:          in.Tool,
		Command:       in.Command,
		Created:       in.Created.UTC(),
		Environment:   in.Environment,
		Config:        in.Config,
		Cache:         in.Cache,
		Setup:         in.Setup,
		Control:       in.Control,
		Run:           in.Run,
		Drift:         in.Drift,
		Linearity:     in.Linearity,
		Warnings:      append([]string{}, in.Warnings...),
	}
	d.Results = cellResults(in.Result.Cells, in.Samples)
	d.Fits = runFits(in.Result.Fits)
	for _, ld := range in.Result.LoaderDiffs {
		d.LoaderDiffs = append(d.LoaderDiffs, document.LoaderDiff{Variant: ld.Variant, A: ld.A, B: ld.B,
			PerFilterDiffNs: ld.Delta, CILowNs: ld.Lo, CIHighNs: ld.Hi, P: ld.P,
			Significant: ld.Significant(), Warnings: ld.Warnings})
	}
	d.Children = children(in.Samples)
	d.Throughput = throughput(d.Children)
	sortThroughput(d.Throughput, d.Config.Variants)
	sort.SliceStable(d.Children, func(i, j int) bool { return d.Children[i].Seq < d.Children[j].Seq })
	// Undefined numbers stay NaN (null in JSON): the verdicts and
	// sentences below must see that they are missing.
	for i := range d.Control {
		c := &d.Control[i]
		if c.Verdict == "" {
			c.Verdict = controlConclusion(*c, d.Environment.Vulnerabilities["spec_store_bypass"], runTrials(d)).Code
		}
	}
	d.CommandWorkload = in.CommandWorkload.CopyFinite()
	d.Budget = in.Budget
	d.Warnings = append(d.Warnings, in.Result.Warnings...)
	d.Meaning = Explain(d)
	if d.Results == nil {
		d.Results = []document.CellResult{}
	}
	if d.Fits == nil {
		d.Fits = []document.Fit{}
	}
	if d.Cache == nil {
		d.Cache = []document.CacheVariant{}
	}
	return d
}

// cellResults copies the statistics of each cell (ns per op, overhead in
// ns and %) into the document's results, in the order of cells, marking
// a cell CapSysAdmin when one of its samples ran with CAP_SYS_ADMIN. It
// returns nil for no cells.
func cellResults(cells []stats.CellResult, samples []result.Sample) []document.CellResult {
	capOf := map[[3]string]bool{}
	for _, s := range samples {
		if s.CapSysAdmin {
			capOf[[3]string{string(s.Variant), string(s.Loader), fmt.Sprint(s.Filters)}] = true
		}
	}
	var out []document.CellResult
	for _, c := range cells {
		s, o := c.Summary, c.Overhead
		pads := c.Pads
		if pads == nil {
			pads = []int{}
		}
		out = append(out, document.CellResult{
			Variant: c.Variant, Loader: c.Loader, Filters: c.Filters, N: s.N, Pads: pads,
			CapSysAdmin: capOf[[3]string{c.Variant, c.Loader, fmt.Sprint(c.Filters)}],
			MeanNs:      s.Mean, MedianNs: s.Median, StddevNs: s.StdDev,
			CILowNs: s.Lo, CIHighNs: s.Hi,
			OverheadNs: o.Delta, OverheadCILowNs: o.Lo, OverheadCIHighNs: o.Hi,
			OverheadPct: o.Pct, OverheadPctLow: o.PctLo, OverheadPctHigh: o.PctHi,
			OverheadP: o.P, Outliers: c.Outliers, SamplesNs: c.Samples,
			Warnings: append(append([]string{}, s.Warnings...), o.Warnings...),
		})
	}
	return out
}

// runFits copies the stack fits into the document's fits, in their
// order; an unpaired fit's relative figures, bare ns and bare segment
// SD are NaN (null in JSON), since only paired runs measure them. It
// returns nil for no fits.
func runFits(fits []stats.Fit) []document.Fit {
	var out []document.Fit
	for _, f := range fits {
		out = append(out, document.Fit{
			Variant: f.Variant, PerFilterNs: f.PerFilter, PerFilterCILowNs: f.PerFilterLo, PerFilterCIHighNs: f.PerFilterHi,
			EntryNs: f.Entry, EntryCILowNs: f.EntryLo, EntryCIHighNs: f.EntryHi,
			BaselineNs: f.Baseline, DriftNsPerChild: f.Drift, R2: f.R2, N: f.N, Warnings: f.Warnings,
			Loader: f.Loader, PlacementSDNs: f.PlacementSD, Placements: f.Pads,
			BlockSDNs: f.BlockSD, Blocks: f.Blocks, Paired: f.Paired,
			Segments: f.Segments, SegmentSDNs: f.SegmentSD,
			PerFilterRel: f.PerFilterRel, PerFilterRelCILow: f.PerFilterRelLo, PerFilterRelCIHigh: f.PerFilterRelHi,
			EntryRel: f.EntryRel, EntryRelCILow: f.EntryRelLo, EntryRelCIHigh: f.EntryRelHi,
			BareNs: f.BareNs, BareSegmentSDPct: 100 * f.BareSegmentSD,
		})
	}
	for i := range out {
		if f := &out[i]; !f.Paired {
			nan := math.NaN()
			f.PerFilterRel, f.PerFilterRelCILow, f.PerFilterRelCIHigh = nan, nan, nan
			f.EntryRel, f.EntryRelCILow, f.EntryRelCIHigh, f.BareNs, f.BareSegmentSDPct = nan, nan, nan, nan, nan
		}
	}
	return out
}

// sortThroughput orders t by the variant's place in variants (variants
// not listed last), then by filter count, keeping the order of ties.
func sortThroughput(t []document.Throughput, variants []string) {
	vi := func(v string) int {
		if i := slices.Index(variants, v); i >= 0 {
			return i
		}
		return len(variants)
	}
	sort.SliceStable(t, func(i, j int) bool {
		a, b := t[i], t[j]
		if vi(a.Variant) != vi(b.Variant) {
			return vi(a.Variant) < vi(b.Variant)
		}
		return a.Filters < b.Filters
	})
}

// children copies the per-child samples into the document's children, with
// NaN (null) paired figures for a child that took no baseline.
func children(samples []result.Sample) []document.Child {
	var out []document.Child
	for _, s := range samples {
		var inst int64
		for _, ns := range s.InstallNs {
			inst += ns
		}
		c := document.Child{Variant: string(s.Variant), Filters: s.Filters, Block: s.Block, Seq: s.Seq,
			NsPerOp: s.NsPerOp, InstallNsTotal: inst, CPU: s.CPU, FiltersSeen: s.FiltersSeen,
			Loader: string(s.Loader), Pad: s.Pad, CapSysAdmin: s.CapSysAdmin,
			BaselineNsPerOp: math.NaN(), AddedNsPerOp: math.NaN()}
		if s.BaselineNsPerOp > 0 {
			c.BaselineNsPerOp, c.AddedNsPerOp = s.BaselineNsPerOp, s.NsPerOp-s.BaselineNsPerOp
		}
		if s.Caps.Eff|s.Caps.Prm|s.Caps.Bnd != 0 {
			c.CapEff = fmt.Sprintf("%016x", s.Caps.Eff)
		}
		if len(s.Copies) > 1 {
			for _, cp := range s.Copies {
				c.Copies = append(c.Copies, document.CopyResult{CPU: cp.CPU, NsPerOp: document.Finite(cp.NsPerOp)})
			}
		}
		out = append(out, c)
	}
	return out
}

// throughput sums ops per second over the parallel copies of each child and
// averages per cell, in the order cells first appear: the total is the mean
// over the cell's children of their copies' summed rates, the per-copy rate
// the mean over every copy that measured. A copy without a measurement (ns
// per op 0: it failed) adds nothing and counts in neither the per-copy mean
// nor the fastest and slowest copy. It is empty unless children have more
// than one copy.
func throughput(children []document.Child) []document.Throughput {
	type key struct {
		v string
		n int
	}
	var order []key
	acc := map[key]*document.Throughput{}
	measured := map[key]int{} // copies with a measurement, over the cell's children
	for _, c := range children {
		if len(c.Copies) < 2 {
			continue
		}
		k := key{c.Variant, c.Filters}
		t, ok := acc[k]
		if !ok {
			t = &document.Throughput{Variant: c.Variant, Filters: c.Filters, Copies: len(c.Copies), FastestCopyNs: math.Inf(1)}
			acc[k] = t
			order = append(order, k)
		}
		for _, cp := range c.Copies {
			if !(cp.NsPerOp > 0) {
				continue
			}
			t.OpsPerSecTotal += 1e9 / cp.NsPerOp
			measured[k]++
			t.SlowestCopyNs = max(t.SlowestCopyNs, cp.NsPerOp)
			t.FastestCopyNs = min(t.FastestCopyNs, cp.NsPerOp)
		}
		t.ChildrenInCells++
	}
	var out []document.Throughput
	for _, k := range order {
		t := acc[k]
		sum := t.OpsPerSecTotal
		t.OpsPerSecTotal = sum / float64(t.ChildrenInCells)
		t.OpsPerSecCopy = document.Finite(sum / float64(measured[k]))
		t.FastestCopyNs = document.Finite(t.FastestCopyNs)
		out = append(out, *t)
	}
	return out
}

// WriteJSON writes d as indented JSON followed by a newline.
func WriteJSON(w io.Writer, d *document.Document) error {
	return document.WriteIndented(w, d, "encode result")
}

// ReadJSON decodes a result document written by WriteJSON. A document of
// another kind (a compare document, simulate output, ...) gives a
// *KindError wrapping ErrWrongKind that names its kind; a run result
// without "kind" (written before kinds existed) is accepted when its
// schema_version is SchemaVersion. Other errors name the problem.
func ReadJSON(r io.Reader) (*document.Document, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read result: %w", err)
	}
	if err := document.CheckKind(data, document.KindRun); err != nil {
		return nil, err
	}
	var d document.Document
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("decode result: %w", err)
	}
	if d.SchemaVersion == 0 {
		return nil, fmt.Errorf("decode result: no schema_version: not the JSON of seccompbench run; write one with run --format json or -o result.json")
	}
	if d.SchemaVersion < 1 || d.SchemaVersion > document.SchemaVersion {
		return nil, fmt.Errorf("decode result: schema_version %d, want 1 to %d", d.SchemaVersion, document.SchemaVersion)
	}
	// The JSON keeps the meaning's codes and figures (schema 3) or its
	// text (schema 1 and 2); the wording is always this version's.
	d.Meaning = Explain(&d)
	for i := range d.Control {
		d.Control[i].Verdict = controlConclusion(d.Control[i], d.Environment.Vulnerabilities["spec_store_bypass"], runTrials(&d)).Code
	}
	return &d, nil
}
