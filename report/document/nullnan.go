package document

import (
	"encoding/json"
	"errors"
	"reflect"
	"sync"
)

// The structs of the result document keep undefined numbers as NaN in
// memory, so that Explain, the control verdict and every renderer see
// that a number is missing (schema_version 2). In JSON such a float64 is
// null, and null reads back as NaN: the type Float does that, by its
// MarshalJSON and UnmarshalJSON. The structs' fields stay float64, which
// the renderers use as float64 in hundreds of places; the structs'
// MarshalJSON and UnmarshalJSON convert at the JSON boundary instead, to
// and from their wire type: the same fields, names and tags in the same
// order with every float64 typed Float, which encoding/json then encodes
// as it would the struct itself (keys, omitempty, "-").

// wireType is the wire type of a struct type: typ, built by
// reflect.StructOf, and fields, the struct's field index of each of its
// fields (the struct's exported fields; encoding/json writes no others).
type wireType struct {
	typ    reflect.Type
	fields []int
}

// wireTypes caches the wire type of each struct type (reflect.Type to
// *wireType).
var wireTypes sync.Map

// wireOf returns the wire type of struct type t.
func wireOf(t reflect.Type) *wireType {
	if w, ok := wireTypes.Load(t); ok {
		return w.(*wireType)
	}
	w := &wireType{}
	var fields []reflect.StructField
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		if f.Type == reflect.TypeFor[float64]() {
			f.Type = reflect.TypeFor[Float]()
		}
		fields = append(fields, reflect.StructField{Name: f.Name, Type: f.Type, Tag: f.Tag, Anonymous: f.Anonymous})
		w.fields = append(w.fields, i)
	}
	w.typ = reflect.StructOf(fields)
	got, _ := wireTypes.LoadOrStore(t, w)
	return got.(*wireType)
}

// toWire copies the struct s into wire, a value of its wire type.
func (w *wireType) toWire(wire, s reflect.Value) {
	for j, i := range w.fields {
		wire.Field(j).Set(s.Field(i).Convert(w.typ.Field(j).Type))
	}
}

// fromWire copies wire, a value of the wire type, into the struct s.
func (w *wireType) fromWire(s, wire reflect.Value) {
	for j, i := range w.fields {
		s.Field(i).Set(wire.Field(j).Convert(s.Type().Field(i).Type))
	}
}

// marshalWire encodes the struct v as encoding/json does, except that a
// float64 field that is NaN or ±Inf is written as null (Float).
func marshalWire(v any) ([]byte, error) {
	s := reflect.ValueOf(v)
	w := wireOf(s.Type())
	wire := reflect.New(w.typ).Elem()
	w.toWire(wire, s)
	return json.Marshal(wire.Interface())
}

// unmarshalWire decodes data into the struct that ptr points to as
// encoding/json does, except that a float64 field whose value is null
// becomes NaN (Float). A key absent from data leaves its field as it was.
// A type error names the struct and the key.
func unmarshalWire(data []byte, ptr any) error {
	s := reflect.ValueOf(ptr).Elem()
	w := wireOf(s.Type())
	wire := reflect.New(w.typ)
	w.toWire(wire.Elem(), s)
	if err := json.Unmarshal(data, wire.Interface()); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Struct == "" {
			te.Struct = s.Type().Name()
		}
		return err
	}
	w.fromWire(s, wire.Elem())
	return nil
}

// MarshalJSON writes undefined (NaN) numbers as null.
func (c CellResult) MarshalJSON() ([]byte, error) { return marshalWire(c) }

// UnmarshalJSON reads null numbers as NaN.
func (c *CellResult) UnmarshalJSON(data []byte) error {
	return unmarshalWire(data, c)
}

// MarshalJSON writes undefined (NaN) numbers as null.
func (f Fit) MarshalJSON() ([]byte, error) { return marshalWire(f) }

// UnmarshalJSON reads null numbers as NaN.
func (f *Fit) UnmarshalJSON(data []byte) error {
	return unmarshalWire(data, f)
}

// MarshalJSON writes undefined (NaN) numbers as null.
func (l LoaderDiff) MarshalJSON() ([]byte, error) { return marshalWire(l) }

// UnmarshalJSON reads null numbers as NaN.
func (l *LoaderDiff) UnmarshalJSON(data []byte) error {
	return unmarshalWire(data, l)
}

// MarshalJSON writes undefined (NaN) numbers as null.
func (s Setup) MarshalJSON() ([]byte, error) { return marshalWire(s) }

// UnmarshalJSON reads null numbers as NaN.
func (s *Setup) UnmarshalJSON(data []byte) error {
	return unmarshalWire(data, s)
}

// MarshalJSON writes undefined (NaN) numbers as null.
func (c Control) MarshalJSON() ([]byte, error) { return marshalWire(c) }

// UnmarshalJSON reads null numbers as NaN.
func (c *Control) UnmarshalJSON(data []byte) error {
	return unmarshalWire(data, c)
}

// MarshalJSON writes undefined (NaN) numbers as null.
func (d Drift) MarshalJSON() ([]byte, error) { return marshalWire(d) }

// UnmarshalJSON reads null numbers as NaN.
func (d *Drift) UnmarshalJSON(data []byte) error {
	return unmarshalWire(data, d)
}

// MarshalJSON writes undefined (NaN) numbers as null.
func (l Linearity) MarshalJSON() ([]byte, error) { return marshalWire(l) }

// UnmarshalJSON reads null numbers as NaN.
func (l *Linearity) UnmarshalJSON(data []byte) error {
	return unmarshalWire(data, l)
}

// MarshalJSON writes undefined (NaN) numbers as null.
func (c Child) MarshalJSON() ([]byte, error) { return marshalWire(c) }

// UnmarshalJSON reads null numbers as NaN.
func (c *Child) UnmarshalJSON(data []byte) error {
	return unmarshalWire(data, c)
}

// MarshalJSON writes undefined (NaN) numbers as null.
func (r FleetRow) MarshalJSON() ([]byte, error) { return marshalWire(r) }
