package beats

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/internal/srcpos"
	"github.com/seccompbench/seccompbench/filters/internal/suggest"
)

// decodePolicy walks the YAML AST of data (github.com/goccy/go-yaml keeps
// token positions) into a Policy, checking structure and types only. It
// returns the first problem as a *SourceError.
func decodePolicy(file string, data []byte) (*Policy, error) {
	if line, col, msg := checkNesting(data); msg != "" {
		return nil, &filters.SourceError{File: file, Err: ErrBadPolicy, Line: line, Col: col, Msg: msg,
			Hint: "a seccomp policy nests a few levels deep; this input is not one"}
	}
	f, err := srcpos.ParseYAMLAST(data)
	if err != nil {
		pe := &filters.SourceError{File: file, Err: ErrBadPolicy, Msg: "parse YAML/JSON: " + err.Error()}
		var se *srcpos.Error
		if errors.As(err, &se) {
			pe.Msg = "parse YAML/JSON: " + strings.TrimPrefix(se.Msg, "parse YAML: ")
			pe.Line, pe.Col = se.At.Line, se.At.Col
		}
		return nil, pe
	}
	d := &decoder{file: file, anchors: map[string]ast.Node{}}
	var body ast.Node
	for _, doc := range f.Docs {
		if doc == nil || doc.Body == nil {
			continue
		}
		if _, ok := doc.Body.(*ast.CommentGroupNode); ok {
			continue
		}
		if body != nil {
			return nil, d.errAt(doc.Body, "", "policy has more than one YAML document", "keep one document per file")
		}
		body = doc.Body
	}
	if body == nil {
		return nil, &filters.SourceError{File: file, Err: ErrBadPolicy, Line: 1, Col: 1, Msg: "empty policy",
			Hint: "want default_action and syscalls, optionally under a top-level seccomp: key"}
	}
	return d.document(body)
}

// MaxNesting is the deepest nesting of flow collections ([ and {),
// compact block sequences (- - -) or indentation levels a policy may have
// (srcpos.MaxNesting, the limit of every YAML format).
const MaxNesting = srcpos.MaxNesting

// checkNesting returns the position and message of the first place data
// nests deeper than MaxNesting (srcpos.CheckNesting), or "" if none.
func checkNesting(data []byte) (line, col int, msg string) {
	if e := srcpos.CheckNesting(data); e != nil {
		return e.At.Line, e.At.Col, e.Msg
	}
	return 0, 0, ""
}

// decoder holds the state of one decodePolicy walk.
type decoder struct {
	file    string
	anchors map[string]ast.Node
}

// posOf returns the position of a node (srcpos.PosOf: a block mapping's
// first key, else the node's token).
func posOf(n ast.Node) Pos {
	p := srcpos.PosOf(n)
	return Pos{Line: p.Line, Col: p.Col}
}

func (d *decoder) errAt(n ast.Node, value, msg, hint string) *filters.SourceError {
	p := posOf(n)
	return &filters.SourceError{File: d.file, Err: ErrBadPolicy, Line: p.Line, Col: p.Col, Msg: msg, Value: value, Hint: hint}
}

// resolve unwraps anchors (recording them) and aliases, and rejects tags.
func (d *decoder) resolve(n ast.Node) (ast.Node, error) {
	for range 64 {
		switch v := n.(type) {
		case *ast.AnchorNode:
			if v.Name != nil {
				d.anchors[v.Name.String()] = v.Value
			}
			n = v.Value
		case *ast.AliasNode:
			name := ""
			if v.Value != nil {
				name = v.Value.String()
			}
			target, ok := d.anchors[name]
			if !ok {
				return nil, d.errAt(v, name, fmt.Sprintf("alias *%s refers to no earlier anchor", name), "define &"+name+" before using it")
			}
			n = target
		case *ast.TagNode:
			tag := ""
			if v.Start != nil {
				tag = v.Start.Value
			}
			return nil, d.errAt(v, tag, fmt.Sprintf("YAML tag %s is not supported", tag), "remove the tag")
		default:
			return n, nil
		}
	}
	return nil, d.errAt(n, "", "aliases nest too deeply", "")
}

// kind names a node's YAML kind for type errors.
func kind(n ast.Node) string {
	switch v := n.(type) {
	case nil, *ast.NullNode:
		return "null"
	case *ast.MappingNode, *ast.MappingValueNode:
		return "a mapping"
	case *ast.SequenceNode:
		return "a list"
	case *ast.IntegerNode:
		return "an integer"
	case *ast.StringNode, *ast.LiteralNode:
		return "a string"
	case *ast.BoolNode:
		return "a boolean"
	case *ast.FloatNode, *ast.InfinityNode, *ast.NanNode:
		return "a float"
	default:
		return v.Type().String()
	}
}

// mapping returns the entries of a mapping node, with keys checked against
// allowed (key → hint shown for unknown keys). A null node is an empty
// mapping.
func (d *decoder) mapping(n ast.Node, what string, allowed []string) ([]entry, error) {
	n, err := d.resolve(n)
	if err != nil {
		return nil, err
	}
	var values []*ast.MappingValueNode
	switch v := n.(type) {
	case *ast.NullNode:
		return nil, nil
	case *ast.MappingNode:
		values = v.Values
	case *ast.MappingValueNode:
		values = []*ast.MappingValueNode{v}
	default:
		return nil, d.errAt(n, scalarText(n), fmt.Sprintf("%s must be a mapping, not %s", what, kind(n)),
			"want keys "+strings.Join(allowed, ", "))
	}
	out := make([]entry, 0, len(values))
	seen := map[string]bool{}
	for _, mv := range values {
		key, err := d.resolve(mv.Key)
		if err != nil {
			return nil, err
		}
		ks, ok := key.(*ast.StringNode)
		if !ok {
			return nil, d.errAt(mv.Key, "", fmt.Sprintf("key in %s must be a string, not %s", what, kind(key)),
				"want keys "+strings.Join(allowed, ", "))
		}
		name := ks.Value
		if !slices.Contains(allowed, name) {
			return nil, d.errAt(ks, name, fmt.Sprintf("unknown key %q in %s", name, what), keyHint(name, allowed))
		}
		if seen[name] {
			return nil, d.errAt(ks, name, fmt.Sprintf("duplicate key %q in %s", name, what), "give each key once")
		}
		seen[name] = true
		out = append(out, entry{key: name, keyNode: ks, value: mv.Value})
	}
	return out, nil
}

// entry is one key/value pair of a mapping.
type entry struct {
	key     string
	keyNode ast.Node
	value   ast.Node
}

// keyHint explains what keys are allowed, suggesting a close spelling.
func keyHint(name string, allowed []string) string {
	if strings.HasPrefix(name, "seccomp.") {
		return fmt.Sprintf("write %q nested under a seccomp: key", strings.TrimPrefix(name, "seccomp."))
	}
	if name == "defaultAction" || name == "architectures" {
		return "this looks like an OCI/Docker seccomp profile; this schema wants " + strings.Join(allowed, ", ")
	}
	set := map[string]bool{}
	for _, a := range allowed {
		set[a] = true
	}
	if s := suggest.Closest(name, set, 1); len(s) > 0 {
		return fmt.Sprintf("did you mean %q? want %s", s[0], strings.Join(allowed, ", "))
	}
	return "want " + strings.Join(allowed, ", ")
}

// sequence returns the items of a list node; null is an empty list.
func (d *decoder) sequence(n ast.Node, what, hint string) ([]ast.Node, error) {
	n, err := d.resolve(n)
	if err != nil {
		return nil, err
	}
	switch v := n.(type) {
	case *ast.NullNode:
		return nil, nil
	case *ast.SequenceNode:
		return v.Values, nil
	}
	return nil, d.errAt(n, scalarText(n), fmt.Sprintf("%s must be a list, not %s", what, kind(n)), hint)
}

// str returns a string scalar and its position.
func (d *decoder) str(n ast.Node, what, hint string) (string, Pos, error) {
	n, err := d.resolve(n)
	if err != nil {
		return "", Pos{}, err
	}
	if s, ok := n.(*ast.StringNode); ok {
		return s.Value, posOf(s), nil
	}
	return "", Pos{}, d.errAt(n, scalarText(n), fmt.Sprintf("%s must be a string, not %s", what, kind(n)), hint)
}

// uint64Value returns an unsigned 64-bit integer scalar.
func (d *decoder) uint64Value(n ast.Node, what string) (uint64, Pos, error) {
	n, err := d.resolve(n)
	if err != nil {
		return 0, Pos{}, err
	}
	hint := "want an unsigned 64-bit integer, e.g. 42 or 0x10000000"
	if in, ok := n.(*ast.IntegerNode); ok {
		switch v := in.Value.(type) {
		case uint64:
			return v, posOf(in), nil
		case int64:
			if v >= 0 {
				return uint64(v), posOf(in), nil
			}
			return 0, Pos{}, d.errAt(in, scalarText(in), fmt.Sprintf("%s %s is negative", what, scalarText(in)),
				fmt.Sprintf("values are unsigned 64-bit; write %d as %#x", v, uint64(v)))
		}
	}
	text := scalarText(n)
	if s, ok := n.(*ast.StringNode); ok {
		// An integer too wide for the YAML parser's int64/uint64 comes
		// as a string; say that, not "must be an integer".
		v, ok := new(big.Int).SetString(strings.ReplaceAll(s.Value, "_", ""), 0)
		switch {
		case ok && v.Sign() < 0 && !v.IsInt64():
			return 0, Pos{}, d.errAt(n, text, fmt.Sprintf("%s %s is negative", what, text),
				fmt.Sprintf("values are unsigned 64-bit, from 0 to %d", uint64(math.MaxUint64)))
		case ok && v.Sign() > 0 && !v.IsUint64():
			return 0, Pos{}, d.errAt(n, text, fmt.Sprintf("%s %s: does not fit in 64 bits (max %d)", what, text, uint64(math.MaxUint64)), "")
		}
	}
	return 0, Pos{}, d.errAt(n, text, fmt.Sprintf("%s must be an integer, not %s %s", what, kind(n), text), hint)
}

// scalarText returns a scalar's source text, or "" for collections.
func scalarText(n ast.Node) string {
	switch n.(type) {
	case nil, *ast.MappingNode, *ast.MappingValueNode, *ast.SequenceNode:
		return ""
	}
	if tk := n.GetToken(); tk != nil {
		return tk.Value
	}
	return ""
}

var (
	topKeys      = []string{"seccomp", "default_action", "syscalls"}
	policyKeys   = []string{"default_action", "syscalls"}
	groupKeys    = []string{"action", "names", "names_with_args"}
	condNameKeys = []string{"name", "arguments"}
	argKeys      = []string{"position", "argument", "operation", "value"}
)

// document decodes the top-level node: a policy, or one under `seccomp:`.
func (d *decoder) document(n ast.Node) (*Policy, error) {
	es, err := d.mapping(n, "policy", topKeys)
	if err != nil {
		return nil, err
	}
	for _, e := range es {
		if e.key != "seccomp" {
			continue
		}
		if len(es) > 1 {
			other := es[0]
			if other.key == "seccomp" {
				other = es[1]
			}
			return nil, d.errAt(other.keyNode, other.key, fmt.Sprintf("key %q next to a seccomp: key", other.key),
				"put default_action and syscalls either all under seccomp: or all at the top level")
		}
		v, err := d.resolve(e.value)
		if err != nil {
			return nil, err
		}
		if _, ok := v.(*ast.NullNode); ok {
			return nil, d.errAt(e.keyNode, "", "empty policy under seccomp:", "want default_action and syscalls")
		}
		return d.policy(v, posOf(v))
	}
	return d.policy(n, posOf(n))
}

// policy decodes {default_action, syscalls}.
func (d *decoder) policy(n ast.Node, pos Pos) (*Policy, error) {
	es, err := d.mapping(n, "policy", policyKeys)
	if err != nil {
		return nil, err
	}
	p := &Policy{Pos: pos}
	for _, e := range es {
		switch e.key {
		case "default_action":
			p.DefaultAction, p.DefaultActionPos, err = d.str(e.value, "default_action", actionHint)
			if err != nil {
				return nil, err
			}
		case "syscalls":
			items, err := d.sequence(e.value, "syscalls", "want a list of {action, names, names_with_args}")
			if err != nil {
				return nil, err
			}
			for _, it := range items {
				g, err := d.group(it)
				if err != nil {
					return nil, err
				}
				p.Groups = append(p.Groups, g)
			}
		}
	}
	return p, nil
}

// group decodes {action, names, names_with_args}.
func (d *decoder) group(n ast.Node) (Group, error) {
	g := Group{Pos: posOf(n)}
	es, err := d.mapping(n, "syscall group", groupKeys)
	if err != nil {
		return g, err
	}
	for _, e := range es {
		switch e.key {
		case "action":
			g.Action, g.ActionPos, err = d.str(e.value, "action", actionHint)
			if err != nil {
				return g, err
			}
		case "names":
			items, err := d.sequence(e.value, "names", "want a list of syscall names, e.g. [read, write]")
			if err != nil {
				return g, err
			}
			for _, it := range items {
				s, pos, err := d.str(it, "syscall name", "want a syscall name such as getpid")
				if err != nil {
					return g, err
				}
				g.Names = append(g.Names, Name{Name: s, Pos: pos})
			}
		case "names_with_args":
			items, err := d.sequence(e.value, "names_with_args", "want a list of {name, arguments}")
			if err != nil {
				return g, err
			}
			for _, it := range items {
				c, err := d.condName(it)
				if err != nil {
					return g, err
				}
				g.NamesWithArgs = append(g.NamesWithArgs, c)
			}
		}
	}
	return g, nil
}

// condName decodes {name, arguments}.
func (d *decoder) condName(n ast.Node) (NameWithArgs, error) {
	var c NameWithArgs
	es, err := d.mapping(n, "names_with_args entry", condNameKeys)
	if err != nil {
		return c, err
	}
	c.Pos = posOf(n)
	for _, e := range es {
		switch e.key {
		case "name":
			c.Name, c.Pos, err = d.str(e.value, "name", "want a syscall name such as socket")
			if err != nil {
				return c, err
			}
		case "arguments":
			items, err := d.sequence(e.value, "arguments", "want a list of {position, operation, value}")
			if err != nil {
				return c, err
			}
			for _, it := range items {
				a, err := d.argument(it)
				if err != nil {
					return c, err
				}
				c.Arguments = append(c.Arguments, a)
			}
		}
	}
	if c.Name == "" {
		return c, d.errAt(n, "", "names_with_args entry has no name", "add name: SYSCALL")
	}
	return c, nil
}

// argument decodes {position|argument, operation, value}.
func (d *decoder) argument(n ast.Node) (Argument, error) {
	a := Argument{Pos: posOf(n)}
	es, err := d.mapping(n, "argument condition", argKeys)
	if err != nil {
		return a, err
	}
	a.PositionPos = a.Pos
	posKey := ""
	for _, e := range es {
		switch e.key {
		case "position", "argument":
			if posKey != "" {
				return a, d.errAt(e.keyNode, e.key, fmt.Sprintf("both %q and %q given", posKey, e.key),
					"position (go-seccomp-bpf JSON) and argument (Beats YAML) are the same key; give one")
			}
			posKey = e.key
			rng := fmt.Sprintf("want 0..%d (seccomp_data has 6 arguments)", MaxArgPosition)
			if r, err := d.resolve(e.value); err == nil {
				if in, ok := r.(*ast.IntegerNode); ok {
					if v, ok := in.Value.(int64); ok && v < 0 {
						return a, d.errAt(in, scalarText(in), fmt.Sprintf("argument %s %s out of range", e.key, scalarText(in)), rng)
					}
				}
			}
			v, pos, err := d.uint64Value(e.value, e.key)
			if err != nil {
				return a, err
			}
			if v > MaxArgPosition {
				return a, d.errAt(e.value, scalarText(e.value), fmt.Sprintf("argument %s %s out of range", e.key, scalarText(e.value)), rng)
			}
			a.Position, a.PositionPos = int(v), pos
		case "operation":
			a.Operation, a.OperationPos, err = d.str(e.value, "operation", operationHint)
			if err != nil {
				return a, err
			}
		case "value":
			a.Value, _, err = d.uint64Value(e.value, "value")
			if err != nil {
				return a, err
			}
		}
	}
	return a, nil
}
