// Package jsoncontract generates the JSON Schema of every JSON output of
// seccompbench from its Go type (docs/schema/KIND.schema.json) and
// validates documents against the checked-in schemas; Text lists the keys
// whose strings may be English and Sentences finds English anywhere else
// (docs/json.md, "Codes, not sentences"). It is for tests and the
// generator (mkschema.go) only: the command never imports it.
package jsoncontract

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/invopop/jsonschema"
	sjs "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/seccompbench/seccompbench/report/document"
)

// Types maps each kind of JSON document to a value of its Go type: what
// the writer of that kind marshals (docs/json.md).
var Types = map[document.Kind]any{
	document.KindRun:          document.Document{},
	document.KindCompare:      document.Comparison{},
	document.KindReport:       document.Fleet{},
	document.KindEstimate:     document.Estimate{},
	document.KindSimulate:     document.SimulateOutput{},
	document.KindInspect:      document.InspectDoc{},
	document.KindCompile:      document.CompileDoc{},
	document.KindCompileStack: document.SystemdStackDoc{},
	document.KindLint:         document.LintDoc{},
	document.KindBudget:       document.Budget{},
	document.KindMerge:        document.BuildSummary{},
	document.KindOptimize:     document.BuildSummary{},
	document.KindEquiv:        document.EquivDoc{},
	document.KindSubset:       document.SubsetDoc{},
	document.KindIntersect:    document.BuildSummary{},
	document.KindManifest:     document.InspectManifest{},
	document.KindTop:          document.Top{},
}

// Dir is the schemas' directory relative to the repository root.
const Dir = "docs/schema"

// File is the schema file of kind k, relative to the repository root.
func File(k document.Kind) string { return filepath.Join(Dir, string(k)+".schema.json") }

// version is the schema_version each kind's documents carry.
func version(k document.Kind) int { return k.Version() }

// Generate returns the JSON Schema (draft 2020-12) of kind k, generated
// from its Go type: every key the type marshals, required unless it is
// omitempty; a pointer, slice or map without omitempty may also be null,
// as encoding/json writes a nil one, and so may an undefined float64 of
// the run result's structs (NaN is null); "kind" and "schema_version" are
// constants. The output is indented and ends with a newline.
func Generate(k document.Kind) ([]byte, error) {
	v, ok := Types[k]
	if !ok {
		return nil, fmt.Errorf("generate schema: no Go type for kind %q", k)
	}
	r := &jsonschema.Reflector{ExpandedStruct: true, Mapper: textMarshalers}
	s := r.Reflect(v)
	// The $id keeps the path the types had before they moved to
	// report/document, so that references to the published schemas hold.
	s.ID = jsonschema.ID(strings.Replace(string(s.ID), "/report/document/", "/report/", 1))
	s.Title = fmt.Sprintf("seccompbench %s document, schema_version %d", k, version(k))
	s.Description = "Generated from the Go type " + reflect.TypeOf(v).String() + " by internal/jsoncontract; do not edit (go run internal/jsoncontract/mkschema.go). Keys are documented in docs/json.md."
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("generate schema %s: %w", k, err)
	}
	var tree map[string]any
	if err := json.Unmarshal(b, &tree); err != nil {
		return nil, fmt.Errorf("generate schema %s: %w", k, err)
	}
	defs, _ := tree["$defs"].(map[string]any)
	nullable(tree, reflect.TypeOf(v), defs, map[reflect.Type]bool{})
	if err := describeText(k, tree, defs); err != nil {
		return nil, fmt.Errorf("generate schema %s: %w", k, err)
	}
	describeWarnings(tree)
	props, _ := tree["properties"].(map[string]any)
	if props == nil {
		return nil, fmt.Errorf("generate schema %s: the root has no properties", k)
	}
	props["kind"] = map[string]any{"const": string(k), "description": "What the document is (docs/json.md)."}
	props["schema_version"] = map[string]any{"const": version(k), "description": "The version of this kind's keys."}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(tree); err != nil {
		return nil, fmt.Errorf("generate schema %s: %w", k, err)
	}
	return out.Bytes(), nil
}

// textMarshalers maps a type that marshals itself as text
// (analysis.Severity) to a string schema.
func textMarshalers(t reflect.Type) *jsonschema.Schema {
	if t.Implements(reflect.TypeFor[encoding.TextMarshaler]()) {
		return &jsonschema.Schema{Type: "string"}
	}
	return nil
}

// nullable walks the schema node of struct type t (following $ref into
// defs) and lets each property whose field is a pointer, slice or map
// without omitempty also be null, and every float64 of a struct that
// marshals itself (the run result's structs write each float64 field as
// a document.Float, NaN as null: report/document/nullnan.go).
func nullable(node map[string]any, t reflect.Type, defs map[string]any, seen map[reflect.Type]bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
		if items, ok := node["items"].(map[string]any); ok {
			node = items
		} else if ap, ok := node["additionalProperties"].(map[string]any); ok {
			node = ap
		}
	}
	if t.Kind() != reflect.Struct || seen[t] || t.PkgPath() == "time" {
		return
	}
	if ref, ok := node["$ref"].(string); ok {
		def, _ := defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
		if def == nil {
			return
		}
		node = def
	}
	seen[t] = true
	marshaler := reflect.TypeFor[json.Marshaler]()
	nanNull := t.Implements(marshaler) || reflect.PointerTo(t).Implements(marshaler)
	props, _ := node["properties"].(map[string]any)
	for _, f := range reflect.VisibleFields(t) {
		name, omit, ok := jsonName(f)
		if !ok {
			continue
		}
		p, _ := props[name].(map[string]any)
		if p == nil {
			continue
		}
		nullable(p, f.Type, defs, seen)
		switch k := f.Type.Kind(); {
		case (k == reflect.Pointer || k == reflect.Slice || k == reflect.Map) && !omit,
			k == reflect.Float64 && nanNull:
			props[name] = map[string]any{"anyOf": []any{p, map[string]any{"type": "null"}}}
		}
	}
}

// jsonName returns the key encoding/json writes field f under and whether
// it is omitempty; ok is false for fields it does not write (unexported,
// "-", or embedded structs whose fields are promoted).
func jsonName(f reflect.StructField) (name string, omit, ok bool) {
	if !f.IsExported() || (f.Anonymous && f.Tag.Get("json") == "") {
		return "", false, false
	}
	tag := f.Tag.Get("json")
	if tag == "-" {
		return "", false, false
	}
	name, opts, _ := strings.Cut(tag, ",")
	if name == "" {
		name = f.Name
	}
	return name, strings.Contains(","+opts+",", ",omitempty,"), true
}

// Validator validates documents against the checked-in schemas.
type Validator struct {
	schemas map[document.Kind]*sjs.Schema
}

// NewValidator compiles every checked-in schema under root/docs/schema
// (root is the repository root).
func NewValidator(root string) (*Validator, error) {
	c := sjs.NewCompiler()
	v := &Validator{schemas: map[document.Kind]*sjs.Schema{}}
	for k := range Types {
		path := filepath.Join(root, File(k))
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("load schema: %w", err)
		}
		doc, err := sjs.UnmarshalJSON(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("load schema %s: %w", path, err)
		}
		if err := c.AddResource(path, doc); err != nil {
			return nil, fmt.Errorf("load schema %s: %w", path, err)
		}
		if v.schemas[k], err = c.Compile(path); err != nil {
			return nil, fmt.Errorf("compile schema %s: %w", path, err)
		}
	}
	return v, nil
}

// Validate checks data, a JSON document, against the schema of its own
// kind (document.DetectKind) and returns that kind. A document without a
// kind, or of a kind with no schema, is an error.
func (v *Validator) Validate(data []byte) (document.Kind, error) {
	k, _, legacy, err := document.DetectKind(data)
	if err != nil {
		return "", err
	}
	if legacy {
		return k, fmt.Errorf("validate: the document has no \"kind\" (looks like %q)", k)
	}
	s, ok := v.schemas[k]
	if !ok {
		return k, fmt.Errorf("validate: no schema for kind %q", k)
	}
	inst, err := sjs.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return k, fmt.Errorf("validate: %w", err)
	}
	if err := s.Validate(inst); err != nil {
		return k, fmt.Errorf("validate %s document against %s: %w", k, File(k), err)
	}
	return k, nil
}
