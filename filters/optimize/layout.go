package optimize

import (
	"math"
	"sort"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/analysis"
	"github.com/seccompbench/seccompbench/filters/internal/sym"
)

// Weights say how often each syscall is made, for layout. The zero value
// (no profile) weighs every run of syscall numbers with one outcome alike.
type Weights struct {
	// Calls maps (audit arch, seccomp_data.nr) to a call count.
	Calls map[[2]uint32]float64
	// extra adds raw layout weight per (audit arch, nr), without
	// profileScale: Optimize's repair rounds use it.
	extra map[[2]uint32]float64
}

// WeightsFromProfile turns a strace -c or CSV profile
// (analysis.ParseProfile) into layout weights; unknown names are skipped.
func WeightsFromProfile(p *analysis.Profile) (Weights, error) {
	w := Weights{Calls: map[[2]uint32]float64{}}
	for _, e := range p.Entries {
		if !e.Known || e.Calls <= 0 {
			continue
		}
		a, err := filters.LookupArch(e.Arch)
		if err != nil {
			return w, err
		}
		w.Calls[[2]uint32{a.AuditArch, uint32(a.Nr(e.Nr))}] += float64(e.Calls)
	}
	return w, nil
}

// profiled reports whether w has any call counts.
func (w Weights) profiled() bool { return len(w.Calls) > 0 }

// callsIn returns the calls of arch value arch to numbers in [lo, hi].
func (w Weights) callsIn(arch, lo, hi uint32) float64 {
	s := 0.0
	for k, c := range w.Calls {
		if k[0] == arch && k[1] >= lo && k[1] <= hi {
			s += c
		}
	}
	return s
}

// leafOut is one phase-1 class with its decision node.
type leafOut struct {
	arch, nr [][2]uint32
	n        *node
}

// profileScale makes profiled calls dominate the base weight of 1 per run
// of numbers, which only breaks ties among syscalls the profile never saw.
const profileScale = 1e6

// dispatch lays out the top of the program: a search over arch values,
// then per arch a search over nr, each leading to its class's node.
// Without a profile a run of numbers weighs 1 plus the number of syscalls
// the tables name in it (every named syscall alike; a run of unnamed
// numbers still counts once); with one, profileScale per call is added, so
// the workload's hot syscalls sit near the root.
func (b *builder) dispatch(leaves []leafOut, w Weights) *node {
	// Elementary arch intervals: cut at every boundary of every class.
	cuts := map[uint32]bool{0: true}
	for _, l := range leaves {
		for _, a := range l.arch {
			cuts[a[0]] = true
			if a[1] != math.MaxUint32 {
				cuts[a[1]+1] = true
			}
		}
	}
	starts := make([]uint32, 0, len(cuts))
	for c := range cuts {
		starts = append(starts, c)
	}
	sort.Slice(starts, func(i, j int) bool { return starts[i] < starts[j] })
	end := func(i int) uint32 {
		if i+1 < len(starts) {
			return starts[i+1] - 1
		}
		return math.MaxUint32
	}
	per := make([][]seg, len(starts))
	for _, l := range leaves {
		for _, a := range l.arch {
			i := sort.Search(len(starts), func(i int) bool { return starts[i] >= a[0] })
			for ; i < len(starts) && starts[i] <= a[1]; i++ {
				for _, r := range l.nr {
					per[i] = append(per[i], seg{lo: r[0], hi: r[1], n: l.n})
				}
			}
		}
	}
	var archSegs []seg
	for i, segs := range per {
		lo, hi := starts[i], end(i)
		point := lo == hi
		segs = mergeSegs(segs)
		for j := range segs {
			segs[j].w = 1
			if point {
				segs[j].w += namedIn(lo, segs[j].lo, segs[j].hi)
				for k, x := range w.extra {
					if k[0] == lo && k[1] >= segs[j].lo && k[1] <= segs[j].hi {
						segs[j].w += x
					}
				}
			}
			if point && w.profiled() {
				segs[j].w += profileScale * w.callsIn(lo, segs[j].lo, segs[j].hi)
			}
		}
		n := b.search(sym.WordNr, segs)
		aw := 1.0
		if point {
			switch lo {
			case filters.AuditArchX86_64:
				aw = 100
			case filters.AuditArchI386:
				aw = 10
			}
			if w.profiled() {
				aw += profileScale * w.callsIn(lo, 0, math.MaxUint32)
			}
		}
		archSegs = append(archSegs, seg{lo: lo, hi: hi, n: n, w: aw})
	}
	return b.search(sym.WordArch, archSegs)
}

// namedIn counts the syscalls the x86_64 kernel's tables name for arch
// value arch in seccomp_data.nr values [lo, hi] (x86_64 and x32 share
// AUDIT_ARCH_X86_64).
func namedIn(arch, lo, hi uint32) float64 {
	n := 0
	for _, a := range filters.NativeArches() {
		if a.AuditArch != arch {
			continue
		}
		for nr := range a.Numbers {
			if v := uint32(a.Nr(nr)); v >= lo && v <= hi {
				n++
			}
		}
	}
	return float64(n)
}

// search returns a node that sends each value of word to the node of the
// segment holding it; segs cover all 2^32 values. It is a weight-balanced
// binary search on `jge` with two refinements: a heavy single value is
// tested first with `jeq` when that shortens the expected path, and three
// runs whose outer two agree become one `jeq`.
func (b *builder) search(word uint8, segs []seg) *node {
	segs = mergeSegs(segs)
	if len(segs) == 1 {
		return segs[0].n
	}
	eq := func(k uint32, t, f *node) *node {
		return b.test(sym.Pred{Word: word, Mask: 0xffffffff, Op: sym.OpEq, K: k}, t, f)
	}
	if len(segs) == 3 && segs[0].n == segs[2].n && segs[1].lo == segs[1].hi {
		return eq(segs[1].lo, segs[1].n, segs[0].n)
	}
	total := 0.0
	h, hw := -1, 0.0
	for i, s := range segs {
		total += s.w
		if s.lo == s.hi && s.w > hw {
			h, hw = i, s.w
		}
	}
	if h >= 0 {
		// Splitting puts a single value at depth >= 2 (a bound on each
		// side) and about log2(total/weight)+1; peeling it costs every
		// other value one test.
		depth := max(2, math.Log2(total/hw)+1)
		if hw*(depth-1) > total-hw {
			rest := append(append([]seg(nil), segs[:h]...), segs[h+1:]...)
			if h > 0 {
				rest[h-1].hi = segs[h].hi
			} else {
				rest[0].lo = segs[h].lo
			}
			return b.hotTest(sym.Pred{Word: word, Mask: 0xffffffff, Op: sym.OpEq, K: segs[h].lo}, segs[h].n, b.search(word, rest))
		}
	}
	// Weight-balanced split point.
	best, bestDiff := 1, math.Inf(1)
	left := 0.0
	for i := 1; i < len(segs); i++ {
		left += segs[i-1].w
		if d := math.Abs(2*left - total); d < bestDiff {
			best, bestDiff = i, d
		}
	}
	return b.test(sym.Pred{Word: word, Mask: 0xffffffff, Op: sym.OpGe, K: segs[best].lo},
		b.search(word, segs[best:]), b.search(word, segs[:best]))
}
