package runjob

import (
	"math"
	"testing"

	"github.com/seccompbench/seccompbench/runner/result"
)

// pairedAdded takes the pair differences of the cell's children only:
// children at 16 filters add 2, 4 and 6 ms per pair (CPU 1, 2, 3), the
// 0-filter child (an A/A check) and another variant are left out. Mean
// 4 ms ± t(0.975, 2)·2/√3 = 4.968 ms; CPU centre 2 ms.
func TestPairedAdded(t *testing.T) {
	child := func(v result.Variant, n int, added float64) result.Sample {
		s := result.Sample{Cell: result.Cell{Variant: v, Filters: n}, Command: &result.CommandSample{}}
		for i := range 3 {
			b := 100e6 + 1e6*float64(i)
			s.BaselineSamplesNsPerOp = append(s.BaselineSamplesNsPerOp, b)
			s.SamplesNsPerOp = append(s.SamplesNsPerOp, b+added)
			s.Command.BaseCPUNs = append(s.Command.BaseCPUNs, b/2)
			s.Command.CPUNs = append(s.Command.CPUNs, b/2+added/2)
		}
		return s
	}
	samples := []result.Sample{child(result.VariantDefeat, 16, 2e6), child(result.VariantDefeat, 0, 0), child(result.VariantDefeat, 16, 4e6),
		child(result.VariantOn, 16, 50e6), child(result.VariantDefeat, 16, 6e6)}
	p, cpu := pairedAdded(samples, "defeat", 16, 0.95)
	if p.Pairs != 9 || math.Abs(p.Center-4e6) > 1 || math.Abs(p.HalfWidth()-4.968e6) > 1e3 || math.Abs(cpu-2e6) > 1 {
		t.Errorf("pairedAdded = %v [%v, %v] over %d pairs, CPU %v; want 4 ms ± 4.968 over 9 pairs, CPU 2 ms", p.Center, p.Lo, p.Hi, p.Pairs, cpu)
	}
}
