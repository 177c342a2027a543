package equiv

import (
	"errors"
	"fmt"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/internal/sym"
)

// Walk is a symbolic run of two stacks over every input: Sides names them
// in errors ("A", "B"; "profile", "baseline"), Claim is what a
// *CannotProveError says could not be decided ("" for equivalence), and
// Leaf is called once per input class, with the class's domain and each
// stack's outcome on it; an error from Leaf ends the walk with that error.
// filters/subset walks the same way with its own Leaf.
type Walk struct {
	Sides [2]string
	Claim string
	Leaf  func(d sym.Domain, a, b Outcome) error
}

// Run validates both stacks (index 0 = oldest filter), then explores every
// input class of the pair, the newest filter of each stack first, as
// kernel/seccomp.c: seccomp_run_filters runs them, and calls w.Leaf with
// the combined outcomes. It returns the number of classes reached. An
// invalid filter gives an error wrapping filters.ErrInvalidProgram; a
// program the symbolic machine cannot follow, or more than MaxPaths
// classes, a *CannotProveError.
func (w Walk) Run(a, b filters.Stack) (int, error) {
	c := &walker{w: w}
	for side, s := range []filters.Stack{a, b} {
		for i := len(s) - 1; i >= 0; i-- {
			p := s[i]
			if err := filters.Validate(p.Insns); err != nil {
				return 0, fmt.Errorf("check stack %s filter %d (%s): %w", w.Sides[side], i, p.Name, err)
			}
			c.seq = append(c.seq, seqEntry{p: p, side: side, index: i})
		}
		c.split = append(c.split, len(c.seq))
	}
	start := sym.NewThread(nil)
	if len(c.seq) > 0 {
		start = sym.NewThread(c.seq[0].p.Insns)
	}
	err := c.walk(0, start, sym.Full(), make([]uint32, 0, len(c.seq)))
	return c.paths, err
}

type seqEntry struct {
	p     *filters.Program
	side  int
	index int
}

// walker is one Run's state: the filters of both stacks in the order the
// walk runs them and the classes reached so far.
type walker struct {
	w     Walk
	seq   []seqEntry
	split []int // split[0] = end of stack A's entries
	paths int
}

// walk explores filter k (a thread of it) on domain d; rets holds the
// return values of the filters before k in seq.
func (c *walker) walk(k int, t sym.Thread, d sym.Domain, rets []uint32) error {
	for {
		if k == len(c.seq) {
			return c.leaf(d, rets)
		}
		ev, _, err := t.Run(d, nil)
		if err != nil {
			e := c.seq[k]
			pc := -1
			var ue *sym.UnsupportedError
			if errors.As(err, &ue) {
				pc = ue.PC
			}
			return &CannotProveError{Claim: c.w.Claim, Side: c.w.Sides[e.side], Filter: e.index, Name: e.p.Name, PC: pc, Err: err}
		}
		switch ev.Kind {
		case sym.EvRet:
			rets = append(rets, ev.Ret)
			k++
			if k < len(c.seq) {
				t = sym.NewThread(c.seq[k].p.Insns)
			}
		case sym.EvBranch:
			// Explore the true side on a copy of rets; continue with
			// the false side here.
			r2 := append(make([]uint32, 0, cap(rets)), rets...)
			if err := c.walk(k, ev.True, ev.TrueDom, r2); err != nil {
				return err
			}
			t, d = ev.False, ev.FalseDom
		}
	}
}

// leaf counts a class against MaxPaths and hands both stacks' outcomes to
// the Leaf.
func (c *walker) leaf(d sym.Domain, rets []uint32) error {
	c.paths++
	if c.paths > MaxPaths {
		return &CannotProveError{Claim: c.w.Claim, PC: -1, Err: fmt.Errorf("more than %d input classes", MaxPaths)}
	}
	return c.w.Leaf(d, OutcomeOf(combine(rets[:c.split[0]])), OutcomeOf(combine(rets[c.split[0]:])))
}

// combine folds return values ordered newest filter first, as
// kernel/seccomp.c: seccomp_run_filters does: the lowest action wins, ties
// go to the newest filter.
func combine(rets []uint32) uint32 {
	best := uint32(filters.ActionAllow)
	for _, r := range rets {
		if int32(r&filters.RetActionFull) < int32(best&filters.RetActionFull) {
			best = r
		}
	}
	return best
}
