package beats

import (
	"errors"
	"os"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
)

// FuzzParsePolicy checks that no input makes Parse or Compile panic,
// that every rejection is a *SourceError naming the source, and that every
// accepted policy compiles, deterministically. Seeds: the sample policies
// plus the committed corpus in testdata/fuzz/FuzzParsePolicy.
func FuzzParsePolicy(f *testing.F) {
	for _, name := range samplePolicyFiles(f) {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse("fuzz.yaml", data)
		if err != nil {
			var pe *filters.SourceError
			if !errors.Is(err, ErrBadPolicy) || !errors.As(err, &pe) {
				t.Fatalf("error %v is no *SourceError", err)
			}
			if pe.File != "fuzz.yaml" {
				t.Fatalf("error names %q, want fuzz.yaml", pe.File)
			}
			return
		}
		prog, err := p.Compile()
		if err != nil {
			t.Fatalf("accepted policy does not compile: %v", err)
		}
		again, err := Parse("fuzz.yaml", data)
		if err != nil {
			t.Fatalf("second parse: %v", err)
		}
		prog2, err := again.Compile()
		if err != nil || prog2.SHA256() != prog.SHA256() {
			t.Fatalf("second compile differs: %v", err)
		}
	})
}
