package srcpos

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"

	"github.com/seccompbench/seccompbench/filters"
)

// MaxDepth bounds how deep ParseJSON lets values nest; no seccomp format
// nests more than about 6 levels.
const MaxDepth = 64

// ParseJSON decodes one JSON value (the whole of data) into a Node tree
// with the position of every value and key. Errors are *Error values: a
// syntax error at its offset ("parse JSON: ..."), a duplicate key, nesting
// beyond MaxDepth, data after the value.
func ParseJSON(data []byte) (*Node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	p := &jsonParser{data: data, dec: dec, lines: filters.NewLines(data)}
	v, err := p.read(0)
	if err != nil {
		return nil, err
	}
	end := int(dec.InputOffset())
	if _, err := dec.Token(); err != io.EOF {
		return nil, errorf(p.pos(end), "parse JSON: data after the top-level value")
	}
	return v, nil
}

// jsonParser is one ParseJSON: the input, its tokenizer, the line index
// that turns offsets into positions (linear in the input), and a slab of
// free nodes.
type jsonParser struct {
	data  []byte
	dec   *json.Decoder
	lines *filters.Lines
	// slab holds nodes not yet used: one allocation per 256 nodes keeps
	// large inputs' time in the tokenizer.
	slab []Node
}

// pos is the position of the value that starts at or after off.
func (p *jsonParser) pos(off int) Pos { return posAfterSeparators(p.data, p.lines, off) }

// node returns n stored in the slab.
func (p *jsonParser) node(n Node) *Node {
	if len(p.slab) == 0 {
		p.slab = make([]Node, 256)
	}
	x := &p.slab[0]
	*x, p.slab = n, p.slab[1:]
	return x
}

// fail turns the tokenizer's err into an *Error at the offending byte (a
// syntax error) or the decoder's offset; EOF is unexpected there.
func (p *jsonParser) fail(err error) error {
	var se *json.SyntaxError
	at := p.pos(int(p.dec.InputOffset()))
	if errors.As(err, &se) {
		// The offending byte itself, separators included.
		at = rawPos(p.lines, min(int(se.Offset), len(p.data)))
	}
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return errorf(at, "parse JSON: %v", err)
}

// read decodes the next value, depth levels deep.
func (p *jsonParser) read(depth int) (*Node, error) {
	at := p.pos(int(p.dec.InputOffset()))
	tok, err := p.dec.Token()
	if err != nil {
		return nil, p.fail(err)
	}
	switch t := tok.(type) {
	case json.Delim:
		if depth >= MaxDepth {
			return nil, errorf(at, "nests deeper than %d levels", MaxDepth)
		}
		if t == '{' {
			return p.readMap(at, depth)
		}
		return p.readSeq(at, depth)
	case string:
		return p.node(Node{Kind: Str, At: at, Str: t}), nil
	case json.Number:
		return p.node(Node{Kind: Num, At: at, Str: t.String()}), nil
	case bool:
		if t {
			return p.node(Node{Kind: Bool, At: at, Str: "true"}), nil
		}
		return p.node(Node{Kind: Bool, At: at, Str: "false"}), nil
	}
	return p.node(Node{Kind: Null, At: at}), nil
}

// readMap decodes an object's members after its '{' at at, refusing a
// duplicate key, through its '}'.
func (p *jsonParser) readMap(at Pos, depth int) (*Node, error) {
	v := p.node(Node{Kind: Map, At: at})
	for p.dec.More() {
		kat := p.pos(int(p.dec.InputOffset()))
		k, err := p.dec.Token()
		if err != nil {
			return nil, p.fail(err)
		}
		key := k.(string)
		if v.Get(key) != nil {
			return nil, errorf(kat, "duplicate key %q", key)
		}
		c, err := p.read(depth + 1)
		if err != nil {
			return nil, err
		}
		v.Keys, v.KeyAt, v.Vals = append(v.Keys, key), append(v.KeyAt, kat), append(v.Vals, c)
	}
	if _, err := p.dec.Token(); err != nil {
		return nil, p.fail(err)
	}
	return v, nil
}

// readSeq decodes an array's elements after its '[' at at, through its
// ']'.
func (p *jsonParser) readSeq(at Pos, depth int) (*Node, error) {
	v := p.node(Node{Kind: Seq, At: at})
	for p.dec.More() {
		c, err := p.read(depth + 1)
		if err != nil {
			return nil, err
		}
		v.Vals = append(v.Vals, c)
	}
	if _, err := p.dec.Token(); err != nil {
		return nil, p.fail(err)
	}
	return v, nil
}

// rawPos returns the position of byte off.
func rawPos(lines *filters.Lines, off int) Pos {
	line, col := lines.LineCol(off)
	return Pos{Line: line, Col: col}
}

// posAfterSeparators returns the position of the first byte at or after
// off that is no JSON separator (blank, ',' or ':'), where a token starts.
func posAfterSeparators(data []byte, lines *filters.Lines, off int) Pos {
	for off < len(data) && strings.IndexByte(" \t\r\n,:", data[off]) >= 0 {
		off++
	}
	return rawPos(lines, off)
}

// WalkJSON reads the first JSON value of data token by token and calls fn
// for every object key (isKey true) and every value that starts (scalars,
// and objects and arrays at their opening bracket; numbers come as
// json.Number). path locates the item: object keys as strings and array
// indexes as ints, the key itself last for a key; off is the byte offset
// in data where the item starts. fn returns false to stop the walk.
// WalkJSON returns nil when the first value ended or fn stopped it, else
// the error that broke the walk off: a *json.SyntaxError, or io.EOF /
// io.ErrUnexpectedEOF for input that ends inside the value. Unlike
// ParseJSON it reports everything up to the error, which is what format
// detection and the locations of errors found after decoding need.
func WalkJSON(data []byte, fn func(path []any, isKey bool, tok json.Token, off int) bool) error {
	type frame struct {
		obj     bool
		wantKey bool // in an object: the next string is a key
		key     string
		idx     int // in an array: the index of the next value
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var stack []frame
	path := func() []any {
		p := make([]any, len(stack))
		for i, f := range stack {
			if f.obj {
				p[i] = f.key
			} else {
				p[i] = f.idx
			}
		}
		return p
	}
	// done marks the end of a value in the enclosing container.
	done := func() {
		if n := len(stack); n > 0 {
			if stack[n-1].obj {
				stack[n-1].wantKey = true
			} else {
				stack[n-1].idx++
			}
		}
	}
	for {
		before := int(dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		// The token starts after the separators since the last one.
		off := before
		for off < len(data) && strings.IndexByte(" \t\r\n,:", data[off]) >= 0 {
			off++
		}
		n := len(stack)
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			if n == 0 {
				return nil
			}
			stack = stack[:n-1]
			if len(stack) == 0 {
				return nil
			}
			done()
			continue
		}
		if s, ok := tok.(string); ok && n > 0 && stack[n-1].obj && stack[n-1].wantKey {
			stack[n-1].key, stack[n-1].wantKey = s, false
			if !fn(path(), true, tok, off) {
				return nil
			}
			continue
		}
		if !fn(path(), false, tok, off) {
			return nil
		}
		if d, ok := tok.(json.Delim); ok {
			stack = append(stack, frame{obj: d == '{', wantKey: d == '{'})
			continue
		}
		if n == 0 {
			return nil // a scalar at the top level
		}
		done()
	}
}

// JSONValueOffset returns the byte offset in data where the value at path
// starts (the last one when keys repeat, as json.Unmarshal keeps the
// last), or -1 if data has none there before its first error.
func JSONValueOffset(data []byte, path ...any) int {
	found := -1
	WalkJSON(data, func(p []any, isKey bool, _ json.Token, off int) bool {
		if !isKey && slices.Equal(p, path) {
			found = off
		}
		return true
	})
	return found
}
