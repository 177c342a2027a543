package subset

import (
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/equiv"
	"github.com/seccompbench/seccompbench/filters/internal/sym"
)

// key names one syscall of one ABI.
type key struct {
	arch string
	nr   int
}

// findings holds findings per syscall (named) and per arch name
// (unnamed; "" for arch values of no x86 ABI).
type findings struct {
	named   map[key]*Finding
	unnamed map[string]*Finding
}

func newFindings() findings {
	return findings{named: map[key]*Finding{}, unnamed: map[string]*Finding{}}
}

// checker is Check's Leaf state: the violations so far, and with
// ClassOnly the data differences it does not count (notes).
type checker struct {
	opt         Options
	viol, notes findings
}

// leaf records d's inputs as findings when the profile's outcome op is
// looser than (or, unless ClassOnly, returns other data than) the
// baseline's ob.
func (c *checker) leaf(d sym.Domain, op, ob equiv.Outcome) error {
	rel := Relate(op, ob)
	fs := &c.viol
	if !rel.Violates(c.opt.ClassOnly) {
		if rel != DataDiffers {
			return nil
		}
		fs = &c.notes
	}
	v := violation{rel: rel, p: op, b: ob}
	if err := fs.breakdown(d, v); err != nil {
		return &equiv.CannotProveError{Claim: claim, PC: -1, Err: err}
	}
	return nil
}

// violation is one leaf's relation and outcomes.
type violation struct {
	rel  Relation
	p, b equiv.Outcome
}

func eq(word uint8, k uint32) sym.Pred {
	return sym.Pred{Word: word, Mask: 0xffffffff, Op: sym.OpEq, K: k}
}

// breakdown records every named syscall of the x86 ABIs that d holds, and
// d's inputs outside them, as findings of v.
func (c *findings) breakdown(d sym.Domain, v violation) error {
	other, rest := d, true
	for _, audit := range []uint32{filters.AuditArchX86_64, filters.AuditArchI386} {
		da, ok, err := d.Assume(eq(sym.WordArch, audit), true)
		if err != nil {
			return err
		}
		if ok {
			if err := c.perArch(da, audit, v); err != nil {
				return err
			}
		}
		if rest {
			if other, rest, err = other.Assume(eq(sym.WordArch, audit), false); err != nil {
				return err
			}
		}
	}
	if !rest {
		return nil
	}
	return c.addUnnamed(other, v)
}

// archesOf returns the ABIs whose inputs carry audit in seccomp_data.arch.
func archesOf(audit uint32) []*filters.Arch {
	if audit == filters.AuditArchI386 {
		return []*filters.Arch{filters.ArchI386}
	}
	return []*filters.Arch{filters.ArchX86_64, filters.ArchX32}
}

// perArch records the named syscalls in da (arch fixed to audit) and one
// unnamed witness when da also holds numbers no table names.
func (c *findings) perArch(da sym.Domain, audit uint32, v violation) error {
	ivs, exact := da.Intervals(sym.WordNr)
	named := map[uint32]bool{}
	for _, a := range archesOf(audit) {
		for _, n := range a.SortedNumbers() {
			nr := uint32(a.Nr(n))
			dn, ok, err := da, inIntervals(ivs, nr), error(nil)
			if !exact || ok {
				dn, ok, err = da.Assume(eq(sym.WordNr, nr), true)
			}
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			named[nr] = true
			if err := c.addNamed(key{a.Name, n}, dn, v); err != nil {
				return err
			}
		}
	}
	if !exact {
		// Masked tests on nr: take every named number out of the set and
		// see whether anything is left.
		rest, ok := da, true
		for nr := range named {
			var err error
			if rest, ok, err = rest.Assume(eq(sym.WordNr, nr), false); err != nil || !ok {
				return err
			}
		}
		return c.addUnnamed(rest, v)
	}
	nr, ok := unnamedIn(ivs, named)
	if !ok {
		return nil
	}
	du, _, err := da.Assume(eq(sym.WordNr, nr), true)
	if err != nil {
		return err
	}
	return c.addUnnamed(du, v)
}

func inIntervals(ivs [][2]uint32, v uint32) bool {
	for _, r := range ivs {
		if v >= r[0] && v <= r[1] {
			return true
		}
	}
	return false
}

// unnamedIn returns the smallest value of ivs not in named, if any.
func unnamedIn(ivs [][2]uint32, named map[uint32]bool) (uint32, bool) {
	for _, r := range ivs {
		for v := uint64(r[0]); v <= uint64(r[1]); v++ {
			if !named[uint32(v)] {
				return uint32(v), true
			}
		}
	}
	return 0, false
}

// addNamed counts one class of syscall k; the first class (or the first
// Looser one) gives the witness.
func (c *findings) addNamed(k key, dn sym.Domain, v violation) error {
	f := c.named[k]
	if f != nil {
		f.Classes++
		if f.Relation == Looser || v.rel != Looser {
			return nil
		}
	}
	w, err := dn.Witness()
	if err != nil {
		return err
	}
	data := equiv.DataOf(w)
	arch, nr, name := equiv.Describe(data)
	if f == nil {
		f = &Finding{Classes: 1}
		c.named[k] = f
	}
	f.Arch, f.Nr, f.Name, f.Relation, f.Witness, f.Profile, f.Baseline = arch, nr, name, v.rel, data, v.p, v.b
	return nil
}

// addUnnamed counts one class of d's inputs outside the syscall tables,
// per ABI.
func (c *findings) addUnnamed(d sym.Domain, v violation) error {
	w, err := d.Witness()
	if err != nil {
		return err
	}
	data := equiv.DataOf(w)
	arch, nr, name := equiv.Describe(data)
	f := c.unnamed[arch]
	if f != nil {
		f.Classes++
		return nil
	}
	c.unnamed[arch] = &Finding{Arch: arch, Nr: nr, Name: name, Relation: v.rel, Witness: data, Profile: v.p, Baseline: v.b, Classes: 1}
	return nil
}
