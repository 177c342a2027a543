package kafel

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/seccompbench/seccompbench/filters/internal/suggest"
	"github.com/seccompbench/seccompbench/filters/scmp"
)

// maxAlternatives bounds the rules one syscall rule's expression becomes
// (its disjunctive normal form): past it the expression is refused
// rather than compiled into a program nobody would install.
const maxAlternatives = 256

// term is a value of a comparison side: a constant, or the argument arg
// as (args[arg] & mask) | or.
type term struct {
	isConst  bool
	c        uint64
	arg      int
	argName  string
	mask, or uint64
	big      bool // a literal above 2^32-1 took part: Kafel compares 64 bits
}

// lowering turns one syscall rule's expression into scmp conditions.
type lowering struct {
	args [6]sysArg
}

func (lw *lowering) errAt(e *expr, format string, a ...any) error {
	return &posError{e.line, e.col, fmt.Sprintf(format, a...)}
}

// value evaluates a value expression to a term.
func (lw *lowering) value(e *expr) (term, error) {
	switch e.op {
	case eNum:
		return term{isConst: true, c: e.num, big: e.num > 0xffffffff}, nil
	case eIdent:
		for i, a := range lw.args {
			if a.name != "" && a.name == e.name {
				return term{arg: i, argName: a.name, mask: ^uint64(0)}, nil
			}
		}
		var names []string
		for _, a := range lw.args {
			if a.name != "" {
				names = append(names, a.name)
			}
		}
		return term{}, lw.errAt(e, "Undefined identifier `%s' (the syscall's arguments: %v; declare others as name(a, b, ...))", e.name, names)
	case eBitAnd, eBitOr:
		l, err := lw.value(e.l)
		if err != nil {
			return l, err
		}
		r, err := lw.value(e.r)
		if err != nil {
			return r, err
		}
		if !l.isConst && !r.isConst {
			return term{}, lw.errAt(e, "argument `%s' combined with argument `%s': this reader takes bit operations of an argument with constants only", l.argName, r.argName)
		}
		if l.isConst && r.isConst {
			v := l.c & r.c
			if e.op == eBitOr {
				v = l.c | r.c
			}
			return term{isConst: true, c: v, big: v > 0xffffffff}, nil
		}
		if l.isConst {
			l, r = r, l
		}
		k := r.c
		l.big = l.big || r.big
		if e.op == eBitAnd {
			l.mask, l.or = l.mask&k, l.or&k
		} else {
			l.mask, l.or = l.mask&^k, l.or|k
		}
		return l, nil
	}
	return term{}, lw.errAt(e, "a boolean expression where a value is expected")
}

// dnf is a disjunction of conjunctions of conditions: nil is false, a
// list holding an empty conjunction is true.
type dnf [][]scmp.Cond

var (
	dnfTrue  = dnf{{}}
	dnfFalse = dnf(nil)
)

func and(a, b dnf) (dnf, error) {
	if len(a)*len(b) > maxAlternatives {
		return nil, fmt.Errorf("more than %d alternatives", maxAlternatives)
	}
	var out dnf
	for _, x := range a {
		for _, y := range b {
			out = append(out, append(slices.Clone(x), y...))
		}
	}
	return out, nil
}

func or(a, b dnf) (dnf, error) {
	if len(a)+len(b) > maxAlternatives {
		return nil, fmt.Errorf("more than %d alternatives", maxAlternatives)
	}
	return append(slices.Clone(a), b...), nil
}

// lower returns the disjunctive normal form of e, negated when neg.
func (lw *lowering) lower(e *expr, neg bool) (dnf, error) {
	switch e.op {
	case eNot:
		return lw.lower(e.l, !neg)
	case eAnd, eOr:
		l, err := lw.lower(e.l, neg)
		if err != nil {
			return nil, err
		}
		r, err := lw.lower(e.r, neg)
		if err != nil {
			return nil, err
		}
		var out dnf
		if (e.op == eAnd) != neg {
			out, err = and(l, r)
		} else {
			out, err = or(l, r)
		}
		if err != nil {
			return nil, lw.errAt(e, "expression too large for the rule model: %v", err)
		}
		return out, nil
	case eEQ, eNE, eLT, eLE, eGT, eGE:
		return lw.compare(e, neg)
	}
	return nil, lw.errAt(e, "a value where a comparison is expected")
}

// negOp is the comparison that holds exactly when op does not.
var negOp = map[exprOp]exprOp{eEQ: eNE, eNE: eEQ, eLT: eGE, eGE: eLT, eLE: eGT, eGT: eLE}

// swapOp is op with its operands swapped.
var swapOp = map[exprOp]exprOp{eEQ: eEQ, eNE: eNE, eLT: eGT, eGT: eLT, eLE: eGE, eGE: eLE}

var scmpOp = map[exprOp]scmp.Op{eEQ: scmp.EQ, eNE: scmp.NE, eLT: scmp.LT, eLE: scmp.LE, eGT: scmp.GT, eGE: scmp.GE}

func truth(b bool) dnf {
	if b {
		return dnfTrue
	}
	return dnfFalse
}

// compare lowers one comparison (negated when neg) as Kafel's codegen.c
// evaluates it: unsigned; on the low 32 bits only when every argument in
// it is declared 4 bytes wide and no literal exceeds 32 bits
// (is_64bit), else on all 64.
func (lw *lowering) compare(e *expr, neg bool) (dnf, error) {
	op := e.op
	if neg {
		op = negOp[op]
	}
	l, err := lw.value(e.l)
	if err != nil {
		return nil, err
	}
	r, err := lw.value(e.r)
	if err != nil {
		return nil, err
	}
	switch {
	case l.isConst && r.isConst:
		return truth(evalOp(op, l.c, r.c)), nil
	case !l.isConst && !r.isConst:
		return nil, lw.errAt(e, "argument `%s' compared with argument `%s': Kafel compiles argument-against-argument comparisons, but the rule model here (libseccomp's) compares an argument with a constant only; rewrite the rule against constants", l.argName, r.argName)
	case l.isConst:
		l, r, op = r, l, swapOp[op]
	}
	v, c := l, r.c
	wide := lw.args[v.arg].size == 8 || v.big || r.big
	width := ^uint64(0)
	if !wide {
		width = 0xffffffff
	}
	m, o := v.mask&width, v.or&width
	if m == width && o == 0 {
		// A plain argument: the comparison as it is, on the low word
		// only for a 4-byte one.
		return dnf{{{Arg: v.arg, Op: scmpOp[op], Datum: c, Low32: !wide}}}, nil
	}
	// (arg & m) | o against c, on the chosen width.
	eq := func() dnf {
		if c&o != o || c&^(m|o) != 0 {
			return dnfFalse
		}
		if m == 0 {
			return dnfTrue
		}
		return dnf{{{Arg: v.arg, Op: scmp.MaskedEQ, Mask: m, Datum: c & m}}}
	}
	ne := func() dnf {
		if c&o != o || c&^(m|o) != 0 {
			return dnfTrue
		}
		// Some bit of the mask differs from c's: one masked test per
		// bit.
		var out dnf
		for b := m; b != 0; b &= b - 1 {
			bit := uint64(1) << bits.TrailingZeros64(b)
			out = append(out, []scmp.Cond{{Arg: v.arg, Op: scmp.MaskedEQ, Mask: bit, Datum: bit &^ c}})
		}
		return out
	}
	switch {
	case op == eEQ:
		return eq(), nil
	case op == eNE:
		return ne(), nil
	case o == 0 && c == 0 && (op == eGT):
		return ne(), nil
	case o == 0 && (op == eLE && c == 0 || op == eLT && c == 1):
		c = 0
		return eq(), nil
	case o == 0 && c == 0 && op == eGE:
		return dnfTrue, nil
	case o == 0 && c == 0 && op == eLT:
		return dnfFalse, nil
	}
	return nil, lw.errAt(e, "ordering comparison of a masked argument (`%s' & %#x): the rule model here tests masked arguments for equality only", v.argName, m)
}

func evalOp(op exprOp, a, b uint64) bool {
	switch op {
	case eEQ:
		return a == b
	case eNE:
		return a != b
	case eLT:
		return a < b
	case eLE:
		return a <= b
	case eGT:
		return a > b
	}
	return a >= b
}

// customKey is the scmp table name of a syscall given by number.
func customKey(nr uint64) string { return fmt.Sprintf("SYSCALL[%d]", uint32(nr)) }

// Rules returns f's main policy as first-match-wins scmp rules for the
// architecture of table t, with the syscall table they name (Kafel's
// names and SYSCALL[n] keys). Errors are *posError values: an unknown
// syscall or argument, an argument compared with an argument, an
// expression the rule model cannot hold.
func (f *File) rules(t *archTable) ([]scmp.Rule, map[string]int, error) {
	sys := t.syscalls()
	names := map[string]int{}
	for n, d := range sys {
		names[n] = int(d.nr)
	}
	// Kafel checks every policy's syscalls, used or not
	// (validate_references).
	for _, pol := range append([]*policy{f.main}, f.policies...) {
		for _, en := range pol.entries {
			for _, r := range en.rules {
				if r.name == "" || !guarded(r, t.name) {
					continue
				}
				if _, ok := sys[r.name]; !ok {
					msg := fmt.Sprintf("Undefined identifier `%s': no such syscall in Kafel's %s table", r.name, t.name)
					if _, ok := sys["new"+r.name]; ok {
						// Kafel names the kernel's sys_newfstat,
						// sys_newstat, ... after their entry points.
						msg += fmt.Sprintf(" (Kafel calls it new%s)", r.name)
					} else if s := suggest.Closest(r.name, sys, 3); len(s) > 0 {
						msg += fmt.Sprintf(" (did you mean %v?)", s)
					}
					return nil, nil, &posError{r.line, r.col, msg}
				}
			}
		}
	}
	var out []scmp.Rule
	used := map[*policy]bool{}
	var walk func(p *policy) error
	walk = func(p *policy) error {
		for _, en := range p.entries {
			if en.use != nil {
				// A policy used a second time adds nothing
				// (range_rules.c: add_policy_rules).
				if !used[en.use] {
					used[en.use] = true
					if err := walk(en.use); err != nil {
						return err
					}
				}
				continue
			}
			for _, r := range en.rules {
				if !guarded(r, t.name) {
					continue
				}
				rs, err := lowerRule(r, en.action, sys, names)
				if err != nil {
					return err
				}
				out = append(out, rs...)
			}
		}
		return nil
	}
	if err := walk(f.main); err != nil {
		return nil, nil, err
	}
	return out, names, nil
}

func guarded(r filterRule, arch string) bool { return r.on == nil || slices.Contains(r.on, arch) }

// lowerRule turns one syscall rule into scmp rules of its action, one
// per alternative of its expression, in order.
func lowerRule(r filterRule, action uint32, sys map[string]*sysDesc, names map[string]int) ([]scmp.Rule, error) {
	key := r.name
	lw := &lowering{}
	if key == "" {
		key = customKey(r.nr)
		names[key] = int(uint32(r.nr))
	} else {
		lw.args = sys[key].args
	}
	if r.argsSet {
		lw.args = [6]sysArg{}
		for i, a := range r.args {
			lw.args[i] = sysArg{name: a, size: 8}
		}
	}
	if r.cond == nil {
		return []scmp.Rule{{Syscall: key, Action: action}}, nil
	}
	d, err := lw.lower(r.cond, false)
	if err != nil {
		return nil, err
	}
	var out []scmp.Rule
	for _, conj := range d {
		out = append(out, scmp.Rule{Syscall: key, Action: action, Conds: conj})
		if len(conj) == 0 {
			break // always true: what follows is never reached
		}
	}
	return out, nil
}
