package protocol

import (
	"bytes"
	"testing"
)

// FuzzParse: a console log never fails to parse from memory (kernel
// messages interleave with the guest's output, so any line is possible)
// and never panics.
func FuzzParse(f *testing.F) {
	var b bytes.Buffer
	for _, l := range []string{"[    0.1] Linux version 6.1.0", "--- PASS: TestX (0.01s)", "--- SKIP: TestY (0.00s)", "    x_test.go:12: skipped: no cache", "--- FAIL: TestZ (1.00s)"} {
		b.WriteString(l + "\n")
	}
	f.Add(b.Bytes())
	f.Add([]byte("\x00\xff--- PASS: \n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := Parse(bytes.NewReader(data))
		if err != nil || res == nil {
			t.Fatalf("Parse from memory: %v, %v", res, err)
		}
		_ = res.OK()
	})
}
