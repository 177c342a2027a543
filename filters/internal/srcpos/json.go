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
	lines := filters.NewLines(data)
	pos := func(off int) Pos { return posAfterSeparators(data, lines, off) }
	// Nodes come from slabs of 256: one allocation instead of 256 keeps
	// large inputs' time in the tokenizer.
	var slab []Node
	node := func(n Node) *Node {
		if len(slab) == 0 {
			slab = make([]Node, 256)
		}
		p := &slab[0]
		*p, slab = n, slab[1:]
		return p
	}
	fail := func(err error) error {
		var se *json.SyntaxError
		at := pos(int(dec.InputOffset()))
		if errors.As(err, &se) {
			// The offending byte itself, separators included.
			at = rawPos(lines, min(int(se.Offset), len(data)))
		}
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return errorf(at, "parse JSON: %v", err)
	}
	var read func(depth int) (*Node, error)
	read = func(depth int) (*Node, error) {
		at := pos(int(dec.InputOffset()))
		tok, err := dec.Token()
		if err != nil {
			return nil, fail(err)
		}
		switch t := tok.(type) {
		case json.Delim:
			if depth >= MaxDepth {
				return nil, errorf(at, "nests deeper than %d levels", MaxDepth)
			}
			if t == '{' {
				v := node(Node{Kind: Map, At: at})
				for dec.More() {
					kat := pos(int(dec.InputOffset()))
					k, err := dec.Token()
					if err != nil {
						return nil, fail(err)
					}
					key := k.(string)
					if v.Get(key) != nil {
						return nil, errorf(kat, "duplicate key %q", key)
					}
					c, err := read(depth + 1)
					if err != nil {
						return nil, err
					}
					v.Keys, v.KeyAt, v.Vals = append(v.Keys, key), append(v.KeyAt, kat), append(v.Vals, c)
				}
				if _, err := dec.Token(); err != nil {
					return nil, fail(err)
				}
				return v, nil
			}
			v := node(Node{Kind: Seq, At: at})
			for dec.More() {
				c, err := read(depth + 1)
				if err != nil {
					return nil, err
				}
				v.Vals = append(v.Vals, c)
			}
			if _, err := dec.Token(); err != nil {
				return nil, fail(err)
			}
			return v, nil
		case string:
			return node(Node{Kind: Str, At: at, Str: t}), nil
		case json.Number:
			return node(Node{Kind: Num, At: at, Str: t.String()}), nil
		case bool:
			if t {
				return node(Node{Kind: Bool, At: at, Str: "true"}), nil
			}
			return node(Node{Kind: Bool, At: at, Str: "false"}), nil
		}
		return node(Node{Kind: Null, At: at}), nil
	}
	v, err := read(0)
	if err != nil {
		return nil, err
	}
	end := int(dec.InputOffset())
	if _, err := dec.Token(); err != io.EOF {
		return nil, errorf(pos(end), "parse JSON: data after the top-level value")
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
