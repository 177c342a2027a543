package snapd

import (
	"errors"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
)

// FuzzLoad: any input either fails with a *SourceError wrapping
// ErrBadProfile or compiles to valid programs, two of them unless
// @unrestricted; Detect never panics.
func FuzzLoad(f *testing.F) {
	f.Add([]byte("read\n~ioctl - TIOCSTI\nioctl\nsocket AF_UNIX\nchown - u:root -1\nmknod - |S_IFREG -\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		Detect(data)
		src, err := Load("fuzz.src", data, Options{})
		if err != nil {
			var se *filters.SourceError
			if !errors.As(err, &se) || !errors.Is(err, ErrBadProfile) {
				t.Fatalf("error %v is no *SourceError wrapping ErrBadProfile", err)
			}
			return
		}
		if n := len(src.Filters); n != 0 && n != 2 {
			t.Fatalf("%d filters", n)
		}
		for _, p := range src.Filters {
			if err := filters.Validate(p.Insns); err != nil {
				t.Fatalf("%s invalid: %v", p.Name, err)
			}
		}
	})
}
