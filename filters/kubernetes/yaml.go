package kubernetes

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"github.com/seccompbench/seccompbench/filters/ocigen"
)

// node is a YAML value with its position: the small tree the decoder
// walks, built from goccy/go-yaml's AST (which keeps token positions).
type node struct {
	kind string // "map", "seq", "str", "int", "bool", "null"
	at   ocigen.Pos
	str  string // scalar text as written ("str", "int", "bool")
	keys []string
	vals []*node // map values (parallel to keys) or sequence items
	kat  []ocigen.Pos
}

// get returns the value of key in a map node, or nil.
func (n *node) get(key string) *node {
	for i, k := range n.keys {
		if k == key {
			return n.vals[i]
		}
	}
	return nil
}

// maxNesting bounds how deep a profile may nest (flow brackets, or
// indentation in columns / 2): SeccompProfile objects nest 6 levels;
// goccy/go-yaml needs memory quadratic in the depth, so deeper input is
// refused before parsing.
const maxNesting = 64

// checkNesting returns the 1-based line of the first place data nests
// deeper than maxNesting, or 0.
func checkNesting(data []byte) int {
	line, depth, indent, start := 1, 0, 0, true
	var quote byte
	for _, c := range data {
		switch {
		case c == '\n':
			line, indent, start, quote = line+1, 0, true, 0
			continue
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			depth--
		case c == ' ' && start:
			indent++
		}
		if c != ' ' {
			start = false
		}
		if depth > maxNesting || indent > 2*maxNesting {
			return line
		}
	}
	return 0
}

// parseDocs parses data into one node per YAML document (empty documents
// and comment-only ones left out).
func parseDocs(file string, data []byte) (docs []*node, err error) {
	if l := checkNesting(data); l != 0 {
		return nil, ocigen.Errorf(file, ocigen.Pos{Line: l}, ErrBadProfile, "nests deeper than %d levels; a SeccompProfile nests about 6", maxNesting)
	}
	f, err := func() (f *ast.File, err error) {
		defer func() {
			if r := recover(); r != nil {
				f, err = nil, fmt.Errorf("YAML parser panicked: %v", r)
			}
		}()
		return parser.ParseBytes(data, 0)
	}()
	if err != nil {
		var se *yaml.SyntaxError
		at, msg := ocigen.Pos{}, err.Error()
		if errors.As(err, &se) {
			msg = se.Message
			if se.Token != nil && se.Token.Position != nil {
				at = ocigen.Pos{Line: se.Token.Position.Line, Col: se.Token.Position.Column}
			}
		}
		return nil, ocigen.Errorf(file, at, ErrBadProfile, "parse YAML: %s", msg)
	}
	for _, d := range f.Docs {
		if d == nil || d.Body == nil {
			continue
		}
		if _, ok := d.Body.(*ast.CommentGroupNode); ok {
			continue
		}
		n, err := convert(file, d.Body)
		if err != nil {
			return nil, err
		}
		if n.kind != "null" {
			docs = append(docs, n)
		}
	}
	return docs, nil
}

func posOf(n ast.Node) ocigen.Pos {
	if n == nil || n.GetToken() == nil || n.GetToken().Position == nil {
		return ocigen.Pos{}
	}
	p := n.GetToken().Position
	return ocigen.Pos{Line: p.Line, Col: p.Column}
}

// convert builds the node tree of an AST value. Aliases are refused (no
// SeccompProfile needs them, and expanding them can blow up).
func convert(file string, n ast.Node) (*node, error) {
	for {
		switch v := n.(type) {
		case *ast.TagNode:
			n = v.Value
			continue
		case *ast.AnchorNode:
			n = v.Value
			continue
		case *ast.CommentGroupNode:
			n = nil
		}
		break
	}
	at := posOf(n)
	switch v := n.(type) {
	case nil, *ast.NullNode:
		return &node{kind: "null", at: at}, nil
	case *ast.AliasNode:
		return nil, ocigen.Errorf(file, at, ErrBadProfile, "YAML aliases are not supported here; write the value out")
	case *ast.MappingValueNode:
		return convertMap(file, at, []*ast.MappingValueNode{v})
	case *ast.MappingNode:
		if len(v.Values) > 0 && !v.IsFlowStyle {
			at = posOf(v.Values[0].Key)
		}
		return convertMap(file, at, v.Values)
	case *ast.SequenceNode:
		out := &node{kind: "seq", at: at}
		for _, it := range v.Values {
			c, err := convert(file, it)
			if err != nil {
				return nil, err
			}
			out.vals = append(out.vals, c)
		}
		return out, nil
	case *ast.StringNode:
		return &node{kind: "str", at: at, str: v.Value}, nil
	case *ast.LiteralNode:
		return &node{kind: "str", at: at, str: v.Value.Value}, nil
	case *ast.IntegerNode:
		return &node{kind: "int", at: at, str: v.GetToken().Value}, nil
	case *ast.BoolNode:
		return &node{kind: "bool", at: at, str: strconv.FormatBool(v.Value)}, nil
	}
	return nil, ocigen.Errorf(file, at, ErrBadProfile, "unexpected YAML %s", strings.ToLower(n.Type().String()))
}

func convertMap(file string, at ocigen.Pos, kvs []*ast.MappingValueNode) (*node, error) {
	out := &node{kind: "map", at: at}
	for _, kv := range kvs {
		if kv.Key == nil || kv.Key.IsMergeKey() {
			return nil, ocigen.Errorf(file, posOf(kv), ErrBadProfile, "YAML merge keys are not supported here")
		}
		k := kv.Key.GetToken().Value
		if out.get(k) != nil {
			return nil, ocigen.Errorf(file, posOf(kv.Key), ErrBadProfile, "duplicate key %q", k)
		}
		v, err := convert(file, kv.Value)
		if err != nil {
			return nil, err
		}
		out.keys = append(out.keys, k)
		out.vals = append(out.vals, v)
		out.kat = append(out.kat, posOf(kv.Key))
	}
	return out, nil
}
