package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
)

// The structs of the result document keep undefined numbers as NaN in
// memory, so that Explain, the control verdict and every renderer see
// that a number is missing (schema_version 2). In JSON such a float64 is
// null, and null reads back as NaN. marshalNullNaN and unmarshalNullNaN
// implement that for the document's structs, whose MarshalJSON and
// UnmarshalJSON methods call them; every other field is encoded as
// encoding/json would.

// marshalNullNaN encodes the struct v as encoding/json does (json tags,
// omitempty, "-"), except that a float64 field that is NaN or ±Inf is
// written as null.
func marshalNullNaN(v any) ([]byte, error) {
	rv := reflect.ValueOf(v)
	rt := rv.Type()
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	for i := range rt.NumField() {
		sf := rt.Field(i)
		if !sf.IsExported() {
			continue
		}
		name, omitEmpty, skip := jsonName(sf)
		if skip {
			continue
		}
		fv := rv.Field(i)
		if omitEmpty && isEmptyJSON(fv) {
			continue
		}
		var raw []byte
		if fv.Kind() == reflect.Float64 && (math.IsNaN(fv.Float()) || math.IsInf(fv.Float(), 0)) {
			raw = []byte("null")
		} else {
			var err error
			if raw, err = json.Marshal(fv.Interface()); err != nil {
				return nil, fmt.Errorf("encode %s.%s: %w", rt.Name(), sf.Name, err)
			}
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		key, _ := json.Marshal(name)
		b.Write(key)
		b.WriteByte(':')
		b.Write(raw)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// decodeNullNaN decodes data into plain (ptr converted to a type without
// UnmarshalJSON) and then sets ptr's null float64 fields to NaN.
func decodeNullNaN(data []byte, plain, ptr any) error {
	if err := json.Unmarshal(data, plain); err != nil {
		return err
	}
	return unmarshalNullNaN(data, ptr)
}

// unmarshalNullNaN completes the decoding of data into the struct that
// ptr points to (already decoded by encoding/json, through a type without
// this method): every float64 field whose key is null becomes NaN.
func unmarshalNullNaN(data []byte, ptr any) error {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil {
		return err
	}
	rv := reflect.ValueOf(ptr).Elem()
	rt := rv.Type()
	for i := range rt.NumField() {
		sf := rt.Field(i)
		if !sf.IsExported() || sf.Type.Kind() != reflect.Float64 {
			continue
		}
		name, _, skip := jsonName(sf)
		if skip {
			continue
		}
		if raw, ok := keys[name]; ok && string(bytes.TrimSpace(raw)) == "null" {
			rv.Field(i).SetFloat(math.NaN())
		}
	}
	return nil
}

// jsonName returns the JSON key of a struct field, whether it has
// omitempty, and whether the field is skipped ("-").
func jsonName(sf reflect.StructField) (name string, omitEmpty, skip bool) {
	tag := sf.Tag.Get("json")
	if tag == "-" {
		return "", false, true
	}
	name, opts, _ := strings.Cut(tag, ",")
	if name == "" {
		name = sf.Name
	}
	for _, o := range strings.Split(opts, ",") {
		if o == "omitempty" {
			omitEmpty = true
		}
	}
	return name, omitEmpty, false
}

// isEmptyJSON is encoding/json's omitempty rule.
func isEmptyJSON(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}

// MarshalJSON writes undefined (NaN) numbers as null.
func (c CellResult) MarshalJSON() ([]byte, error) { return marshalNullNaN(c) }

// UnmarshalJSON reads null numbers as NaN.
func (c *CellResult) UnmarshalJSON(data []byte) error {
	type plain CellResult
	return decodeNullNaN(data, (*plain)(c), c)
}

// MarshalJSON writes undefined (NaN) numbers as null.
func (f Fit) MarshalJSON() ([]byte, error) { return marshalNullNaN(f) }

// UnmarshalJSON reads null numbers as NaN.
func (f *Fit) UnmarshalJSON(data []byte) error {
	type plain Fit
	return decodeNullNaN(data, (*plain)(f), f)
}

// MarshalJSON writes undefined (NaN) numbers as null.
func (l LoaderDiff) MarshalJSON() ([]byte, error) { return marshalNullNaN(l) }

// UnmarshalJSON reads null numbers as NaN.
func (l *LoaderDiff) UnmarshalJSON(data []byte) error {
	type plain LoaderDiff
	return decodeNullNaN(data, (*plain)(l), l)
}

// MarshalJSON writes undefined (NaN) numbers as null.
func (s Setup) MarshalJSON() ([]byte, error) { return marshalNullNaN(s) }

// UnmarshalJSON reads null numbers as NaN.
func (s *Setup) UnmarshalJSON(data []byte) error {
	type plain Setup
	return decodeNullNaN(data, (*plain)(s), s)
}

// MarshalJSON writes undefined (NaN) numbers as null.
func (c Control) MarshalJSON() ([]byte, error) { return marshalNullNaN(c) }

// UnmarshalJSON reads null numbers as NaN.
func (c *Control) UnmarshalJSON(data []byte) error {
	type plain Control
	return decodeNullNaN(data, (*plain)(c), c)
}

// MarshalJSON writes undefined (NaN) numbers as null.
func (d Drift) MarshalJSON() ([]byte, error) { return marshalNullNaN(d) }

// UnmarshalJSON reads null numbers as NaN.
func (d *Drift) UnmarshalJSON(data []byte) error {
	type plain Drift
	return decodeNullNaN(data, (*plain)(d), d)
}

// MarshalJSON writes undefined (NaN) numbers as null.
func (l Linearity) MarshalJSON() ([]byte, error) { return marshalNullNaN(l) }

// UnmarshalJSON reads null numbers as NaN.
func (l *Linearity) UnmarshalJSON(data []byte) error {
	type plain Linearity
	return decodeNullNaN(data, (*plain)(l), l)
}

// MarshalJSON writes undefined (NaN) numbers as null.
func (c Child) MarshalJSON() ([]byte, error) { return marshalNullNaN(c) }

// UnmarshalJSON reads null numbers as NaN.
func (c *Child) UnmarshalJSON(data []byte) error {
	type plain Child
	return decodeNullNaN(data, (*plain)(c), c)
}

// MarshalJSON writes undefined (NaN) numbers as null.
func (r FleetRow) MarshalJSON() ([]byte, error) { return marshalNullNaN(r) }
