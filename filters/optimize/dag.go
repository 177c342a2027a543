package optimize

import (
	"fmt"
	"sort"

	"golang.org/x/net/bpf"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/internal/sym"
)

// node is a decision DAG node: a return value, or a test of one
// seccomp_data word ((word & Mask) | Or) Op K with a true and a false child.
// Nodes are hash-consed by a builder, so equal subtrees are one node: shared
// rule bodies and returns come for free.
type node struct {
	id   int
	leaf bool
	ret  uint32
	pred sym.Pred
	t, f *node
	// hot asks the layout to place the true child right after the test
	// (a peeled hot syscall) instead of the false child.
	hot bool
}

type nodeKey struct {
	leaf   bool
	ret    uint32
	pred   sym.Pred
	tt, ff int
	hot    bool
}

// builder hash-conses nodes.
type builder struct {
	nodes map[nodeKey]*node
	n     int
}

func newBuilder() *builder { return &builder{nodes: map[nodeKey]*node{}} }

func (b *builder) intern(k nodeKey, mk func() *node) *node {
	if n, ok := b.nodes[k]; ok {
		return n
	}
	n := mk()
	n.id = b.n
	b.n++
	b.nodes[k] = n
	return n
}

// ret returns the leaf returning k.
func (b *builder) ret(k uint32) *node {
	return b.intern(nodeKey{leaf: true, ret: k}, func() *node { return &node{leaf: true, ret: k} })
}

// test returns the node testing p, or t itself when both children are the
// same node (the test cannot change the outcome).
func (b *builder) test(p sym.Pred, t, f *node) *node {
	if t == f {
		return t
	}
	return b.intern(nodeKey{pred: p, tt: t.id, ff: f.id}, func() *node { return &node{pred: p, t: t, f: f} })
}

// hotTest is test with the true child laid out right after the test.
func (b *builder) hotTest(p sym.Pred, t, f *node) *node {
	if t == f {
		return t
	}
	return b.intern(nodeKey{pred: p, tt: t.id, ff: f.id, hot: true}, func() *node { return &node{pred: p, t: t, f: f, hot: true} })
}

// combineRet folds a filter's return value r into best, the result of the
// newer filters: r replaces best only when its action is strictly lower as
// a signed 32-bit number (kernel/seccomp.c: seccomp_run_filters).
func combineRet(best, r uint32) uint32 {
	if int32(r&filters.RetActionFull) < int32(best&filters.RetActionFull) {
		return r
	}
	return best
}

// minAction returns the lowest action (as signed 32-bit) any `ret` of insns
// can return; `ret a` counts as the lowest possible.
func minAction(insns []bpf.RawInstruction) int32 {
	m := int32(0x7fffffff)
	for _, in := range insns {
		if in.Op&0x07 != 0x06 {
			continue
		}
		if in.Op&0x18 != 0 {
			return -1 << 31
		}
		m = min(m, int32(in.K&filters.RetActionFull))
	}
	return m
}

// leafState is one class of inputs after phase 1 (nr and arch only): the
// class's domain and, per filter (newest first), either its return value or
// the thread stopped at its first jump on another word.
type leafState struct {
	dom     sym.Domain
	rets    []uint32
	done    []bool
	threads []sym.Thread
}

// merger builds the decision DAG of a stack.
type merger struct {
	b     *builder
	progs []*filters.Program // newest first
	rest  []int32            // rest[k] = lowest action any of progs[k:] can return
	steps int
}

// maxResidualSteps bounds the work of phase 2 (residual exploration).
const maxResidualSteps = 20 << 20

// phase1Block stops a thread at any jump that is not a test of nr or arch
// the domain keeps as intervals: argument and instruction-pointer tests,
// and masked nr or arch tests that would need many intervals, are left to
// phase 2. (A jset of the x32 bit on nr is two intervals and stays here.)
func phase1Block(p sym.Pred) bool {
	return p.Word > sym.WordArch || !p.IntervalExact()
}

// explore1 runs every filter (newest first) on nr and arch only and calls
// emit for each class of inputs.
func (m *merger) explore1(emit func(leafState) error) error {
	n := len(m.progs)
	var walk func(k int, t sym.Thread, d sym.Domain, st leafState) error
	walk = func(k int, t sym.Thread, d sym.Domain, st leafState) error {
		for {
			if k == n {
				st.dom = d
				return emit(st)
			}
			ev, _, err := t.Run(d, phase1Block)
			if err != nil {
				return fmt.Errorf("filter %q: %w", m.progs[k].Name, err)
			}
			switch ev.Kind {
			case sym.EvRet:
				st.rets[k], st.done[k] = ev.Ret, true
			case sym.EvBlock:
				st.threads[k] = ev.True
			case sym.EvBranch:
				if err := walk(k, ev.True, ev.TrueDom, st.clone()); err != nil {
					return err
				}
				t, d = ev.False, ev.FalseDom
				continue
			}
			k++
			if k < n {
				t = sym.NewThread(m.progs[k].Insns)
			}
		}
	}
	st := leafState{rets: make([]uint32, n), done: make([]bool, n), threads: make([]sym.Thread, n)}
	if n == 0 {
		st.dom = sym.Full()
		return emit(st)
	}
	return walk(0, sym.NewThread(m.progs[0].Insns), sym.Full(), st)
}

func (s leafState) clone() leafState {
	return leafState{
		rets:    append([]uint32(nil), s.rets...),
		done:    append([]bool(nil), s.done...),
		threads: append([]sym.Thread(nil), s.threads...),
	}
}

// residual returns the DAG deciding one phase-1 class: the filters still
// running (stopped at argument tests) are explored on the class's domain,
// newest first, each return value folded into the result so far; a filter
// that cannot lower the result any more is skipped.
func (m *merger) residual(st leafState) (*node, error) {
	type key struct {
		k    int
		best uint32
	}
	memo := map[key]*node{}
	var cont func(k int, best uint32) (*node, error)
	var thread func(k int, t sym.Thread, d sym.Domain, best uint32) (*node, error)
	cont = func(k int, best uint32) (*node, error) {
		for k < len(m.progs) && st.done[k] {
			best = combineRet(best, st.rets[k])
			k++
		}
		if k == len(m.progs) || m.rest[k] >= int32(best&filters.RetActionFull) {
			return m.b.ret(best), nil
		}
		if n, ok := memo[key{k, best}]; ok {
			return n, nil
		}
		n, err := thread(k, st.threads[k], st.dom, best)
		if err != nil {
			return nil, err
		}
		memo[key{k, best}] = n
		return n, nil
	}
	thread = func(k int, t sym.Thread, d sym.Domain, best uint32) (*node, error) {
		m.steps++
		if m.steps > maxResidualSteps {
			return nil, fmt.Errorf("residual exploration over %d steps: %w", maxResidualSteps, ErrTooComplex)
		}
		ev, _, err := t.Run(d, nil)
		if err != nil {
			return nil, fmt.Errorf("filter %q: %w", m.progs[k].Name, err)
		}
		switch ev.Kind {
		case sym.EvRet:
			return cont(k+1, combineRet(best, ev.Ret))
		default: // EvBranch
			tn, err := thread(k, ev.True, ev.TrueDom, best)
			if err != nil {
				return nil, err
			}
			fn, err := thread(k, ev.False, ev.FalseDom, best)
			if err != nil {
				return nil, err
			}
			return m.b.test(ev.Pred, tn, fn), nil
		}
	}
	return cont(0, uint32(filters.ActionAllow))
}

// seg is a run of values [lo, hi] of one word that leads to node n, with
// its weight for layout.
type seg struct {
	lo, hi uint32
	n      *node
	w      float64
}

// mergeSegs sorts segs and joins neighbours that lead to the same node.
func mergeSegs(segs []seg) []seg {
	sort.Slice(segs, func(i, j int) bool { return segs[i].lo < segs[j].lo })
	out := segs[:0:0]
	for _, s := range segs {
		if l := len(out) - 1; l >= 0 && out[l].n == s.n && out[l].hi+1 == s.lo {
			out[l].hi = s.hi
			out[l].w += s.w
			continue
		}
		out = append(out, s)
	}
	return out
}
