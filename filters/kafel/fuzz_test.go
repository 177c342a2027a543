package kafel

import (
	"errors"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
)

// FuzzLoad: any input either fails with a *SourceError wrapping
// ErrBadPolicy (or, as an nsjail config with no policy, an error wrapping
// ErrNoPolicy) or compiles to a valid program, as a Kafel policy and as
// an nsjail config; the detectors never panic.
func FuzzLoad(f *testing.F) {
	f.Add([]byte("#define X 1\nPOLICY a { ALLOW { read, write { fd == X || (fd & 0x3) != 2 } } }\nUSE a, ERRNO(1) { ptrace }\nDEFAULT KILL\n"))
	f.Add([]byte("seccomp_string: \"ALLOW { read }\"\nseccomp_string: \"DEFAULT ALLOW\"\nseccomp_unotify: true\nmount { dst: \"/\" }\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		Detect(data)
		DetectNsjail(data)
		for _, load := range []func(string, []byte, Options) (*filters.Source, error){Load, LoadNsjail} {
			src, err := load("fuzz", data, Options{})
			if err != nil && errors.Is(err, ErrNoPolicy) {
				continue
			}
			if err != nil {
				var se *filters.SourceError
				if !errors.As(err, &se) || !errors.Is(err, ErrBadPolicy) {
					t.Fatalf("error %v is no *SourceError wrapping ErrBadPolicy", err)
				}
				continue
			}
			for _, p := range src.Filters {
				if err := filters.Validate(p.Insns); err != nil {
					t.Fatalf("%s invalid: %v", p.Name, err)
				}
			}
		}
	})
}
