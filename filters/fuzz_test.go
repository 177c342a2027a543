package filters

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

// FuzzParseRaw: whatever ParseRaw accepts round-trips through Bytes.
func FuzzParseRaw(f *testing.F) {
	f.Add([]byte{0x06, 0, 0, 0, 0, 0, 0xff, 0x7f})
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseRaw("fuzz.bpf", data)
		if err != nil {
			var se *SourceError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is no *SourceError", err)
			}
			return
		}
		if !bytes.Equal(p.Bytes(), data) {
			t.Fatal("Bytes() differs from the input")
		}
		q, err := ParseRaw("again.bpf", p.Bytes())
		if err != nil || !reflect.DeepEqual(q.Insns, p.Insns) {
			t.Fatalf("second parse: %v", err)
		}
	})
}
