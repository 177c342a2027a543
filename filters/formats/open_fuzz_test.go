package formats

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/internal/filterstest"
)

// FuzzOpenData: whatever a file holds, format detection plus the loader it
// picks (what Open does after reading the file) either returns a program
// the kernel would accept or an error of a documented kind: a *SourceError,
// ErrUnsupportedFormat (inputs no row reads) or
// ErrAlternatives (several Kubernetes profiles and no name). Seeds: every
// file in testdata/policies, whatever its format.
func FuzzOpenData(f *testing.F) {
	names, _ := filepath.Glob(filepath.Join(filterstest.PoliciesDir, "*"))
	for _, name := range names {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte{0x06, 0, 0, 0, 0, 0, 0xff, 0x7f, 0x06})
	f.Fuzz(func(t *testing.T, data []byte) {
		src, err := LoadData("fuzz", data, OpenOptions{})
		if err != nil {
			var se *filters.SourceError
			if !errors.As(err, &se) && !errors.Is(err, ErrUnsupportedFormat) && !errors.Is(err, ErrAlternatives) {
				t.Fatalf("error %v (%T) is of no documented kind", err, err)
			}
			return
		}
		for _, p := range src.Filters {
			if err := filters.Validate(p.Insns); err != nil {
				t.Fatalf("loaded program %q is invalid: %v", p.Name, err)
			}
		}
	})
}
