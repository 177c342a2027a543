package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/report/internal/text"
	"github.com/seccompbench/seccompbench/runner/result"
)

// ReadFleetEntry decodes one result document (ReadJSON's rules and
// errors) and the optional keys of FleetEntry.
func ReadFleetEntry(name string, data []byte) (document.FleetEntry, error) {
	d, err := ReadJSON(bytes.NewReader(data))
	if err != nil {
		return document.FleetEntry{}, err
	}
	var x fleetExtras
	if err := json.Unmarshal(data, &x); err != nil {
		return document.FleetEntry{}, fmt.Errorf("decode result: %w", err)
	}
	e := document.FleetEntry{Name: name, Doc: d, Loader: x.Config.Loader, CmdlineMitigations: x.Environment.CmdlineMitigations}
	for i := range d.Fits {
		l := ""
		if i < len(x.Fits) {
			l = x.Fits[i].Loader
		}
		e.FitLoaders = append(e.FitLoaders, l)
	}
	return e, nil
}

// fleetExtras are the keys ReadFleetEntry decodes beside the Document.
type fleetExtras struct {
	Config struct {
		Loader string `json:"loader"`
	} `json:"config"`
	Fits []struct {
		Loader string `json:"loader"`
	} `json:"fits"`
	Environment struct {
		CmdlineMitigations []string `json:"cmdline_mitigations"`
	} `json:"environment"`
}

// fleetHost names where a result was measured: the Kubernetes node when
// recorded (a pod's hostname is the pod's name), else the hostname.
func fleetHost(e result.Environment) string {
	if e.Node != "" {
		return e.Node
	}
	return e.Hostname
}

// BuildFleet lays out entries: groups in the order their first result
// comes, rows in entry order. It copies numbers from each document's fits;
// results without fits get a warning, as do partial ones. Errors wrap
// ErrNoResults.
func BuildFleet(entries []document.FleetEntry) (*document.Fleet, error) {
	if len(entries) == 0 {
		return nil, fmt.Errorf("build report: %w", document.ErrNoResults)
	}
	f := &document.Fleet{SchemaVersion: document.FleetSchemaVersion, Kind: document.KindReport, Warnings: []string{}}
	// Results with time segments and results without them, by name.
	withSegments, without := false, []string(nil)
	index := map[string]int{}
	kernels, cpus := map[string]bool{}, map[string]bool{}
	for _, e := range entries {
		d := e.Doc
		key := fleetKey(d)
		gi, ok := index[key]
		if !ok {
			gi = len(f.Groups)
			index[key] = gi
			f.Groups = append(f.Groups, document.FleetGroup{Policy: fleetPolicy(d), Workload: d.Config.Workload, Op: d.Config.Op})
		}
		kernels[d.Environment.Kernel], cpus[d.Environment.CPUModel] = true, true
		if d.Partial {
			f.Warnings = append(f.Warnings, fmt.Sprintf("%s is a partial result (the run was interrupted)", e.Name))
		}
		if len(d.Fits) == 0 {
			f.Warnings = append(f.Warnings, fmt.Sprintf("%s has no fitted model (too few filter counts >= 1): not in the table", e.Name))
		}
		if hasSegments(d.Fits) {
			withSegments = true
		} else if segmentless(d.Fits) {
			without = append(without, e.Name)
		}
		foreign := -1.0
		if d.Run != nil && d.Run.ForeignLoad != nil {
			foreign = d.Run.ForeignLoad.Share
		}
		for i, fit := range d.Fits {
			loader := e.Loader
			if i < len(e.FitLoaders) && e.FitLoaders[i] != "" {
				loader = e.FitLoaders[i]
			}
			f.Groups[gi].Rows = append(f.Groups[gi].Rows, document.FleetRow{
				Result: e.Name, Host: fleetHost(d.Environment), Kernel: d.Environment.Kernel, CPUModel: d.Environment.CPUModel,
				Loader: loader, Mitigations: fleetMitigations(d, e.CmdlineMitigations), Variant: fit.Variant,
				Cache: fleetCache(d, &d.Fits[i]), Confidence: d.Config.Confidence, BaselineNs: fit.BaselineNs,
				PerFilterNs: fit.PerFilterNs, PerFilterCILowNs: fit.PerFilterCILowNs, PerFilterCIHighNs: fit.PerFilterCIHighNs,
				EntryNs: fit.EntryNs, EntryCILowNs: fit.EntryCILowNs, EntryCIHighNs: fit.EntryCIHighNs,
				Children: fit.N, Partial: d.Partial, ForeignLoad: foreign,
				ParentSeccompFilters: d.Environment.ParentSeccompFilters,
			})
		}
	}
	for _, g := range f.Groups {
		for _, r := range g.Rows[min(1, len(g.Rows)):] {
			if w := InheritedFiltersWarning(g.Rows[0].Result, g.Rows[0].ParentSeccompFilters, r.Result, r.ParentSeccompFilters); w != "" {
				f.Warnings = append(f.Warnings, w)
				break
			}
		}
	}
	if withSegments && len(without) > 0 {
		f.Warnings = append(f.Warnings, fmt.Sprintf("%s: intervals that leave out how the host's speed wanders between parts of a run (fewer than 15 blocks, or written before time segments), so they may be too narrow beside the other results, whose intervals include it",
			strings.Join(without, ", ")))
	}
	if len(kernels) > 1 || len(cpus) > 1 {
		f.Warnings = append(f.Warnings, fmt.Sprintf("%d kernels and %d CPU models among these results: compare rows of the same kernel and CPU first; across them the machine, not the policy, may make the difference", len(kernels), len(cpus)))
	}
	return f, nil
}

// fleetKey groups documents: same policies (by hash, in stack order) and
// workload.
func fleetKey(d *document.Document) string {
	var b strings.Builder
	for _, p := range d.Config.Policies {
		b.WriteString(p.SHA256)
		b.WriteByte(',')
	}
	return b.String() + "|" + d.Config.Workload
}

// fleetPolicy names a document's policies: base names and short hashes.
func fleetPolicy(d *document.Document) string {
	var parts []string
	for _, p := range d.Config.Policies {
		name := p.Path
		if i := strings.LastIndexByte(name, '/'); i >= 0 {
			name = name[i+1:]
		}
		h := p.SHA256
		if len(h) > 8 {
			h = h[:8]
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", text.OrDash(name), text.OrDash(h)))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, " + ")
}

// fleetMitigations summarizes the mitigation states that change what a
// filter costs: spec_store_bypass ("ssb": seccomp may switch it on) and
// spectre_v2 (retpolines or IBRS on every indirect BPF call), each cut at
// its first ";" or "," and without the kernel's "Mitigation: " prefix,
// then the command line's mitigation parameters.
func fleetMitigations(d *document.Document, cmdline []string) string {
	var parts []string
	for _, k := range []struct{ file, short string }{{"spec_store_bypass", "ssb"}, {"spectre_v2", "spectre_v2"}} {
		v := d.Environment.Vulnerabilities[k.file]
		if v == "" {
			continue
		}
		if i := strings.IndexAny(v, ";,"); i >= 0 {
			v = v[:i]
		}
		v = strings.TrimPrefix(strings.TrimSpace(v), "Mitigation: ")
		v = strings.Replace(v, "Speculative Store Bypass disabled", "disabled", 1)
		parts = append(parts, k.short+": "+v)
	}
	if len(cmdline) > 0 {
		parts = append(parts, "cmdline: "+strings.Join(cmdline, " "))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, "; ")
}

// fleetCache says whether the action cache served the workload's syscalls
// for fit's variant: "cached" only when the emulator predicts it for every
// syscall and the fit's per-filter cost confirms it (cacheSupported);
// "cached, unconfirmed" when the prediction stands alone, "no cache
// (kernel < 5.11)" on a kernel without the cache.
func fleetCache(d *document.Document, fit *document.Fit) string {
	v := fit.Variant
	for _, cv := range d.Cache {
		if cv.Variant != v || len(cv.Syscalls) == 0 {
			continue
		}
		if kernelLacksCache(d) {
			return "no cache (kernel < 5.11)"
		}
		n := 0
		for _, s := range cv.Syscalls {
			if s.Cached {
				n++
			}
		}
		switch n {
		case len(cv.Syscalls):
			if !cacheSupported(d, fit) {
				return "cached, unconfirmed"
			}
			return "cached"
		case 0:
			return "not cached"
		}
		return "partly"
	}
	return ""
}

// fleetVariant is a row's variant with its cache state, e.g.
// "defeat (not cached)".
func fleetVariant(r document.FleetRow) string {
	if r.Cache == "" {
		return r.Variant
	}
	return r.Variant + " (" + r.Cache + ")"
}

// WriteFleetJSON writes f as indented JSON.
func WriteFleetJSON(w io.Writer, f *document.Fleet) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(f); err != nil {
		return fmt.Errorf("encode report: %w", err)
	}
	return nil
}

// FleetResults counts the distinct results in f.
func FleetResults(f *document.Fleet) int {
	seen := map[string]bool{}
	for _, g := range f.Groups {
		for _, r := range g.Rows {
			seen[r.Result] = true
		}
	}
	return len(seen)
}

// WriteFleetCSV writes one row per FleetRow with a header; warnings go to
// warn.
func WriteFleetCSV(w, warn io.Writer, f *document.Fleet) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"policy", "workload", "result", "host", "kernel", "cpu_model", "loader", "mitigations", "foreign_load", "variant", "cache",
		"confidence", "baseline_ns", "per_filter_ns", "per_filter_ci_low_ns", "per_filter_ci_high_ns", "entry_ns", "entry_ci_low_ns", "entry_ci_high_ns", "children", "partial"})
	ff := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	for _, g := range f.Groups {
		for _, r := range g.Rows {
			cw.Write([]string{g.Policy, g.Workload, r.Result, r.Host, r.Kernel, r.CPUModel, r.Loader, r.Mitigations, ff(r.ForeignLoad), r.Variant, r.Cache,
				ff(r.Confidence), ff(r.BaselineNs), ff(r.PerFilterNs), ff(r.PerFilterCILowNs), ff(r.PerFilterCIHighNs),
				ff(r.EntryNs), ff(r.EntryCILowNs), ff(r.EntryCIHighNs), strconv.Itoa(r.Children), strconv.FormatBool(r.Partial)})
		}
	}
	cw.Flush()
	for _, wn := range f.Warnings {
		fmt.Fprintf(warn, "warning: %s\n", wn)
	}
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	return nil
}

// WriteFleetBenchstat writes every entry in the benchstat format of
// WriteBenchstat, each preceded by "host:" and "result:" configuration
// lines, so `benchstat -col .config:host` (or -row) lines hosts up.
func WriteFleetBenchstat(w, warn io.Writer, entries []document.FleetEntry) error {
	ew := &errWriter{w: w}
	for i, e := range entries {
		if i > 0 {
			ew.printf("\n")
		}
		ew.printf("host: %s\n", text.OneLine(text.OrDash(e.Doc.Environment.Hostname)))
		ew.printf("result: %s\n", text.OneLine(e.Name))
		if err := WriteBenchstat(ew, warn, e.Doc); err != nil {
			return err
		}
	}
	return ew.err
}

// FleetRowLabels returns the plot's row labels, top to bottom: per group,
// per row "result, variant".
func FleetRowLabels(f *document.Fleet) []string {
	var out []string
	for _, g := range f.Groups {
		for _, r := range g.Rows {
			out = append(out, fleetRowLabel(r))
		}
	}
	return out
}

func fleetRowLabel(r document.FleetRow) string {
	l := r.Result
	if r.Host != "" && !strings.Contains(r.Result, r.Host) {
		l += " @" + r.Host
	}
	l += ", " + fleetVariant(r)
	if r.Loader != "" {
		l += ", " + r.Loader
	}
	return l
}

// FleetVariants lists the variants of f in first-seen order.
func FleetVariants(f *document.Fleet) []string {
	var vs []string
	for _, g := range f.Groups {
		for _, r := range g.Rows {
			if !slices.Contains(vs, r.Variant) {
				vs = append(vs, r.Variant)
			}
		}
	}
	sort.SliceStable(vs, func(i, j int) bool { return vs[i] == "defeat" && vs[j] != "defeat" })
	return vs
}

// foreignText formats a foreign-load share as "34 %", "-" when unknown.
func foreignText(share float64) string {
	if share < 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f %%", 100*share)
}

// hasSegments reports whether a fit of fits has time segments
// (stats/segments.go).
func hasSegments(fits []document.Fit) bool {
	for _, f := range fits {
		if f.Segments > 0 {
			return true
		}
	}
	return false
}

// segmentless reports whether a fit of fits leaves them out although its
// run had blocks to cut (fewer than 15, or a result written before
// 2026-12-02, when fits had no "segments"); a single-block run (a command
// run) has none to leave out.
func segmentless(fits []document.Fit) bool {
	for _, f := range fits {
		if f.Segments == 0 && f.Blocks != 1 {
			return true
		}
	}
	return false
}
