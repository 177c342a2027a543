package report

import (
	"fmt"

	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/report/internal/text"
)

// partBasisText words an EstimatePart's basis for people; e gives the
// figures of the probe curve.
func partBasisText(e *document.Estimate, p document.EstimatePart) string {
	switch p.Basis {
	case document.PartLoopModel:
		return "the per-syscall model over the profile's calls (time inside seccomp)"
	case document.PartProcessProbe:
		probe := "/bin/true"
		if v := e.Validation; v != nil && v.EstimateCommand != nil && v.EstimateCommand.ProcessProbe != "" {
			probe = v.EstimateCommand.ProcessProbe
		}
		// A floor: on this project's VM a program's own start under a
		// fresh stack cost 1-4.6x the probe's (docs/validation/2026-12-03-install-aftermath.md).
		return "measured: `" + probe + "` under the same stack, beyond the install; a floor: a program's own start can cost several times that (docs/estimate.md)"
	case document.PartProbeCurve:
		return probeCurveText(e.Indirect)
	case document.PartNeedsCommand:
		return "needs the per-process probe run under the stack: give --command -- CMD (it runs /bin/true under the stack)"
	case document.PartProcessTermOff:
		return "--process-term=false"
	case document.PartNeedsGap:
		return "needs the program's time between syscalls: give --duration (the profiled run's untraced wall time) or --command"
	case document.PartIndirectOff:
		return "--indirect=false"
	case document.PartCalibrationFiles:
		return "the indirect-cost probe runs with the quick calibration only, not with --calibration files"
	case document.PartContainer:
		return "not probed for containers (--bundle, --rootfs)"
	case document.PartNoProbeSyscall:
		return "no probe syscall (getppid, gettid, getpid) runs under this stack"
	}
	return p.Basis
}

// probeCurveText says how the indirect part was read off the probe's
// curve.
func probeCurveText(in *document.EstimateIndirect) string {
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
func estimatePartsBlock(e *document.Estimate) []block {
	p := e.Parts
	if p == nil {
		return nil
	}
	f := fieldsBlock{caption: "predicted parts of the added time per run", indent: "  ", width: 13}
	for _, x := range []struct {
		name string
		part document.EstimatePart
	}{{"direct", p.Direct}, {"per process", p.PerProcess}, {"indirect", p.Indirect}} {
		v := "not predicted: " + partBasisText(e, x.part)
		if x.part.Predicted && x.part.AddedNs != nil {
			v = text.Est(*x.part.AddedNs, x.part.CILowNs, x.part.CIHighNs, text.NsFormatter(*x.part.AddedNs)) + ": " + partBasisText(e, x.part)
		}
		f.fields = append(f.fields, field{label: x.name, value: v})
	}
	return []block{f}
}

// estimateProbeBlock is the indirect-cost probe's points; nil without
// them.
func estimateProbeBlock(e *document.Estimate) []block {
	in := e.Indirect
	if in == nil || len(in.Uncached) == 0 {
		return nil
	}
	f := fieldsBlock{caption: fmt.Sprintf("indirect probe: %s() after a working set (data%s), %d trials, %.1f s; ratio = indirect / direct ns per call",
		in.Syscall, map[bool]string{true: " and code", false: " only"}[in.Code], in.Trials, in.Seconds), indent: "  ", width: 10}
	for _, pt := range in.Uncached {
		f.fields = append(f.fields, field{label: fmt.Sprintf("%d KiB", pt.KiB), value: fmt.Sprintf("between syscalls %s  added %s  indirect %s  ratio %.2f [%.2f, %.2f]",
			text.Ns(pt.GapNs), text.NsShort(pt.AddedNs), text.NsShort(pt.IndirectNs), pt.Ratio, pt.RatioLow, pt.RatioHigh)})
	}
	return []block{f}
}
