// Package sym executes seccomp classic BPF programs symbolically over the
// sixteen 32-bit words of struct seccomp_data. It is the engine behind
// filters/equiv (the exact equivalence checker) and filters/optimize (merge
// and layout): both need to know, for every input, what a program returns,
// and both must never guess.
//
// The input is struct seccomp_data (include/uapi/linux/seccomp.h), read by
// a filter only as aligned 32-bit words:
//
//	struct seccomp_data {
//		int   nr;                   // word 0
//		__u32 arch;                 // word 1
//		__u64 instruction_pointer;  // words 2 (low) and 3 (high)
//		__u64 args[6];              // words 4+2i (low) and 5+2i (high)
//	};
//
// A Domain holds, per word, the set of values still possible on the current
// path: an exact set of intervals for plain comparisons (jeq/jgt/jge #k) plus
// a list of masked constraints ((w & m) op k, from `and #m` or jset). Every
// set the engine builds is exact, so a path it calls feasible has a witness
// (Domain.Witness) and a path it calls infeasible has none.
package sym

import (
	"errors"
	"fmt"
	"math/bits"
	"sort"
)

// Words is the number of 32-bit words in struct seccomp_data (64 bytes).
const Words = 16

// Word indexes of struct seccomp_data.
const (
	WordNr   = 0
	WordArch = 1
)

// ErrBudget is returned when the feasibility search of a word with masked
// constraints exceeds its node budget; callers must treat it as "cannot
// decide", never as an answer.
var ErrBudget = errors.New("constraint search budget exceeded")

// Op is a comparison of a jump: jeq, jgt, jge or jset.
type Op uint8

// Comparisons (include/uapi/linux/bpf_common.h BPF_JEQ, BPF_JGT, BPF_JGE,
// BPF_JSET).
const (
	OpEq Op = iota
	OpGt
	OpGe
	OpSet
)

var opNames = [...]string{"jeq", "jgt", "jge", "jset"}

// String returns the jump's mnemonic: jeq, jgt, jge or jset.
func (o Op) String() string { return opNames[o] }

// iv is a closed interval of uint32 values, lo <= hi.
type iv struct{ lo, hi uint32 }

// mcons is a masked constraint on one word w: ((w & m) op k) == truth, op one
// of OpEq, OpGt, OpGe, with k & m == k for OpEq.
type mcons struct {
	m     uint32
	op    Op
	k     uint32
	truth bool
}

// wordDom is the set of values one word may still take: the values in ivs
// (sorted, disjoint, non-empty) that satisfy every constraint in masked.
// A wordDom is immutable once shared.
type wordDom struct {
	ivs    []iv
	masked []mcons
}

var fullDom = &wordDom{ivs: []iv{{0, 0xffffffff}}}

// Domain is the set of seccomp_data inputs still possible on a path: a
// product of per-word sets. The zero Domain is not valid; use Full.
type Domain struct {
	w [Words]*wordDom
}

// Full returns the domain of every input.
func Full() Domain {
	var d Domain
	for i := range d.w {
		d.w[i] = fullDom
	}
	return d
}

// Constrained reports whether word i is restricted at all.
func (d *Domain) Constrained(i int) bool { return d.w[i] != fullDom }

// Intervals returns word i's interval set, and false if the word also has
// masked constraints (then the intervals over-approximate it).
func (d *Domain) Intervals(i int) ([][2]uint32, bool) {
	w := d.w[i]
	out := make([][2]uint32, len(w.ivs))
	for j, v := range w.ivs {
		out[j] = [2]uint32{v.lo, v.hi}
	}
	return out, len(w.masked) == 0
}

// Pred is one jump's condition on a word: (((word & Mask) | Or) Op K).
type Pred struct {
	Word     uint8
	Mask, Or uint32
	Op       Op
	K        uint32
}

// String shows the predicate as (w<word>&mask|or) op k, e.g. "w4 jeq 0x1".
func (p Pred) String() string {
	s := fmt.Sprintf("w%d", p.Word)
	if p.Mask != 0xffffffff {
		s = fmt.Sprintf("(%s&%#x)", s, p.Mask)
	}
	if p.Or != 0 {
		s = fmt.Sprintf("(%s|%#x)", s, p.Or)
	}
	return fmt.Sprintf("%s %s %#x", s, p.Op, p.K)
}

// ErrUnsupported is returned for a predicate the domain cannot represent
// exactly (an ordered comparison of a value with bits forced by `or`).
var ErrUnsupported = errors.New("predicate not representable exactly")

// normalize turns p into: a constant truth value (isConst), an interval
// constraint (plain), or a masked constraint.
func normalize(p Pred) (c mcons, constVal, isConst bool, err error) {
	m, o, k := p.Mask, p.Or, p.K
	m &^= o // bits forced to 1 by or do not depend on the word
	switch p.Op {
	case OpEq:
		if o&^k != 0 || k&^(m|o) != 0 {
			return c, false, true, nil
		}
		if m == 0 {
			return c, true, true, nil
		}
		return mcons{m: m, op: OpEq, k: k & m, truth: true}, false, false, nil
	case OpSet:
		if o&k != 0 {
			return c, true, true, nil
		}
		if m&k == 0 {
			return c, false, true, nil
		}
		return mcons{m: m & k, op: OpEq, k: 0, truth: false}, false, false, nil
	case OpGt, OpGe:
		if m == 0 {
			v := o
			if p.Op == OpGt {
				return c, v > k, true, nil
			}
			return c, v >= k, true, nil
		}
		if o != 0 {
			return c, false, false, fmt.Errorf("%v: %w", p, ErrUnsupported)
		}
		return mcons{m: m, op: p.Op, k: k, truth: true}, false, false, nil
	}
	return c, false, false, fmt.Errorf("op %d: %w", p.Op, ErrUnsupported)
}

// Assume returns d restricted to inputs where p has the value truth, and
// whether any input remains. An error means the restriction cannot be
// decided exactly (ErrUnsupported, ErrBudget).
func (d Domain) Assume(p Pred, truth bool) (Domain, bool, error) {
	c, cv, isConst, err := normalize(p)
	if err != nil {
		return d, false, err
	}
	if isConst {
		return d, cv == truth, nil
	}
	if !truth {
		c.truth = !c.truth
	}
	w := d.w[p.Word]
	nw, ok, err := w.with(c)
	if err != nil || !ok {
		return d, false, err
	}
	d.w[p.Word] = nw
	return d, true, nil
}

// with returns w restricted by c and whether it is non-empty.
func (w *wordDom) with(c mcons) (*wordDom, bool, error) {
	if c.m == 0xffffffff {
		ivs := w.ivs
		switch {
		case c.op == OpEq && c.truth:
			ivs = intersect(ivs, c.k, c.k)
		case c.op == OpEq:
			ivs = removePoint(ivs, c.k)
		case c.op == OpGt && c.truth:
			if c.k == 0xffffffff {
				return nil, false, nil
			}
			ivs = intersect(ivs, c.k+1, 0xffffffff)
		case c.op == OpGt:
			ivs = intersect(ivs, 0, c.k)
		case c.op == OpGe && c.truth:
			ivs = intersect(ivs, c.k, 0xffffffff)
		default: // ge false
			if c.k == 0 {
				return nil, false, nil
			}
			ivs = intersect(ivs, 0, c.k-1)
		}
		if len(ivs) == 0 {
			return nil, false, nil
		}
		nw := &wordDom{ivs: ivs, masked: w.masked}
		if len(nw.masked) == 0 {
			return nw, true, nil
		}
		_, ok, err := nw.witness()
		return nw, ok, err
	}
	if c.op == OpEq {
		if set, ok := maskIntervals(c.m, c.k); ok {
			if !c.truth {
				set = complement(set)
			}
			ivs := intersectSets(w.ivs, set)
			if len(ivs) == 0 {
				return nil, false, nil
			}
			nw := &wordDom{ivs: ivs, masked: w.masked}
			if len(nw.masked) == 0 {
				return nw, true, nil
			}
			_, ok, err := nw.witness()
			return nw, ok, err
		}
	}
	for _, m := range w.masked {
		if m == c {
			return w, true, nil
		}
	}
	nw := &wordDom{ivs: w.ivs, masked: append(append([]mcons(nil), w.masked...), c)}
	_, ok, err := nw.witness()
	return nw, ok, err
}

// maxMaskFree bounds the free bits above a mask's lowest bit for which
// maskIntervals enumerates a masked equality as intervals (2^maxMaskFree
// intervals at most).
const maxMaskFree = 6

// maskIntervals returns the values w with (w & m) == k (k within m, m not
// 0) as sorted disjoint intervals, when there are at most 2^maxMaskFree:
// the bits below m's lowest set bit are free and form each interval; the
// bits above it outside m are enumerated.
func maskIntervals(m, k uint32) ([]iv, bool) {
	if m == 0 {
		return nil, false
	}
	b := bits.TrailingZeros32(m)
	low := uint32(uint64(1)<<b - 1)
	free := ^m &^ low
	if bits.OnesCount32(free) > maxMaskFree {
		return nil, false
	}
	var out []iv
	// Enumerate the subsets of free in increasing order.
	for s := uint32(0); ; s = (s - free) & free {
		base := k | s
		out = append(out, iv{base, base | low})
		if s == free {
			break
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].lo < out[j].lo })
	return out, true
}

// complement returns the values not in the sorted disjoint set ivs.
func complement(ivs []iv) []iv {
	var out []iv
	next := uint64(0)
	for _, v := range ivs {
		if uint64(v.lo) > next {
			out = append(out, iv{uint32(next), v.lo - 1})
		}
		next = uint64(v.hi) + 1
	}
	if next <= 0xffffffff {
		out = append(out, iv{uint32(next), 0xffffffff})
	}
	return out
}

// intersectSets intersects two sorted disjoint interval sets.
func intersectSets(a, b []iv) []iv {
	var out []iv
	for i, j := 0, 0; i < len(a) && j < len(b); {
		lo, hi := max(a[i].lo, b[j].lo), min(a[i].hi, b[j].hi)
		if lo <= hi {
			out = append(out, iv{lo, hi})
		}
		if a[i].hi < b[j].hi {
			i++
		} else {
			j++
		}
	}
	return out
}

// IntervalExact reports whether assuming p (either way) keeps a word's set
// a plain set of intervals: a comparison without mask or `or`, or a
// masked equality or jset whose mask enumerates into few intervals
// (maskIntervals). Predicates that fold to a constant count too.
func (p Pred) IntervalExact() bool {
	c, _, isConst, err := normalize(p)
	if err != nil {
		return false
	}
	if isConst || c.m == 0xffffffff {
		return true
	}
	if c.op != OpEq {
		return false
	}
	_, ok := maskIntervals(c.m, c.k)
	return ok
}

func intersect(ivs []iv, lo, hi uint32) []iv {
	out := make([]iv, 0, len(ivs))
	for _, v := range ivs {
		if v.hi < lo || v.lo > hi {
			continue
		}
		out = append(out, iv{max(v.lo, lo), min(v.hi, hi)})
	}
	return out
}

func removePoint(ivs []iv, k uint32) []iv {
	i := sort.Search(len(ivs), func(i int) bool { return ivs[i].hi >= k })
	if i == len(ivs) || ivs[i].lo > k {
		return ivs
	}
	out := make([]iv, 0, len(ivs)+1)
	out = append(out, ivs[:i]...)
	v := ivs[i]
	if v.lo < k {
		out = append(out, iv{v.lo, k - 1})
	}
	if v.hi > k {
		out = append(out, iv{k + 1, v.hi})
	}
	return append(out, ivs[i+1:]...)
}

// searchBudget bounds the nodes one witness search may visit.
const searchBudget = 1 << 20

// witness returns the smallest value of w, by a depth-first search over the
// bits from the most significant down that prunes every subtree no value of
// which can satisfy an interval or masked constraint. A subtree that lies
// inside one interval is decided by its number of free bits and the set of
// masked constraints still undecided in it (an undecided constraint has its
// fixed bits equal to the constant's), so failures of such subtrees are
// memoized. The search is exact; it returns ErrBudget if it needs more than
// searchBudget nodes.
func (w *wordDom) witness() (uint32, bool, error) {
	if len(w.masked) == 0 {
		return w.ivs[0].lo, true, nil
	}
	budget := searchBudget
	type key struct {
		free uint
		open string
	}
	failed := map[key]bool{}
	open := make([]byte, len(w.masked))
	var rec func(prefix uint64, free uint) (uint32, bool, error)
	rec = func(prefix uint64, free uint) (uint32, bool, error) {
		budget--
		if budget < 0 {
			return 0, false, ErrBudget
		}
		lo := prefix << free
		hi := lo | (1<<free - 1)
		// Interval membership of [lo, hi].
		i := sort.Search(len(w.ivs), func(i int) bool { return uint64(w.ivs[i].hi) >= lo })
		if i == len(w.ivs) || uint64(w.ivs[i].lo) > hi {
			return 0, false, nil
		}
		inside := uint64(w.ivs[i].lo) <= lo && uint64(w.ivs[i].hi) >= hi
		certain := true
		for j, c := range w.masked {
			poss, cert := c.over(uint32(lo), free)
			if !poss {
				return 0, false, nil
			}
			certain = certain && cert
			open[j] = '0'
			if !cert {
				open[j] = '1'
			}
		}
		if certain {
			// Every value of the subtree satisfies the masked
			// constraints: the smallest one in the intervals.
			return uint32(max(lo, uint64(w.ivs[i].lo))), true, nil
		}
		if free == 0 {
			return 0, false, nil // cannot happen: all constraints decided
		}
		var k key
		if inside {
			k = key{free, string(open)}
			if failed[k] {
				return 0, false, nil
			}
		}
		if v, ok, err := rec(prefix<<1, free-1); ok || err != nil {
			return v, ok, err
		}
		v, ok, err := rec(prefix<<1|1, free-1)
		if !ok && err == nil && inside {
			failed[k] = true
		}
		return v, ok, err
	}
	return rec(0, 32)
}

// over reports whether some (possible) or every (certain) value of the
// subtree of words with the high bits of lo and free low bits satisfies c.
func (c mcons) over(lo uint32, free uint) (possible, certain bool) {
	F := uint32(uint64(1)<<free - 1)
	vf := lo & c.m &^ F // fixed part of w & m
	mx := vf | c.m&F    // largest w & m
	var p, ce bool
	switch c.op {
	case OpEq:
		p = c.k&^F == vf
		ce = p && c.m&F == 0
	case OpGt:
		p, ce = mx > c.k, vf > c.k
	case OpGe:
		p, ce = mx >= c.k, vf >= c.k
	}
	if c.truth {
		return p, ce
	}
	return !ce, !p
}

// Witness returns one input in d: for each word its smallest possible value.
func (d *Domain) Witness() ([Words]uint32, error) {
	var out [Words]uint32
	for i, w := range d.w {
		v, ok, err := w.witness()
		if err != nil {
			return out, err
		}
		if !ok {
			return out, fmt.Errorf("word %d: empty domain", i)
		}
		out[i] = v
	}
	return out, nil
}
