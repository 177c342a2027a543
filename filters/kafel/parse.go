package kafel

import (
	"fmt"
	"strings"

	"github.com/seccompbench/seccompbench/filters"
)

// exprOp is the operator of an expression node.
type exprOp int

const (
	eNum exprOp = iota
	eIdent
	eAnd
	eOr
	eNot
	eBitAnd
	eBitOr
	eEQ
	eNE
	eLT
	eLE
	eGT
	eGE
)

// expr is a node of a rule's boolean expression as written.
type expr struct {
	op        exprOp
	l, r      *expr // binary operands; l for eNot
	num       uint64
	name      string // eIdent
	line, col int
}

// filterRule is one syscall of an action block: "name", "name(a, b)",
// "SYSCALL[n]", with an optional ON guard and expression.
type filterRule struct {
	name      string // "" for a number (custom syscall)
	nr        uint64 // custom syscall
	args      []string
	argsSet   bool     // an argument list was declared
	on        []string // canonical arch names of the ON guard; nil: all
	cond      *expr    // nil: unconditional
	line, col int
}

// entry is one policy statement: USE of a policy or an action block.
type entry struct {
	use    *policy
	action uint32
	rules  []filterRule
}

// policy is a named POLICY (or the implicit top-level one).
type policy struct {
	name    string
	entries []entry
}

// File is a parsed Kafel policy: its top-level statements, DEFAULT and
// #define constants.
type File struct {
	main     *policy
	policies []*policy
	byName   map[string]*policy
	consts   map[string]uint64
	// Default is the DEFAULT action (a SECCOMP_RET_* value); KILL
	// (SECCOMP_RET_KILL_THREAD) when the policy has none (google/kafel
	// README: "the default action will be KILL").
	Default uint32
}

// archNames maps Kafel's ON names to canonical ones (google/kafel
// src/syscall.c: arch_name_map).
var archNames = map[string]string{
	"arm": "arm", "aarch64": "aarch64", "arm64": "aarch64", "x86_64": "x86_64", "amd64": "x86_64",
	"x86": "i386", "i386": "i386", "mips": "mips", "mipso32": "mips", "mips64": "mips64",
	"riscv64": "riscv64", "rv64": "riscv64", "m68k": "m68k",
}

// parser is a recursive-descent parser over Kafel's grammar (google/kafel
// src/parser.y).
type parser struct {
	toks []token
	pos  int
	f    *File
	// values memoizes operand by token index: a '(' may open a value or
	// a boolean expression, and primary tries the value reading first;
	// without the memo, n nested parentheses would be re-read n times
	// (quadratic in the depth).
	values map[int]valueMemo
	// open are the token indexes of the operands being read, innermost
	// last; when a tried comparison fails, those it opened failed.
	open []int
}

// valueMemo is the outcome of operand at one token index: the value and
// the index after it, or the error it failed with.
type valueMemo struct {
	e   *expr
	end int
	err *posError
}

// fail is how parse errors unwind; Parse recovers them.
type fail struct{ err *posError }

func (p *parser) peek() token { return p.toks[p.pos] }
func (p *parser) next() token { t := p.toks[p.pos]; p.pos++; return t }

func (p *parser) errAt(t token, format string, a ...any) {
	panic(fail{&posError{t.line, t.col, fmt.Sprintf(format, a...)}})
}

func (p *parser) is(text string) bool {
	t := p.peek()
	return (t.kind == tPunct || t.kind == tIdent) && t.text == text
}

func (p *parser) expect(text string) token {
	t := p.next()
	if (t.kind != tPunct && t.kind != tIdent) || t.text != text {
		p.errAt(t, "syntax error, unexpected %s, expecting %s", describe(t), text)
	}
	return t
}

func describe(t token) string {
	switch t.kind {
	case tEOF:
		return "end of file"
	case tNum:
		return "number " + t.text
	case tIdent:
		if keywords[t.text] {
			return t.text
		}
		return "identifier " + t.text
	}
	return "`" + t.text + "'"
}

func (p *parser) ident() token {
	t := p.next()
	if t.kind != tIdent || keywords[t.text] {
		p.errAt(t, "syntax error, unexpected %s, expecting identifier", describe(t))
	}
	return t
}

func (p *parser) number() token {
	t := p.next()
	if t.kind != tNum {
		p.errAt(t, "syntax error, unexpected %s, expecting number", describe(t))
	}
	return t
}

// Parse reads a Kafel policy. Errors are "LINE:COL: message" values
// (*posError) as Kafel words them; Load wraps them with the file name.
func Parse(src string) (f *File, err error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks, f: &File{byName: map[string]*policy{}, consts: map[string]uint64{}}}
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(fail)
			if !ok {
				panic(r)
			}
			f, err = nil, e.err
		}
	}()
	p.program()
	return p.f, nil
}

func (p *parser) program() {
	f := p.f
	f.main = &policy{name: "@main"}
	haveDefault := false
	for p.peek().kind != tEOF {
		switch {
		case p.is("#"):
			p.define()
		case p.is("POLICY"):
			t := p.next()
			name := p.ident()
			if f.byName[name.text] != nil {
				p.errAt(t, "Redefinition of policy `%s'", name.text)
			}
			pol := &policy{name: name.text}
			p.expect("{")
			if !p.is("}") {
				pol.entries = p.statements()
			}
			p.expect("}")
			f.byName[pol.name] = pol
			f.policies = append(f.policies, pol)
		case p.is("DEFAULT"):
			t := p.next()
			if haveDefault {
				p.errAt(t, "Redefinition of default action")
			}
			f.Default, haveDefault = p.action(), true
		default:
			f.main.entries = append(f.main.entries, p.statements()...)
		}
	}
	if !haveDefault {
		f.Default = uint32(filters.ActionKillThread)
	}
}

func (p *parser) define() {
	t := p.expect("#")
	p.expect("define")
	name := p.ident()
	v := p.number()
	if old, ok := p.f.consts[name.text]; ok && old != v.num {
		p.errAt(t, "Redefinition of constant `%s' with different value (was: %d is: %d)", name.text, old, v.num)
	}
	p.f.consts[name.text] = v.num
}

func (p *parser) statements() []entry {
	es := []entry{p.statement()}
	for p.is(",") {
		p.next()
		es = append(es, p.statement())
	}
	return es
}

func (p *parser) statement() entry {
	if p.is("USE") {
		p.next()
		name := p.ident()
		used := p.f.byName[name.text]
		if used == nil {
			p.errAt(name, "Undefined policy `%s'", name.text)
		}
		return entry{use: used}
	}
	e := entry{action: p.action()}
	p.expect("{")
	if !p.is("}") {
		e.rules = append(e.rules, p.filter())
		for p.is(",") {
			p.next()
			e.rules = append(e.rules, p.filter())
		}
	}
	p.expect("}")
	return e
}

// action reads an action; the values are SECCOMP_RET_* as Kafel's
// codegen.c maps them (KILL, KILL_THREAD and DENY are
// SECCOMP_RET_KILL_THREAD).
func (p *parser) action() uint32 {
	t := p.next()
	if t.kind == tIdent {
		switch t.text {
		case "ALLOW":
			return uint32(filters.ActionAllow)
		case "LOG":
			return uint32(filters.ActionLog)
		case "KILL", "KILL_THREAD", "DENY":
			return uint32(filters.ActionKillThread)
		case "KILL_PROCESS":
			return uint32(filters.ActionKillProcess)
		case "USER_NOTIF":
			return uint32(filters.ActionUserNotif)
		case "ERRNO", "TRAP", "TRACE":
			p.expect("(")
			n := p.number()
			if n.num > 0xffff {
				p.errAt(n, "%s value %d out of range (0-65535)", strings.ToUpper(t.text[:1])+strings.ToLower(t.text[1:]), n.num)
			}
			p.expect(")")
			base := map[string]filters.Action{"ERRNO": filters.ActionErrno, "TRAP": filters.ActionTrap, "TRACE": filters.ActionTrace}[t.text]
			return uint32(base) | uint32(n.num)
		}
	}
	p.errAt(t, "syntax error, unexpected %s, expecting an action (ALLOW, LOG, KILL, KILL_PROCESS, USER_NOTIF, ERRNO(n), TRAP(n), TRACE(n)) or a policy statement", describe(t))
	return 0
}

func (p *parser) filter() filterRule {
	t := p.peek()
	r := filterRule{line: t.line, col: t.col}
	if p.is("SYSCALL") {
		p.next()
		p.expect("[")
		r.nr = p.number().num
		p.expect("]")
	} else {
		id := p.ident()
		if v, ok := p.f.consts[id.text]; ok {
			r.nr = v
		} else {
			r.name = id.text
		}
	}
	if p.is("(") {
		p.next()
		r.argsSet = true
		if !p.is(")") {
			for {
				a := p.ident()
				for _, have := range r.args {
					if have == a.text {
						p.errAt(a, "Redefinition of argument `%s'", a.text)
					}
				}
				if len(r.args) == 6 {
					p.errAt(a, "Too many arguments defined for syscall")
				}
				r.args = append(r.args, a.text)
				if !p.is(",") {
					break
				}
				p.next()
			}
		}
		p.expect(")")
	}
	if p.is("ON") {
		p.next()
		arch := func() {
			a := p.ident()
			c, ok := archNames[strings.ToLower(a.text)]
			if !ok {
				p.errAt(a, "Unknown architecture `%s'", a.text)
			}
			for _, h := range r.on {
				if h == c {
					p.errAt(a, "Duplicate architecture `%s'", a.text)
				}
			}
			r.on = append(r.on, c)
		}
		if p.is("{") {
			p.next()
			arch()
			for p.is(",") {
				p.next()
				arch()
			}
			p.expect("}")
		} else {
			arch()
		}
	}
	if p.is("{") {
		p.next()
		if !p.is("}") {
			r.cond = p.boolExpr()
		}
		p.expect("}")
	}
	return r
}

// boolExpr: or (',' or)*; a comma is || at the lowest precedence.
func (p *parser) boolExpr() *expr {
	e := p.orExpr()
	for p.is(",") {
		t := p.next()
		e = &expr{op: eOr, l: e, r: p.orExpr(), line: t.line, col: t.col}
	}
	return e
}

func (p *parser) orExpr() *expr {
	e := p.andExpr()
	for p.is("||") {
		t := p.next()
		e = &expr{op: eOr, l: e, r: p.andExpr(), line: t.line, col: t.col}
	}
	return e
}

func (p *parser) andExpr() *expr {
	e := p.primary()
	for p.is("&&") {
		t := p.next()
		e = &expr{op: eAnd, l: e, r: p.primary(), line: t.line, col: t.col}
	}
	return e
}

var cmpOps = map[string]exprOp{"==": eEQ, "!=": eNE, "<": eLT, "<=": eLE, ">": eGT, ">=": eGE}

// primary: '(' boolExpr ')' | '!' primary | bitOr CMP bitOr. A '(' may
// open either a boolean or a value expression: the comparison is tried
// first, as Bison's parser settles it.
func (p *parser) primary() *expr {
	if p.is("!") {
		// A run of '!' is read in a loop, so its length costs no stack.
		var nots []token
		for p.is("!") {
			nots = append(nots, p.next())
		}
		e := p.primary()
		for i := len(nots) - 1; i >= 0; i-- {
			e = &expr{op: eNot, l: e, line: nots[i].line, col: nots[i].col}
		}
		return e
	}
	if p.is("(") {
		save := p.pos
		if e, ok := p.tryComparison(); ok {
			return e
		}
		p.pos = save
		p.next()
		e := p.boolExpr()
		p.expect(")")
		return e
	}
	return p.comparison()
}

// tryComparison parses a comparison, reporting false instead of failing.
func (p *parser) tryComparison() (e *expr, ok bool) {
	open := len(p.open)
	defer func() {
		if r := recover(); r != nil {
			f, isFail := r.(fail)
			if !isFail {
				panic(r)
			}
			for _, start := range p.open[open:] {
				p.values[start] = valueMemo{err: f.err}
			}
			p.open = p.open[:open]
			e, ok = nil, false
		}
	}()
	return p.comparison(), true
}

func (p *parser) comparison() *expr {
	l := p.bitOr()
	t := p.next()
	op, ok := cmpOps[t.text]
	if t.kind != tPunct || !ok {
		p.errAt(t, "syntax error, unexpected %s, expecting a comparison (==, !=, <, <=, >, >=)", describe(t))
	}
	return &expr{op: op, l: l, r: p.bitOr(), line: l.line, col: l.col}
}

func (p *parser) bitOr() *expr {
	e := p.bitAnd()
	for p.is("|") {
		t := p.next()
		e = &expr{op: eBitOr, l: e, r: p.bitAnd(), line: t.line, col: t.col}
	}
	return e
}

func (p *parser) bitAnd() *expr {
	e := p.operand()
	for p.is("&") {
		t := p.next()
		e = &expr{op: eBitAnd, l: e, r: p.operand(), line: t.line, col: t.col}
	}
	return e
}

// operand reads a number, a constant, an argument or a parenthesized
// value expression. Its outcome depends only on where it starts, so it
// is memoized (see parser.values).
func (p *parser) operand() *expr {
	start := p.pos
	if m, ok := p.values[start]; ok {
		if m.err != nil {
			panic(fail{m.err})
		}
		p.pos = m.end
		return m.e
	}
	if p.values == nil {
		p.values = map[int]valueMemo{}
	}
	p.open = append(p.open, start)
	e := p.readOperand()
	p.open = p.open[:len(p.open)-1]
	p.values[start] = valueMemo{e: e, end: p.pos}
	return e
}

func (p *parser) readOperand() *expr {
	t := p.peek()
	switch {
	case t.kind == tNum:
		p.next()
		return &expr{op: eNum, num: t.num, line: t.line, col: t.col}
	case p.is("("):
		p.next()
		e := p.bitOr()
		p.expect(")")
		return e
	case t.kind == tIdent && !keywords[t.text]:
		p.next()
		if v, ok := p.f.consts[t.text]; ok {
			return &expr{op: eNum, num: v, line: t.line, col: t.col}
		}
		return &expr{op: eIdent, name: t.text, line: t.line, col: t.col}
	}
	p.errAt(t, "syntax error, unexpected %s, expecting a number, a constant or an argument", describe(t))
	return nil
}
