package firecracker

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/seccompbench/seccompbench/filters/ocigen"
)

// value is a JSON value with its position.
type value struct {
	kind string // "object", "array", "string", "number", "bool", "null"
	at   ocigen.Pos
	str  string // string contents, or the number / bool as written
	keys []string
	kat  []ocigen.Pos
	vals []*value
}

func (v *value) get(key string) *value {
	for i, k := range v.keys {
		if k == key {
			return v.vals[i]
		}
	}
	return nil
}

// maxDepth bounds nesting; a Firecracker filter nests 5 levels.
const maxDepth = 64

// parseJSON decodes data into a value tree, with the position of every
// value, or returns a *filters.SourceError wrapping ErrBadFilter at the
// syntax error.
func parseJSON(file string, data []byte) (*value, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	pos := func(off int) ocigen.Pos {
		for off < len(data) && strings.IndexByte(" \t\r\n,:", data[off]) >= 0 {
			off++
		}
		off = min(off, len(data))
		line := 1 + bytes.Count(data[:off], []byte{'\n'})
		return ocigen.Pos{Line: line, Col: off - bytes.LastIndexByte(data[:off], '\n')}
	}
	fail := func(err error) error {
		var se *json.SyntaxError
		at := pos(int(dec.InputOffset()))
		if errors.As(err, &se) {
			at = pos(max(int(se.Offset)-1, 0))
		}
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return ocigen.Errorf(file, at, ErrBadFilter, "parse JSON: %v", err)
	}
	var read func(depth int) (*value, error)
	read = func(depth int) (*value, error) {
		at := pos(int(dec.InputOffset()))
		tok, err := dec.Token()
		if err != nil {
			return nil, fail(err)
		}
		switch t := tok.(type) {
		case json.Delim:
			if depth >= maxDepth {
				return nil, ocigen.Errorf(file, at, ErrBadFilter, "nests deeper than %d levels", maxDepth)
			}
			if t == '{' {
				v := &value{kind: "object", at: at}
				for dec.More() {
					kat := pos(int(dec.InputOffset()))
					k, err := dec.Token()
					if err != nil {
						return nil, fail(err)
					}
					key := k.(string)
					if v.get(key) != nil {
						return nil, ocigen.Errorf(file, kat, ErrBadFilter, "duplicate key %q", key)
					}
					c, err := read(depth + 1)
					if err != nil {
						return nil, err
					}
					v.keys, v.kat, v.vals = append(v.keys, key), append(v.kat, kat), append(v.vals, c)
				}
				if _, err := dec.Token(); err != nil {
					return nil, fail(err)
				}
				return v, nil
			}
			v := &value{kind: "array", at: at}
			for dec.More() {
				c, err := read(depth + 1)
				if err != nil {
					return nil, err
				}
				v.vals = append(v.vals, c)
			}
			if _, err := dec.Token(); err != nil {
				return nil, fail(err)
			}
			return v, nil
		case string:
			return &value{kind: "string", at: at, str: t}, nil
		case json.Number:
			return &value{kind: "number", at: at, str: t.String()}, nil
		case bool:
			if t {
				return &value{kind: "bool", at: at, str: "true"}, nil
			}
			return &value{kind: "bool", at: at, str: "false"}, nil
		}
		return &value{kind: "null", at: at}, nil
	}
	v, err := read(0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, ocigen.Errorf(file, pos(int(dec.InputOffset())), ErrBadFilter, "parse JSON: data after the top-level object")
	}
	return v, nil
}
