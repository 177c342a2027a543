package jsoncontract

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/report/document"
)

// root is the repository root, from this package's directory.
var root = filepath.Join("..", "..")

// TestSchemasUpToDate fails when a checked-in schema differs from what
// Generate makes from the Go type now: a key added, renamed or retyped
// without rerunning go run internal/jsoncontract/mkschema.go.
func TestSchemasUpToDate(t *testing.T) {
	for _, k := range document.Kinds {
		t.Run(string(k), func(t *testing.T) {
			want, err := Generate(k)
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(root, File(k)))
			if err != nil {
				t.Fatalf("%v (go run internal/jsoncontract/mkschema.go writes it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from the schema generated from %T: rerun go run internal/jsoncontract/mkschema.go and say in docs/json.md what changed", File(k), Types[k])
			}
		})
	}
	files, _ := filepath.Glob(filepath.Join(root, Dir, "*.schema.json"))
	if len(files) != len(document.Kinds) || len(Types) != len(document.Kinds) {
		t.Errorf("%d schema files and %d types for %d kinds: one schema per kind", len(files), len(Types), len(document.Kinds))
	}
}

// TestValidatorRefuses: the schemas are strict enough to catch a document
// of another kind, a missing key, a wrong type and an undocumented key;
// undefined pointers may be null.
func TestValidatorRefuses(t *testing.T) {
	v, err := NewValidator(root)
	if err != nil {
		t.Fatal(err)
	}
	ok := `{"schema_version": 1, "kind": "lint", "findings": [{"severity": "error", "code": "x", "filter": 0, "message": "m", "hint": "h"}], "errors": 1, "warnings": 0, "info": 0}`
	if _, err := v.Validate([]byte(ok)); err != nil {
		t.Fatalf("valid lint document refused: %v", err)
	}
	for _, tt := range []struct{ name, doc, want string }{
		{"wrong version", strings.Replace(ok, `"schema_version": 1`, `"schema_version": 2`, 1), "schema_version"},
		{"missing key", strings.Replace(ok, `"errors": 1, `, "", 1), "errors"},
		{"wrong type", strings.Replace(ok, `"filter": 0`, `"filter": "0"`, 1), "filter"},
		{"undocumented key", strings.Replace(ok, `"info": 0`, `"info": 0, "extra": true`, 1), "extra"},
		{"no kind", `{"schema_version": 1, "config": {}, "results": []}`, "no \"kind\""},
		{"unknown kind", `{"schema_version": 1, "kind": "nonsense"}`, "no schema"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := v.Validate([]byte(tt.doc)); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error mentioning %q", err, tt.want)
			}
		})
	}
	null := `{"schema_version": 1, "kind": "equiv", "a": {"spec": "a", "filters": 1}, "b": {"spec": "b", "filters": 1}, "equivalent": true, "input_classes": 3, "counterexample": null}`
	if _, err := v.Validate([]byte(null)); err != nil {
		t.Errorf("null counterexample refused: %v", err)
	}
}
