package report

import (
	"fmt"
	"io"
)

// EstimatePart is one of the three parts of what a stack adds to a whole
// program (docs/estimate.md, "Three parts"): whether the estimate
// predicts it, its predicted added time per run of the profile with the
// calibration interval (ns; null when not predicted), and a note saying
// how it was predicted or what it needs.
type EstimatePart struct {
	Predicted bool     `json:"predicted"`
	AddedNs   *float64 `json:"added_ns"`
	CILowNs   *float64 `json:"ci_low_ns"`
	CIHighNs  *float64 `json:"ci_high_ns"`
	Note      string   `json:"note"`
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

// writeEstimateParts writes which parts of a program's added time the
// estimate predicts, one line each, and with full the probe's points.
func writeEstimateParts(w io.Writer, e *Estimate, full bool) {
	p := e.Parts
	if p == nil {
		return
	}
	fmt.Fprintln(w)
	for _, x := range []struct {
		name string
		part EstimatePart
	}{{"direct", p.Direct}, {"per process", p.PerProcess}, {"indirect", p.Indirect}} {
		if x.part.Predicted && x.part.AddedNs != nil {
			fmt.Fprintf(w, "%s part: %s: %s\n", x.name, fmtEst(*x.part.AddedNs, x.part.CILowNs, x.part.CIHighNs, nsFormatter(*x.part.AddedNs)), x.part.Note)
		} else {
			fmt.Fprintf(w, "%s part: not predicted: %s\n", x.name, x.part.Note)
		}
	}
	if in := e.Indirect; full && in != nil && len(in.Uncached) > 0 {
		fmt.Fprintf(w, "indirect probe: %s() after a working set (data%s), %d trials, %.1f s; ratio = indirect / direct ns per call\n",
			in.Syscall, map[bool]string{true: " and code", false: " only"}[in.Code], in.Trials, in.Seconds)
		for _, pt := range in.Uncached {
			fmt.Fprintf(w, "  %5d KiB  between syscalls %s  added %s  indirect %s  ratio %.2f [%.2f, %.2f]\n", pt.KiB, fmtNs(pt.GapNs),
				nsShort(pt.AddedNs), nsShort(pt.IndirectNs), pt.Ratio, pt.RatioLow, pt.RatioHigh)
		}
	}
}
