package document

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

	// Bracket is the profile-only prediction of the program's added time
	// as a floor and a ceiling (the warm loop's direct part and the
	// per-process term as floor, the cold factors measured in
	// docs/estimate.md's validation as ceiling); nil in results written
	// before it.
	Bracket *EstimateBracket `json:"bracket,omitempty"`
}

// EstimateBracket is a floor and a ceiling on a program's added time, in
// ns over the profile (per run of the program), with its parts. It is not
// a confidence interval: it bounds how cold the filters and the program's
// start ran on the validation's programs.
type EstimateBracket struct {
	FloorNs   float64               `json:"floor_ns"`
	CeilingNs float64               `json:"ceiling_ns"`
	Parts     []EstimateBracketPart `json:"parts"`
	// ProcessMeasured is false when the per-process term (/bin/true under
	// the stack) was not measured: the bracket is then the direct part's
	// alone and its ceiling leaves out the program's start.
	ProcessMeasured bool `json:"process_measured"`
	// ValidationRows is how many whole-program validation rows
	// (docs/estimate.md) the bracket was held against, ValidationHolds on
	// how many it met the measured 95 % interval, ValidationCentre on how
	// many it contained the measured centre.
	ValidationRows   int `json:"validation_rows"`
	ValidationHolds  int `json:"validation_holds"`
	ValidationCentre int `json:"validation_centre"`
}

// EstimateBracketPart is one term of an EstimateBracket: its name
// ("direct", "per process"), floor and ceiling in ns, the ceiling's
// multiple of the floor (CeilingFactor), and, in text only, the
// measurement that factor comes from (Source).
type EstimateBracketPart struct {
	Name          string  `json:"name"`
	FloorNs       float64 `json:"floor_ns"`
	CeilingNs     float64 `json:"ceiling_ns"`
	CeilingFactor float64 `json:"ceiling_factor"`
	Source        string  `json:"-"`
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
	// Partial reports that estimate --command was interrupted (SIGINT,
	// SIGTERM, SIGHUP) after the prediction, while measuring the command:
	// the prediction is whole, Validation (every measured figure) is
	// absent, and Warnings says so (EstimatePartialText). Absent (false)
	// otherwise.
	Partial bool `json:"partial,omitempty"`
	Profile struct {
		// Source is the profile file, or with estimate --command
		// without --profile the profiled command
		// (StraceProfileSource): its summary file is not kept.
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
	// Budget is the --budget verdict on the measured command (estimate
	// --command --budget), the headline's first line; absent otherwise.
	Budget *BudgetVerdict `json:"budget,omitempty"`
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
