package document

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
)

// JSON has no NaN or ±Inf, and encoding/json refuses them. Undefined
// numbers (stats returns NaN, e.g. for an interval from one sample) reach
// JSON as null, one of two ways, by the type of the field:
//
//   - a field typed *float64 is null: Nullable (estimate output, whose
//     schema has always allowed null);
//   - a float64 field of the result document's structs (schema_version 2)
//     stays NaN in memory and is null in JSON, written and read as a
//     Float (nullnan.go). Schema 1 wrote 0 there; ReadJSON still reads
//     such documents.
//
// Other outputs (the comparison, the fleet) still write 0 beside a
// warning or Known = false that says the number is missing: finite.

// WriteIndentedJSON writes v as JSON indented by two spaces, ending with a
// newline: the shape of every JSON output.
func WriteIndentedJSON(w io.Writer, v any) error { return WriteIndented(w, v, "write json") }

// WriteIndented writes v as JSON indented by two spaces, ending with a
// newline; an error is wrapped as "what: ...".
func WriteIndented(w io.Writer, v any, what string) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// Nullable returns &x, or nil (JSON null) for NaN and ±Inf, which JSON
// cannot carry: the one way a JSON output of seccompbench writes an
// undefined number in a field typed *float64.
func Nullable(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// Finite replaces NaN and ±Inf by 0, for float64 fields of the result
// document and comparison whose absence is already explained by a warning.
func Finite(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return x
}

// Float is a float64 whose undefined value is null in JSON: MarshalJSON
// writes NaN and ±Inf as null and any other value as encoding/json writes
// a float64 (the same bytes); UnmarshalJSON reads null as NaN and a number
// as encoding/json reads a float64. Its unit is that of the field it
// types. The result document's structs use it at the JSON boundary
// (nullnan.go).
type Float float64

// MarshalJSON writes f as a JSON number, or null for NaN and ±Inf. It
// never fails.
func (f Float) MarshalJSON() ([]byte, error) {
	x := float64(f)
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(x)
}

// UnmarshalJSON reads null as NaN and a JSON number as its float64. Any
// other value, or a number out of float64's range, is a
// *json.UnmarshalTypeError, as for a float64.
func (f *Float) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		*f = Float(math.NaN())
		return nil
	}
	return json.Unmarshal(data, (*float64)(f))
}
