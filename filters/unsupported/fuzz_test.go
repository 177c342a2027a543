package unsupported

import "testing"

// FuzzDetect checks that Detect never panics and always explains a match.
func FuzzDetect(f *testing.F) {
	f.Add([]byte("USE p DEFAULT KILL\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		format, hint, ok := Detect(data)
		if ok != (format != "") || ok != (hint != "") {
			t.Fatalf("Detect = %q, %q, %v", format, hint, ok)
		}
	})
}
