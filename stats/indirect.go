package stats

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// The indirect cost of a seccomp stack is what it adds to a program's own
// work, beyond the time inside the filters: the filters' JIT code and data
// evict the program's instruction and data cache lines and branch state
// (kernel/seccomp.c: seccomp_run_filters calls every filter's image), so
// the code between syscalls runs slower. A syscall loop with warm caches
// does not see it; a probe that runs a known working set between
// syscalls does (the runner's probe workload). The functions below turn
// probe measurements into a curve of the indirect cost relative to the
// direct cost, as a function of the time between syscalls, and apply it
// to a program. All times are in ns.

// IndirectPoint is one working-set size of the probe under one stack and
// cache variant.
type IndirectPoint struct {
	// KiB is the probe's working set touched between syscalls, in KiB.
	KiB int
	// GapNs is the probe's unfiltered time per iteration (one syscall and
	// the working set): the time between syscalls, as a program's baseline
	// run time divided by its calls is.
	GapNs float64
	// Added is the measured added time per iteration under the stack.
	Added Estimate
	// Indirect is Added minus the working-set-0 point's Added (the direct
	// cost: what a bare syscall loop pays).
	Indirect Estimate
	// Ratio is Indirect divided by the direct cost: the indirect cost per
	// ns of direct cost at GapNs.
	Ratio Estimate
}

// ErrIndirectPoints is returned (wrapped) by IndirectPoints and
// NewIndirectCurve for probe data that cannot give a curve.
var ErrIndirectPoints = errors.New("indirect-cost probe")

// IndirectPoints derives the probe's points from its working-set sizes
// kib (the first 0), their unfiltered times per iteration gaps and their
// measured added times per iteration added (same length, same
// confidence). The direct cost is added[0]; each point's Indirect is
// added[i] − added[0], its interval the two sides' distances combined in
// quadrature (lower: added[i]'s lower with added[0]'s upper); its Ratio
// is Indirect / added[0], with the delta-method half-width
// √(hw_I² + r²·hw_D²) / D on each side. It returns an error wrapping
// ErrIndirectPoints for unequal lengths, a first size that is not 0, or a
// direct cost that is not positive (no ratio).
func IndirectPoints(kib []int, gaps []float64, added []Estimate) ([]IndirectPoint, error) {
	if len(kib) == 0 || len(kib) != len(gaps) || len(kib) != len(added) {
		return nil, fmt.Errorf("%w: %d sizes, %d gaps, %d added times: want the same number, at least one", ErrIndirectPoints, len(kib), len(gaps), len(added))
	}
	if kib[0] != 0 {
		return nil, fmt.Errorf("%w: the first working set is %d KiB, want 0 (the direct cost)", ErrIndirectPoints, kib[0])
	}
	d := added[0]
	if !(d.Center > 0) {
		return nil, fmt.Errorf("%w: direct cost %.1f ns at 0 KiB is not positive: the stack adds nothing measurable to the probe's syscall", ErrIndirectPoints, d.Center)
	}
	out := make([]IndirectPoint, len(kib))
	for i := range kib {
		a := added[i]
		ind := Estimate{Center: a.Center - d.Center, Confidence: a.Confidence}
		if i > 0 {
			ind.Lo = ind.Center - math.Hypot(a.Center-a.Lo, d.Hi-d.Center)
			ind.Hi = ind.Center + math.Hypot(a.Hi-a.Center, d.Center-d.Lo)
		} else {
			ind.Lo, ind.Hi = 0, 0 // the direct point itself: no indirect cost by definition
		}
		r := ind.Center / d.Center
		hwD := halfWidth(d)
		ratio := Estimate{Center: r, Confidence: a.Confidence,
			Lo: r - math.Hypot(ind.Center-ind.Lo, r*hwD)/d.Center,
			Hi: r + math.Hypot(ind.Hi-ind.Center, r*hwD)/d.Center}
		out[i] = IndirectPoint{KiB: kib[i], GapNs: gaps[i], Added: a, Indirect: ind, Ratio: ratio}
	}
	return out, nil
}

// IndirectCurve is the indirect cost per ns of direct cost as a function
// of the time between syscalls: the probe's points, sorted by GapNs, joined
// by straight lines in ln(GapNs) (centre and both bounds), held constant
// beyond the first and the last point. No shape is assumed: on this
// project's machines the indirect cost first rises with the working set
// (more of it fits the caches the filters evict) and may fall again once
// the working set misses the caches anyway.
type IndirectCurve struct {
	Points []IndirectPoint
}

// NewIndirectCurve returns the curve through points. It returns an error
// wrapping ErrIndirectPoints when there are no points or two share a
// time between syscalls (GapNs not strictly increasing once sorted), or a
// GapNs is not positive.
func NewIndirectCurve(points []IndirectPoint) (IndirectCurve, error) {
	if len(points) == 0 {
		return IndirectCurve{}, fmt.Errorf("%w: no points", ErrIndirectPoints)
	}
	p := slices.Clone(points)
	slices.SortStableFunc(p, func(a, b IndirectPoint) int { return cmpFloat(a.GapNs, b.GapNs) })
	for i, q := range p {
		if !(q.GapNs > 0) {
			return IndirectCurve{}, fmt.Errorf("%w: %d KiB: time between syscalls %.1f ns is not positive", ErrIndirectPoints, q.KiB, q.GapNs)
		}
		if i > 0 && q.GapNs <= p[i-1].GapNs {
			return IndirectCurve{}, fmt.Errorf("%w: %d KiB and %d KiB have the same time between syscalls (%.1f ns): the working sets did not separate", ErrIndirectPoints, p[i-1].KiB, q.KiB, q.GapNs)
		}
	}
	return IndirectCurve{Points: p}, nil
}

// cmpFloat orders a before b when a < b.
func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// IndirectRange says where a time between syscalls lies against the
// probe's points.
type IndirectRange int

// The ranges of IndirectCurve.At.
const (
	// IndirectInside: between the probe's shortest and longest gap.
	IndirectInside IndirectRange = iota
	// IndirectBelow: shorter than the shortest gap; the first point's
	// ratio is used.
	IndirectBelow
	// IndirectAbove: longer than the longest gap; the last point's ratio
	// is used (an extrapolation).
	IndirectAbove
)

// At returns the curve's ratio at gapNs (the indirect cost per ns of
// direct cost) and where gapNs lies. A gapNs that is not positive or NaN
// gives the first point.
func (c IndirectCurve) At(gapNs float64) (Estimate, IndirectRange) {
	p := c.Points
	if len(p) == 0 {
		return Estimate{}, IndirectInside
	}
	switch {
	case !(gapNs > p[0].GapNs):
		if gapNs == p[0].GapNs {
			return p[0].Ratio, IndirectInside
		}
		return p[0].Ratio, IndirectBelow
	case gapNs > p[len(p)-1].GapNs:
		return p[len(p)-1].Ratio, IndirectAbove
	}
	i := 1
	for p[i].GapNs < gapNs {
		i++
	}
	a, b := p[i-1], p[i]
	t := (math.Log(gapNs) - math.Log(a.GapNs)) / (math.Log(b.GapNs) - math.Log(a.GapNs))
	lerp := func(x, y float64) float64 { return x + t*(y-x) }
	return Estimate{Center: lerp(a.Ratio.Center, b.Ratio.Center), Lo: lerp(a.Ratio.Lo, b.Ratio.Lo), Hi: lerp(a.Ratio.Hi, b.Ratio.Hi),
		Confidence: a.Ratio.Confidence}, IndirectInside
}

// PredictIndirect is the indirect cost of a program whose predicted direct
// cost (the per-syscall model's, for the calls the ratio applies to) is
// direct, at ratio (IndirectCurve.At): direct·ratio, each side's
// half-width √((r·hw_D)² + (D·hw_r)²) (independent measurements).
func PredictIndirect(direct, ratio Estimate) Estimate {
	c := direct.Center * ratio.Center
	lo := math.Hypot(ratio.Center*(direct.Center-direct.Lo), direct.Center*(ratio.Center-ratio.Lo))
	hi := math.Hypot(ratio.Center*(direct.Hi-direct.Center), direct.Center*(ratio.Hi-ratio.Center))
	conf := direct.Confidence
	if conf == 0 {
		conf = ratio.Confidence
	}
	return Estimate{Center: c, Lo: c - lo, Hi: c + hi, Confidence: conf}
}
