package kafel

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

// tokKind is the kind of a lexical token.
type tokKind int

const (
	tEOF tokKind = iota
	tIdent
	tNum
	tPunct // text holds the operator or bracket
)

// token is one lexical token with its 1-based position (columns count
// bytes, a tab is one column, as Kafel's flex lexer counts them).
type token struct {
	kind      tokKind
	text      string
	num       uint64
	line, col int
}

// keywords are Kafel's reserved words (google/kafel src/lexer.l); no
// identifier may be one. KILL_THREAD is KILL.
var keywords = map[string]bool{
	"SYSCALL": true, "ALLOW": true, "LOG": true, "USER_NOTIF": true, "ERRNO": true,
	"KILL_PROCESS": true, "KILL_THREAD": true, "KILL": true, "DENY": true, "TRAP": true,
	"TRACE": true, "USE": true, "POLICY": true, "DEFAULT": true, "ON": true, "define": true,
}

// posError is an error at a position of the text being lexed or parsed.
type posError struct {
	line, col int
	msg       string
}

func (e *posError) Error() string { return fmt.Sprintf("%d:%d: %s", e.line, e.col, e.msg) }

// MaxNesting is the deepest nesting of brackets ("(", "{", "[") a
// policy may have: deeper is refused at the bracket that passes it.
// Kafel's Bison parser stops at its stack limit (YYMAXDEPTH, 10000 by
// default: "memory exhausted"); this reader stops earlier, at 1000,
// which no real policy comes near.
const MaxNesting = 1000

// lex splits src into tokens as Kafel's lexer does: "//" and "/* */"
// comments; numbers in decimal (a leading "-" on a nonzero decimal is
// part of it, as its two's complement in 64 bits), hexadecimal "0x",
// octal "0NNN" and binary "0b"; identifiers [A-Za-z][A-Za-z0-9_]*; the
// operators == != <= < >= > || && | & ! and the brackets. "#include"
// is refused: nsjail gives Kafel no include search path
// (kafel_add_include_search_path), so Kafel cannot resolve any.
func lex(src string) ([]token, error) {
	var toks []token
	depth := 0
	line, col := 1, 1
	i := 0
	adv := func(n int) {
		for k := 0; k < n; k++ {
			if src[i+k] == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
		}
		i += n
	}
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			adv(1)
			continue
		case strings.HasPrefix(src[i:], "//"):
			n := strings.IndexByte(src[i:], '\n')
			if n < 0 {
				n = len(src) - i
			}
			adv(n)
			continue
		case strings.HasPrefix(src[i:], "/*"):
			l, cl := line, col
			n := strings.Index(src[i+2:], "*/")
			if n < 0 {
				return nil, &posError{l, cl, "unterminated comment"}
			}
			adv(n + 4)
			continue
		case strings.HasPrefix(src[i:], "#include"):
			rest := src[i+len("#include"):]
			if e := strings.IndexAny(rest, "\n;"); e >= 0 {
				rest = rest[:e]
			}
			return nil, &posError{line, col, fmt.Sprintf("#include %s: no include search path: nsjail gives Kafel none (it never calls kafel_add_include_search_path), so Kafel refuses every #include; paste the included policy in place", strings.TrimSpace(rest))}
		}
		start, l, cl := i, line, col
		switch {
		case isDigit(c) || (c == '-' && i+1 < len(src) && src[i+1] >= '1' && src[i+1] <= '9'):
			j := i + 1
			for j < len(src) && (isAlnum(src[j])) {
				j++
			}
			text := src[start:j]
			v, err := parseNumber(text)
			if err != nil {
				return nil, &posError{l, cl, err.Error()}
			}
			toks = append(toks, token{kind: tNum, text: text, num: v, line: l, col: cl})
			adv(j - i)
		case isAlpha(c):
			j := i + 1
			for j < len(src) && (isAlnum(src[j]) || src[j] == '_') {
				j++
			}
			toks = append(toks, token{kind: tIdent, text: src[start:j], line: l, col: cl})
			adv(j - i)
		default:
			op, err := punct(src[i:], l, cl, &depth)
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{kind: tPunct, text: op, line: l, col: cl})
			adv(len(op))
		}
	}
	return append(toks, token{kind: tEOF, line: line, col: col}), nil
}

// punct reads the operator or bracket that rest starts with, at line
// l, column c; depth is the bracket nesting, kept below MaxNesting.
func punct(rest string, l, c int, depth *int) (string, error) {
	op := rest[:1]
	for _, two := range []string{"==", "!=", "<=", ">=", "||", "&&"} {
		if strings.HasPrefix(rest, two) {
			op = two
		}
	}
	if len(op) == 1 && !strings.Contains("<>|&[](){},!#", op) {
		return "", &posError{l, c, fmt.Sprintf("unexpected char `%c'", rest[0])}
	}
	switch op {
	case "(", "{", "[":
		if *depth++; *depth > MaxNesting {
			return "", &posError{l, c, fmt.Sprintf("brackets nested deeper than %d", MaxNesting)}
		}
	case ")", "}", "]":
		*depth--
	}
	return op, nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isAlnum(c byte) bool { return isDigit(c) || isAlpha(c) }

// parseNumber reads a Kafel number literal: 0x hexadecimal, 0b binary,
// 0NNN octal, decimal; "-N" is the 64-bit two's complement of N
// (strtoull's reading of a negative decimal).
func parseNumber(text string) (uint64, error) {
	neg := strings.HasPrefix(text, "-")
	t := strings.TrimPrefix(text, "-")
	base, digits := 10, t
	switch {
	case neg:
	case strings.HasPrefix(t, "0x") || strings.HasPrefix(t, "0X"):
		base, digits = 16, t[2:]
	case strings.HasPrefix(t, "0b"):
		base, digits = 2, t[2:]
	case len(t) > 1 && t[0] == '0':
		base, digits = 8, t[1:]
	}
	v, err := strconv.ParseUint(digits, base, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return 0, fmt.Errorf("number `%s' out of range", text)
		}
		return 0, fmt.Errorf("bad number `%s' (base %d)", text, base)
	}
	if neg {
		v, _ = bits.Sub64(0, v, 0)
	}
	return v, nil
}
