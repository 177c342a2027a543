package srcpos

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// MaxNesting is how deep YAML may nest: flow brackets, compact block
// sequences (- - -) or indentation levels. Real policies nest 4 to 6
// levels; goccy/go-yaml's parser needs memory quadratic in the nesting
// depth (a 200 KB file of nested brackets took 15 GB), so deeper input is
// refused before parsing.
const MaxNesting = 64

// CheckNesting scans data without parsing it and returns an *Error at the
// first place that nests deeper than MaxNesting (flow brackets outside
// quotes and comments, "- " sequence entries on one line, or indentation
// of more than 2·MaxNesting columns), or nil.
func CheckNesting(data []byte) *Error {
	line, col := 1, 0
	depth := 0
	var quote byte
	comment := false
	lineStart := true
	indent, dashes := 0, 0
	for i := 0; i < len(data); i++ {
		c := data[i]
		col++
		if c == '\n' {
			line, col = line+1, 0
			comment, lineStart, indent, dashes = false, true, 0, 0
			continue
		}
		if comment {
			continue
		}
		if lineStart {
			switch {
			case c == ' ':
				indent++
				if indent > 2*MaxNesting {
					return errorf(Pos{Line: line, Col: col}, "indented more than %d columns", 2*MaxNesting)
				}
				continue
			case c == '-' && i+1 < len(data) && (data[i+1] == ' ' || data[i+1] == '\n'):
				dashes++
				if dashes > MaxNesting {
					return errorf(Pos{Line: line, Col: col}, "more than %d nested sequence entries on one line", MaxNesting)
				}
				continue
			}
			lineStart = false
		}
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' {
				i++
				col++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#' && (i == 0 || data[i-1] == ' ' || data[i-1] == '\t'):
			comment = true
		case c == '[' || c == '{':
			depth++
			if depth > MaxNesting {
				return errorf(Pos{Line: line, Col: col}, "nested more than %d levels deep", MaxNesting)
			}
		case c == ']' || c == '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return nil
}

// ParseYAMLAST runs goccy/go-yaml's parser, turning a panic inside it into
// an error so that malformed input cannot crash the caller. A syntax error
// comes back as an *Error at the offending token ("parse YAML: ...").
func ParseYAMLAST(data []byte) (f *ast.File, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, err = nil, &Error{Msg: fmt.Sprintf("parse YAML: YAML parser panicked: %v", r)}
		}
	}()
	f, err = parser.ParseBytes(data, 0)
	if err != nil {
		var se *yaml.SyntaxError
		e := &Error{Msg: "parse YAML: " + err.Error()}
		if errors.As(err, &se) {
			e.Msg = "parse YAML: " + se.Message
			if se.Token != nil && se.Token.Position != nil {
				e.At = Pos{Line: se.Token.Position.Line, Col: se.Token.Position.Column}
			}
		}
		return nil, e
	}
	return f, nil
}

// PosOf returns the position of a YAML node: for a block mapping its
// first key (goccy's mapping token is the first ':'), else the node's
// token; the zero Pos when there is none.
func PosOf(n ast.Node) Pos {
	if m, ok := n.(*ast.MappingNode); ok && !m.IsFlowStyle && len(m.Values) > 0 {
		n = m.Values[0].Key
	}
	if n == nil {
		return Pos{}
	}
	tk := n.GetToken()
	if tk == nil || tk.Position == nil {
		return Pos{}
	}
	return Pos{Line: tk.Position.Line, Col: tk.Position.Column}
}

// ParseYAML parses data (CheckNesting first) into one Node per YAML
// document, empty and comment-only documents left out. Aliases and merge
// keys are refused (no seccomp format needs them, and expanding them can
// blow up), as are duplicate keys. Errors are *Error values.
func ParseYAML(data []byte) ([]*Node, error) {
	if e := CheckNesting(data); e != nil {
		return nil, e
	}
	f, err := ParseYAMLAST(data)
	if err != nil {
		return nil, err
	}
	var docs []*Node
	for _, d := range f.Docs {
		if d == nil || d.Body == nil {
			continue
		}
		if _, ok := d.Body.(*ast.CommentGroupNode); ok {
			continue
		}
		n, err := convert(d.Body)
		if err != nil {
			return nil, err
		}
		if n.Kind != Null {
			docs = append(docs, n)
		}
	}
	return docs, nil
}

// convert builds the Node tree of an AST value.
func convert(n ast.Node) (*Node, error) {
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
	at := PosOf(n)
	switch v := n.(type) {
	case nil, *ast.NullNode:
		return &Node{Kind: Null, At: at}, nil
	case *ast.AliasNode:
		return nil, errorf(at, "YAML aliases are not supported here; write the value out")
	case *ast.MappingValueNode:
		return convertMap(at, []*ast.MappingValueNode{v})
	case *ast.MappingNode:
		return convertMap(at, v.Values)
	case *ast.SequenceNode:
		out := &Node{Kind: Seq, At: at}
		for _, it := range v.Values {
			c, err := convert(it)
			if err != nil {
				return nil, err
			}
			out.Vals = append(out.Vals, c)
		}
		return out, nil
	case *ast.StringNode:
		return &Node{Kind: Str, At: at, Str: v.Value}, nil
	case *ast.LiteralNode:
		return &Node{Kind: Str, At: at, Str: v.Value.Value}, nil
	case *ast.IntegerNode:
		return &Node{Kind: Num, At: at, Str: v.GetToken().Value}, nil
	case *ast.BoolNode:
		return &Node{Kind: Bool, At: at, Str: strconv.FormatBool(v.Value)}, nil
	}
	return nil, errorf(at, "unexpected YAML %s", strings.ToLower(n.Type().String()))
}

func convertMap(at Pos, kvs []*ast.MappingValueNode) (*Node, error) {
	out := &Node{Kind: Map, At: at}
	for _, kv := range kvs {
		if kv.Key == nil || kv.Key.IsMergeKey() {
			return nil, errorf(PosOf(kv), "YAML merge keys are not supported here")
		}
		k := kv.Key.GetToken().Value
		if out.Get(k) != nil {
			return nil, errorf(PosOf(kv.Key), "duplicate key %q", k)
		}
		v, err := convert(kv.Value)
		if err != nil {
			return nil, err
		}
		out.Keys = append(out.Keys, k)
		out.Vals = append(out.Vals, v)
		out.KeyAt = append(out.KeyAt, PosOf(kv.Key))
	}
	return out, nil
}
