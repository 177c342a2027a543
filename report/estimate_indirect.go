package report

import (
	"fmt"
)

// EstimatePart is one of the three parts of what a stack adds to a whole
// program (docs/estimate.md, "Three parts"): whether the estimate
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

// partBasisText words an EstimatePart's basis for people; e gives the
// figures of the probe curve.
func partBasisText(e *Estimate, p EstimatePart) string {
	switch p.Basis {
	case PartLoopModel:
		return "the per-syscall model over the profile's calls (time inside seccomp)"
	case PartProcessProbe:
		probe := "/bin/true"
		if v := e.Validation; v != nil && v.EstimateCommand != nil && v.EstimateCommand.ProcessProbe != "" {
			probe = v.EstimateCommand.ProcessProbe
		}
		// A floor: on this project's VM a program's own start under a
		// fresh stack cost 1-4.6x the probe's (docs/validation/2026-12-03-install-aftermath.md).
		return "measured: `" + probe + "` under the same stack, beyond the install; a floor: a program's own start can cost several times that (docs/estimate.md)"
	case PartProbeCurve:
		return probeCurveText(e.Indirect)
	case PartNeedsCommand:
		return "needs the per-process probe run under the stack: give --command -- CMD (it runs /bin/true under the stack)"
	case PartProcessTermOff:
		return "--process-term=false"
	case PartNeedsGap:
		return "needs the program's time between syscalls: give --duration (the profiled run's untraced wall time) or --command"
	case PartIndirectOff:
		return "--indirect=false"
	case PartCalibrationFiles:
		return "the indirect-cost probe runs with the quick calibration only, not with --calibration files"
	case PartContainer:
		return "not probed for containers (--bundle, --rootfs)"
	case PartNoProbeSyscall:
		return "no probe syscall (getppid, gettid, getpid) runs under this stack"
	}
	return p.Basis
}

// probeCurveText says how the indirect part was read off the probe's
// curve.
func probeCurveText(in *EstimateIndirect) string {
	if in == nil || in.GapNs == nil || in.UncachedRatio == nil {
		return "the probe's curve"
	}
	s := fmt.Sprintf("the probe's ratio %.2f × the uncached calls' direct cost at %.0f ns between syscalls (%s)", *in.UncachedRatio, *in.GapNs, in.GapSource)
	if in.CachedRatio != nil {
		s += fmt.Sprintf(", + ratio %.2f × the cached calls'", *in.CachedRatio)
	}
	switch in.Range {
	case "above":
		s += "; beyond the probe's largest working set: the largest one's ratio, extrapolated"
	case "below":
		s += "; below the probe's shortest gap: its ratio"
	}
	return s
}

// estimatePartsBlock says which parts of a program's added time the
// estimate predicts, one field each; nil without parts.
func estimatePartsBlock(e *Estimate) []block {
	p := e.Parts
	if p == nil {
		return nil
	}
	f := fieldsBlock{caption: "predicted parts of the added time per run", indent: "  ", width: 13}
	for _, x := range []struct {
		name string
		part EstimatePart
	}{{"direct", p.Direct}, {"per process", p.PerProcess}, {"indirect", p.Indirect}} {
		v := "not predicted: " + partBasisText(e, x.part)
		if x.part.Predicted && x.part.AddedNs != nil {
			v = fmtEst(*x.part.AddedNs, x.part.CILowNs, x.part.CIHighNs, nsFormatter(*x.part.AddedNs)) + ": " + partBasisText(e, x.part)
		}
		f.fields = append(f.fields, field{label: x.name, value: v})
	}
	return []block{f}
}

// estimateProbeBlock is the indirect-cost probe's points; nil without
// them.
func estimateProbeBlock(e *Estimate) []block {
	in := e.Indirect
	if in == nil || len(in.Uncached) == 0 {
		return nil
	}
	f := fieldsBlock{caption: fmt.Sprintf("indirect probe: %s() after a working set (data%s), %d trials, %.1f s; ratio = indirect / direct ns per call",
		in.Syscall, map[bool]string{true: " and code", false: " only"}[in.Code], in.Trials, in.Seconds), indent: "  ", width: 10}
	for _, pt := range in.Uncached {
		f.fields = append(f.fields, field{label: fmt.Sprintf("%d KiB", pt.KiB), value: fmt.Sprintf("between syscalls %s  added %s  indirect %s  ratio %.2f [%.2f, %.2f]",
			fmtNs(pt.GapNs), nsShort(pt.AddedNs), nsShort(pt.IndirectNs), pt.Ratio, pt.RatioLow, pt.RatioHigh)})
	}
	return []block{f}
}
