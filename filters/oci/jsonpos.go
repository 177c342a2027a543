package oci

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// jsonWalk reads the first JSON value of data token by token and calls fn
// for every object key (isKey true) and every value that starts (scalars,
// and objects and arrays at their opening bracket; numbers come as
// json.Number). path locates the item:
// object keys as strings and array indexes as ints, the key itself last
// for a key; off is the byte offset in data where the item starts. fn
// returns false to stop the walk. jsonWalk returns nil when the first value
// ended or fn stopped it, else the error that broke the walk off: a
// *json.SyntaxError, or io.EOF / io.ErrUnexpectedEOF for input that ends
// inside the value. Unlike json.Unmarshal it reports everything up to the
// error, which is what format detection and error locations need.
func jsonWalk(data []byte, fn func(path []any, isKey bool, tok json.Token, off int) bool) error {
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

// jsonValueOffset returns the byte offset in data where the value at path
// starts (the last one when keys repeat, as json.Unmarshal keeps the last),
// or -1 if data has none there before its first error.
func jsonValueOffset(data []byte, path ...any) int {
	found := -1
	jsonWalk(data, func(p []any, isKey bool, _ json.Token, off int) bool {
		if !isKey && slices.Equal(p, path) {
			found = off
		}
		return true
	})
	return found
}
