package report

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/seccompbench/seccompbench/filters"
)

// EstimateModel is the cost model of an estimate ([stats.CostModel]),
// in ns; a nil bound is an interval that could not be computed.
type EstimateModel struct {
	Source           string          `json:"source"`
	EntryNs          float64         `json:"entry_ns"`
	EntryCILowNs     *float64        `json:"entry_ci_low_ns"`
	EntryCIHighNs    *float64        `json:"entry_ci_high_ns"`
	PerFilterNs      float64         `json:"per_filter_ns"`
	PerFilterCILowNs *float64        `json:"per_filter_ci_low_ns"`
	PerFilterCIHigh  *float64        `json:"per_filter_ci_high_ns"`
	PerInsnNs        float64         `json:"per_insn_ns"`
	PerInsnCILowNs   *float64        `json:"per_insn_ci_low_ns"`
	PerInsnCIHighNs  *float64        `json:"per_insn_ci_high_ns"`
	Corr             float64         `json:"per_filter_per_insn_corr"`
	CachedNs         float64         `json:"cached_ns"`
	CachedCILowNs    *float64        `json:"cached_ci_low_ns"`
	CachedCIHighNs   *float64        `json:"cached_ci_high_ns"`
	Confidence       float64         `json:"confidence"`
	Points           []EstimatePoint `json:"points"`
	// MeasuredOn names the kernel and CPU model the calibration was
	// measured on ("kernel 6.18.44, AMD EPYC"; calibration files on
	// several machines are joined by "; "); absent in estimates written
	// before it was recorded.
	MeasuredOn string `json:"measured_on,omitempty"`
}

// EstimatePoint is one calibration point of the model: a defeat fit and
// the instructions per filter its workload executed.
type EstimatePoint struct {
	Source         string  `json:"source"`
	InsnsPerFilter float64 `json:"insns_per_filter"`
	EntryNs        float64 `json:"entry_ns"`
	PerFilterNs    float64 `json:"per_filter_ns"`
	PerFilterLowNs float64 `json:"per_filter_ci_low_ns"`
	PerFilterHiNs  float64 `json:"per_filter_ci_high_ns"`
}

// EstimateSyscall is one profiled syscall of an estimate; added times are
// in ns.
type EstimateSyscall struct {
	Name         string   `json:"name"`
	Arch         string   `json:"arch"`
	Nr           int      `json:"nr"`
	Known        bool     `json:"known"`
	Calls        int64    `json:"calls"`
	Errors       int64    `json:"errors"`
	Seconds      *float64 `json:"seconds"`
	Action       string   `json:"action,omitempty"`
	Cached       bool     `json:"cached"`
	CacheReason  string   `json:"cache_reason,omitempty"`
	Filters      int      `json:"filters"`
	Instructions int      `json:"instructions"`
	AddedNs      *float64 `json:"added_ns_per_call"`
	AddedLowNs   *float64 `json:"added_ci_low_ns"`
	AddedHighNs  *float64 `json:"added_ci_high_ns"`
	TotalNs      *float64 `json:"added_ns_total"`
	TotalLowNs   *float64 `json:"total_ci_low_ns"`
	TotalHighNs  *float64 `json:"total_ci_high_ns"`
	// Share is this syscall's fraction of the total added time.
	Share *float64 `json:"share"`
}

// EstimateTotal is the added time over the whole profile, in ns.
type EstimateTotal struct {
	AddedNs     float64  `json:"added_ns"`
	CILowNs     *float64 `json:"ci_low_ns"`
	CIHighNs    *float64 `json:"ci_high_ns"`
	PerCallNs   float64  `json:"per_call_ns"`
	Calls       int64    `json:"calls"`
	CachedCalls int64    `json:"cached_calls"`
	// UnknownCalls are calls of syscalls not in the ABI's table: not
	// estimated.
	UnknownCalls int64 `json:"unknown_calls"`
	// PctOfSyscallTime is the added time as a percentage of the profile's
	// time in syscalls (when the profile has times).
	PctOfSyscallTime   *float64 `json:"pct_of_syscall_time"`
	PctOfSyscallTimeLo *float64 `json:"pct_of_syscall_time_ci_low"`
	PctOfSyscallTimeHi *float64 `json:"pct_of_syscall_time_ci_high"`
	// NsPerSecond is the added time per second of the profiled run's wall
	// time (with --duration), in ns per s.
	NsPerSecond     *float64 `json:"ns_per_second"`
	NsPerSecondLow  *float64 `json:"ns_per_second_ci_low"`
	NsPerSecondHigh *float64 `json:"ns_per_second_ci_high"`

	// ModelErrorPct is the model error measured on real programs
	// (docs/estimate.md), in percent of the added time; StatedCI{Low,High}Ns
	// is the total's interval with it added in quadrature to the
	// calibration interval (stats.WithModelError): the interval estimate
	// states.
	ModelErrorPct  float64  `json:"model_error_pct"`
	StatedCILowNs  *float64 `json:"stated_ci_low_ns"`
	StatedCIHighNs *float64 `json:"stated_ci_high_ns"`
}

// EstimateValidationRow compares one syscall's predicted added time with
// the measured one, in ns per call.
type EstimateValidationRow struct {
	Name           string   `json:"name"`
	Calls          int64    `json:"calls"`
	Workload       string   `json:"workload"`
	PredictedNs    float64  `json:"predicted_ns"`
	PredictedLowNs *float64 `json:"predicted_ci_low_ns"`
	PredictedHiNs  *float64 `json:"predicted_ci_high_ns"`
	MeasuredNs     float64  `json:"measured_ns"`
	MeasuredLowNs  *float64 `json:"measured_ci_low_ns"`
	MeasuredHiNs   *float64 `json:"measured_ci_high_ns"`
	BaselineNs     float64  `json:"baseline_ns"`
	ErrorNs        float64  `json:"error_ns"`
	ErrorPct       *float64 `json:"error_pct"`
}

// EstimateValidation is the result of estimate --validate.
type EstimateValidation struct {
	Rows []EstimateValidationRow `json:"syscalls"`
	// Skipped are profiled syscalls runner cannot loop on safely.
	Skipped []string `json:"skipped"`
	// Totals weight each validated syscall by its profile calls, in ns.
	PredictedTotalNs float64  `json:"predicted_total_ns"`
	PredictedLowNs   *float64 `json:"predicted_total_ci_low_ns"`
	PredictedHighNs  *float64 `json:"predicted_total_ci_high_ns"`
	MeasuredTotalNs  float64  `json:"measured_total_ns"`
	MeasuredLowNs    *float64 `json:"measured_total_ci_low_ns"`
	MeasuredHighNs   *float64 `json:"measured_total_ci_high_ns"`
	ErrorPct         *float64 `json:"total_error_pct"`
	// MeanAbsErrorPct is the mean over syscalls of |error %|.
	MeanAbsErrorPct *float64 `json:"mean_abs_error_pct"`
	Trials          int      `json:"trials"`

	// EstimateCommand, with estimate --command, compares the prediction
	// with a measurement of the whole command; its keys sit directly
	// under "validation" (predicted_added_ns, measured_added_ns, covered,
	// ...). nil otherwise.
	*EstimateCommand
}

// Estimate is the result of `seccompbench estimate --format json`. NaN
// values are written as null.
type Estimate struct {
	// SchemaVersion and Kind (KindEstimate) are set by WriteEstimateJSON.
	SchemaVersion int  `json:"schema_version"`
	Kind          Kind `json:"kind"`
	Profile       struct {
		Source   string   `json:"source"`
		Format   string   `json:"format"`
		Calls    int64    `json:"calls"`
		Syscalls int      `json:"syscalls"`
		Seconds  *float64 `json:"seconds"`
		Duration *float64 `json:"duration_s"`
	} `json:"profile"`
	Stack      []StackEntry        `json:"stack"`
	Cache      string              `json:"cache"`
	Model      EstimateModel       `json:"model"`
	Syscalls   []EstimateSyscall   `json:"syscalls"`
	Total      EstimateTotal       `json:"total"`
	Validation *EstimateValidation `json:"validation,omitempty"`
	// Parts says which of the three parts of a program's added time
	// (direct, per process, indirect) the estimate predicts, and how;
	// estimate always sets it (nil only in documents from before it).
	Parts *EstimateParts `json:"parts,omitempty"`
	// Indirect is the indirect-cost probe's calibration, nil when it did
	// not run (no time between syscalls known, or --indirect=false).
	Indirect *EstimateIndirect `json:"indirect,omitempty"`
	Warnings []string          `json:"warnings"`
	// OCI says what resolved OCI-based sources; nil when there are none.
	OCI *OCIResolution `json:"oci,omitempty"`
}

// WriteEstimateText writes an estimate for people without --explain
// (WriteEstimateTextOpts).
func WriteEstimateText(w io.Writer, e *Estimate, top int) {
	WriteEstimateTextOpts(w, e, top, TextOptions{})
}

// WriteEstimateTextOpts writes an estimate for people: the headline, the
// top syscalls by added time (all when top is 0) and the validation; with
// opts.Explain also the profile, stack and model before the table and the
// total's breakdown after it.
func WriteEstimateTextOpts(w io.Writer, e *Estimate, top int, opts TextOptions) {
	ew := &errWriter{w: w}
	writeHeadlineText(ew, EstimateHeadline(e))
	fmt.Fprintln(w)
	if opts.Explain {
		estimateHeader(w, e)
	}
	rows := estimateTable(w, e, top, opts.Explain)
	if opts.Explain {
		estimateTotal(w, e, rows)
		writeEstimateParts(w, e, true)
		estimateValidation(w, e)
		return
	}
	// the default output stays within TextWidth columns
	var b strings.Builder
	writeEstimateParts(&b, e, false)
	estimateValidation(&b, e)
	if b.Len() > 0 {
		fmt.Fprint(w, wrapText(b.String(), TextWidth))
	}
}

// estimateHeader writes the profile, the stack and the model.
func estimateHeader(w io.Writer, e *Estimate) {
	pct := fmt.Sprintf("%.0f%%", e.Model.Confidence*100)
	p := e.Profile
	fmt.Fprintf(w, "profile   %s (%s): %s of %s", p.Source, p.Format, Plural(p.Calls, "call"), Plural(p.Syscalls, "syscall"))
	if p.Seconds != nil {
		fmt.Fprintf(w, ", %s in syscalls", fmtNs(*p.Seconds*1e9))
	}
	if p.Duration != nil {
		fmt.Fprintf(w, ", %s wall time (--duration)", fmtNs(*p.Duration*1e9))
	}
	fmt.Fprintln(w)
	if e.OCI != nil {
		fmt.Fprintf(w, "oci       conditions resolved with %s\n", e.OCI.Text)
	}
	var names []string
	for _, s := range e.Stack {
		names = append(names, s.Name)
	}
	cacheText := "as installed (action cache on)"
	if e.Cache == "defeat" {
		cacheText = "action cache defeated (every filter runs on every syscall)"
	}
	fmt.Fprintf(w, "stack     %s (%s), %s\n", Plural(len(e.Stack), "filter"), SummarizeNames(names), cacheText)
	m := e.Model
	fmt.Fprintf(w, "model     %s\n", m.Source)
	fmt.Fprintf(w, "          per uncached syscall: entry %s + per filter %s × filters + per instruction %s × instructions\n",
		fmtEst(m.EntryNs, m.EntryCILowNs, m.EntryCIHighNs, nsShort), fmtEst(m.PerFilterNs, m.PerFilterCILowNs, m.PerFilterCIHigh, nsShort),
		fmtEst(m.PerInsnNs, m.PerInsnCILowNs, m.PerInsnCIHighNs, nsFine))
	fmt.Fprintf(w, "          per cached syscall: %s   (%s CIs; ns)\n", fmtEst(m.CachedNs, m.CachedCILowNs, m.CachedCIHighNs, nsShort), pct)
	fmt.Fprintln(w)
}

// estimateTable writes the syscalls by added time, the top ones (all when
// top is 0), and returns them all sorted. The default table (not full)
// leaves out the CACHED and INSNS columns to stay within TextWidth; the
// headline counts the cached calls and --explain shows both.
func estimateTable(w io.Writer, e *Estimate, top int, full bool) []EstimateSyscall {
	pct := fmt.Sprintf("%.0f%%", e.Model.Confidence*100)
	rows := append([]EstimateSyscall(nil), e.Syscalls...)
	sort.SliceStable(rows, func(i, j int) bool { return val(rows[i].TotalNs) > val(rows[j].TotalNs) })
	shown := rows
	if top > 0 && len(shown) > top {
		shown = shown[:top]
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	mid := func(cached, insns string) string {
		if full {
			return cached + "\t" + insns + "\t"
		}
		return ""
	}
	added := "ns/CALL"
	if full {
		added = "ADDED ns/CALL"
	}
	fmt.Fprintf(tw, "SYSCALL\tCALLS\tVERDICT\t%s%s\t%s CI\tTOTAL\t%s CI\tSHARE\t\n", mid("CACHED", "INSNS"), added, pct, pct)
	for _, s := range shown {
		if !s.Known {
			fmt.Fprintf(tw, "%s\t%d\tunknown\t%s-\t\t-\t\t\t\n", s.Name, s.Calls, mid("-", "-"))
			continue
		}
		name := s.Name
		if s.Arch != filters.ArchX86_64.Name {
			name += " (" + s.Arch + ")"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s%s\t%s\t%s\t%s\t%s\t\n", name, s.Calls, s.Action, mid(yesNo(s.Cached), fmt.Sprint(s.Instructions)),
			nsShort(val(s.AddedNs)), fmtCI(s.AddedLowNs, s.AddedHighNs, nsShort), fmtNs(val(s.TotalNs)),
			fmtCI(s.TotalLowNs, s.TotalHighNs, nsFormatter(val(s.TotalNs))), fmtPct(s.Share))
	}
	tw.Flush()
	if len(shown) < len(rows) {
		fmt.Fprintf(w, "(%d more syscalls; --top 0 shows all)\n", len(rows)-len(shown))
	}
	return rows
}

// estimateTotal writes the total, what it is per second or of the
// syscall time, the dominant syscalls and the model error.
func estimateTotal(w io.Writer, e *Estimate, rows []EstimateSyscall) {
	fmt.Fprintln(w)
	p := e.Profile
	t := e.Total
	sign := "+"
	if t.AddedNs < 0 {
		sign = "" // the number carries its "-"
	}
	fmt.Fprintf(w, "total     %s%s over %s (%s ns per call on average; %s cached)\n",
		sign, fmtCost(t.AddedNs, t.CILowNs, t.CIHighNs, nsFormatter(t.AddedNs)), Plural(t.Calls, "call"), nsShort(t.PerCallNs), Plural(t.CachedCalls, "call"))
	if t.PctOfSyscallTime != nil {
		fmt.Fprintf(w, "          = %s of the %s the profile spent in syscalls\n",
			fmtCost(*t.PctOfSyscallTime, t.PctOfSyscallTimeLo, t.PctOfSyscallTimeHi, pctFormatter(*t.PctOfSyscallTime)), fmtNs(*p.Seconds*1e9))
	}
	if t.NsPerSecond != nil {
		fmt.Fprintf(w, "          = %s per second of run time (%s of the %s run)\n",
			fmtCost(*t.NsPerSecond, t.NsPerSecondLow, t.NsPerSecondHigh, nsFormatter(*t.NsPerSecond)), pctFormatter(*t.NsPerSecond/1e7)(*t.NsPerSecond/1e7), fmtNs(*p.Duration*1e9))
	} else {
		fmt.Fprintln(w, "          (give --duration, the profiled run's wall time, for the cost per second of work)")
	}
	fmt.Fprintf(w, "dominant  %s\n", dominant(rows))
	if t.ModelErrorPct > 0 {
		fmt.Fprintf(w, "model     error ±%.0f%% on real programs (docs/estimate.md): total with it %s\n", t.ModelErrorPct,
			fmtEst(t.AddedNs, t.StatedCILowNs, t.StatedCIHighNs, nsFormatter(t.AddedNs)))
		fmt.Fprintln(w, "          (intervals above: calibration uncertainty only; args 0 for every verdict and path; --command measures the program itself)")
	} else {
		fmt.Fprintln(w, "          (intervals: calibration uncertainty only; args 0 for every verdict and path; see --validate for model error)")
	}
}

// estimateValidation writes --validate's table and the command's
// measurement, if any.
func estimateValidation(w io.Writer, e *Estimate) {
	pct := fmt.Sprintf("%.0f%%", e.Model.Confidence*100)
	if v := e.Validation; v != nil && v.Skipped != nil {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "validation: each syscall timed in a loop under the stack (children without filters and with %s, %s; medians), added ns per call\n", Plural(len(e.Stack), "filter"), Plural(v.Trials, "trial"))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "SYSCALL\tCALLS\tBASELINE ns\tPREDICTED\t%s CI\tMEASURED\t%s CI\tERROR\t\n", pct, pct)
		for _, r := range v.Rows {
			fmt.Fprintf(tw, "%s\t%d\t%.1f\t%s\t%s\t%s\t%s\t%s\t\n", r.Name, r.Calls, r.BaselineNs, nsShort(r.PredictedNs), fmtCI(r.PredictedLowNs, r.PredictedHiNs, nsShort),
				nsShort(r.MeasuredNs), fmtCI(r.MeasuredLowNs, r.MeasuredHiNs, nsShort), fmtSignedPct(r.ErrorPct))
		}
		tw.Flush()
		if len(v.Rows) > 0 {
			fmt.Fprintf(w, "profile-weighted total of these syscalls: predicted %s, measured %s: error %s; mean |error| per syscall %s\n",
				fmtEst(v.PredictedTotalNs, v.PredictedLowNs, v.PredictedHighNs, nsFormatter(v.PredictedTotalNs)),
				fmtEst(v.MeasuredTotalNs, v.MeasuredLowNs, v.MeasuredHighNs, nsFormatter(v.MeasuredTotalNs)),
				fmtSignedPct(v.ErrorPct), fmtUnsignedPct(v.MeanAbsErrorPct))
		}
		if len(v.Skipped) > 0 {
			fmt.Fprintf(w, "not validated (not on runner's safe list): %s\n", strings.Join(v.Skipped, ", "))
		}
	}
	if v := e.Validation; v != nil {
		WriteEstimateCommandText(w, v.EstimateCommand)
	}
}

// SummarizeNames lists names, collapsing runs of one name: "a ×3, b".
func SummarizeNames(names []string) string {
	var parts []string
	for i := 0; i < len(names); {
		j := i
		for j < len(names) && names[j] == names[i] {
			j++
		}
		if j-i > 1 {
			parts = append(parts, fmt.Sprintf("%s ×%d", names[i], j-i))
		} else {
			parts = append(parts, names[i])
		}
		i = j
	}
	if len(parts) > 6 {
		parts = append(parts[:6], "…")
	}
	return strings.Join(parts, ", ")
}

// dominant names the syscalls that make up most of the added time (up to
// 80% of it, at most 4), with their share and cache state.
func dominant(sorted []EstimateSyscall) string {
	var parts []string
	cum := 0.0
	for _, s := range sorted {
		if s.Share == nil || *s.Share <= 0 || len(parts) == 4 || cum >= 0.8 {
			break
		}
		state := "cached"
		if !s.Cached {
			state = fmt.Sprintf("not cached, %d insns", s.Instructions)
		}
		parts = append(parts, fmt.Sprintf("%s %.0f%% (%s)", s.Name, *s.Share*100, state))
		cum += *s.Share
	}
	if len(parts) == 0 {
		return "none: nothing adds time"
	}
	return strings.Join(parts, ", ")
}

// WriteEstimateJSON writes an estimate as indented JSON.
func WriteEstimateJSON(w io.Writer, e *Estimate) error {
	e.SchemaVersion, e.Kind = ContractVersion, KindEstimate
	return WriteIndentedJSON(w, e)
}
