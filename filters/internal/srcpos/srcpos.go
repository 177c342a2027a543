// Package srcpos is the one position-tracking source reader of the format
// packages: it parses JSON (encoding/json's tokenizer) and YAML
// (goccy/go-yaml's AST) into one small tree whose every value and key
// carries its 1-based line and column, and walks JSON that may be broken
// part-way. The format packages (filters/beats, filters/kubernetes,
// filters/firecracker, filters/oci) decode their schemas from it and turn
// its errors into their own *filters.SourceError, so every error names
// the file, line and column.
package srcpos

import (
	"fmt"
)

// Pos is a 1-based line and column in a source (the column counts bytes;
// 0 means unknown). File, when set, names a source other than the one
// being read (an included file, a base profile).
type Pos struct {
	File      string
	Line, Col int
}

// Kind is what a Node holds.
type Kind int

// The kinds of values.
const (
	Null Kind = iota
	Map       // a JSON object or YAML mapping
	Seq       // a JSON array or YAML sequence
	Str       // a string
	Num       // a number (JSON) or integer (YAML)
	Bool      // true or false
)

// JSONName names the kind in JSON's words: "object", "array", "string",
// "number", "bool", "null".
func (k Kind) JSONName() string {
	return [...]string{"null", "object", "array", "string", "number", "bool"}[k]
}

// YAMLName names the kind in YAML's words: "map", "seq", "str", "int",
// "bool", "null".
func (k Kind) YAMLName() string {
	return [...]string{"null", "map", "seq", "str", "int", "bool"}[k]
}

// Node is a value with its position.
type Node struct {
	Kind Kind
	At   Pos
	// Str is a scalar as written: the string's contents, the number or
	// bool's text.
	Str string
	// Keys and KeyAt are a map's keys, in order, and where each is
	// written; Vals are the map's values (parallel to Keys) or the
	// sequence's items.
	Keys  []string
	KeyAt []Pos
	Vals  []*Node
}

// Get returns the value of key in a map node, or nil.
func (n *Node) Get(key string) *Node {
	for i, k := range n.Keys {
		if k == key {
			return n.Vals[i]
		}
	}
	return nil
}

// Error is a problem at one place of the source; the format packages wrap
// it into their *filters.SourceError with the file name.
type Error struct {
	At  Pos
	Msg string
}

// Error returns "line:col: msg".
func (e *Error) Error() string { return fmt.Sprintf("%d:%d: %s", e.At.Line, e.At.Col, e.Msg) }

func errorf(at Pos, format string, args ...any) *Error {
	return &Error{At: at, Msg: fmt.Sprintf(format, args...)}
}
