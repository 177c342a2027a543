package document

// EstimatePart is one of the three parts of what a stack adds to a whole
// program (docs/estimate-command.md, "Three parts"): whether the estimate
// predicts it, its predicted added time per run of the profile with the
// calibration interval (ns; null when not predicted), and a note saying
// its basis: a code (Part*) saying how it was predicted or what it needs.
type EstimatePart struct {
	Predicted bool     `json:"predicted"`
	AddedNs   *float64 `json:"added_ns"`
	CILowNs   *float64 `json:"ci_low_ns"`
	CIHighNs  *float64 `json:"ci_high_ns"`
	Basis     string   `json:"basis"`
}

// EstimateParts are the three parts of a program's added time: Direct,
// the time inside seccomp (the per-syscall model, always predicted);
// PerProcess, what starting and ending a process under a freshly
// installed stack adds (measured with the per-process probe, so only with
// --command); Indirect, the program's own work slowed by what the filters
// evicted (the probe curve at the program's time between syscalls, so
// only when that is known: --duration, or --command's baseline run).
type EstimateParts struct {
	Direct     EstimatePart `json:"direct"`
	PerProcess EstimatePart `json:"per_process"`
	Indirect   EstimatePart `json:"indirect"`
}

// EstimateProbePoint is one working-set size of the indirect-cost probe:
// its time per iteration without filters (the time between syscalls), the
// added time per iteration under the stack, the part beyond the 0 KiB
// point (indirect) and that per ns of direct cost (ratio), each with its
// interval; ns.
type EstimateProbePoint struct {
	KiB         int     `json:"kib"`
	GapNs       float64 `json:"gap_ns"`
	AddedNs     float64 `json:"added_ns"`
	AddedLowNs  float64 `json:"added_ci_low_ns"`
	AddedHighNs float64 `json:"added_ci_high_ns"`
	IndirectNs  float64 `json:"indirect_ns"`
	IndirectLow float64 `json:"indirect_ci_low_ns"`
	IndirectHi  float64 `json:"indirect_ci_high_ns"`
	Ratio       float64 `json:"ratio"`
	RatioLow    float64 `json:"ratio_ci_low"`
	RatioHigh   float64 `json:"ratio_ci_high"`
}

// EstimateIndirect is the indirect-cost calibration and its use: the
// probe (Syscall after KiB of data, and of code when Code, under the
// estimated stack), its points for uncached calls (cache defeated) and,
// when the probe's syscall is cached as installed, for cached calls; the
// time between syscalls the prediction used (GapNs, from GapSource), where
// it lies against the points (Range: "inside", "below" or "above", the
// last an extrapolation) and the ratios read there.
type EstimateIndirect struct {
	Syscall        string               `json:"probe_syscall"`
	Code           bool                 `json:"probe_code"`
	Trials         int                  `json:"probe_trials"`
	Seconds        float64              `json:"calibration_s"`
	Uncached       []EstimateProbePoint `json:"uncached_points"`
	Cached         []EstimateProbePoint `json:"cached_points"`
	GapNs          *float64             `json:"gap_ns"`
	GapSource      string               `json:"gap_source"`
	Range          string               `json:"range"`
	UncachedRatio  *float64             `json:"uncached_ratio"`
	CachedRatio    *float64             `json:"cached_ratio"`
	CachedMeasured bool                 `json:"cached_measured"`
}

// Bases of an EstimatePart: how it was predicted, or why it was not.
const (
	PartLoopModel        = "loop-model"        // direct: the per-syscall model over the profile's calls
	PartProcessProbe     = "process-probe"     // per process: the probe measured under the stack
	PartProbeCurve       = "probe-curve"       // indirect: the probe's ratio at the program's time between syscalls
	PartNeedsCommand     = "needs-command"     // per process: only --command runs the probe
	PartProcessTermOff   = "process-term-off"  // per process: --process-term=false
	PartNeedsGap         = "needs-gap"         // indirect: no time between syscalls (--duration or --command)
	PartIndirectOff      = "indirect-off"      // indirect: --indirect=false
	PartCalibrationFiles = "calibration-files" // indirect: the probe runs with the quick calibration only
	PartContainer        = "container"         // indirect: not probed for containers
	PartNoProbeSyscall   = "no-probe-syscall"  // indirect: no probe syscall runs under the stack
)
