package analysis

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
)

// FuzzParseProfile: any input either fails with a *SourceError wrapping
// ErrBadProfile or gives a profile whose call total is the sum of its
// entries, with non-negative counts, a known ABI, Nr -1 exactly for unknown
// names, and table names numbered as the table numbers them (strace's
// syscall_N names and bare numbers resolve to N, known or not).
func FuzzParseProfile(f *testing.F) {
	files, _ := filepath.Glob("testdata/profiles/*")
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("syscall,count,seconds\nread,10,0.5\nwrite,3\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseProfile("fuzz.txt", data)
		if err != nil {
			var se *filters.SourceError
			if !errors.Is(err, ErrBadProfile) || !errors.As(err, &se) {
				t.Fatalf("error %v is no *SourceError wrapping ErrBadProfile", err)
			}
			return
		}
		var calls int64
		for _, e := range p.Entries {
			if e.Calls < 0 || e.Errors < 0 {
				t.Fatalf("entry %+v has negative counts", e)
			}
			calls += e.Calls
			if e.Known != (e.Nr >= 0) {
				t.Fatalf("entry %+v: Known and Nr disagree", e)
			}
			if a := archByName(t, e.Arch); e.Known {
				if n, ok := a.Lookup(e.Name); ok && n != e.Nr {
					t.Fatalf("entry %+v: %s numbers %q %d", e, e.Arch, e.Name, n)
				}
			}
			if p.HasSeconds && math.IsNaN(e.Seconds) {
				t.Fatalf("HasSeconds but entry %q has no time", e.Name)
			}
		}
		if calls != p.TotalCalls {
			t.Fatalf("TotalCalls %d, entries sum to %d", p.TotalCalls, calls)
		}
	})
}

func archByName(t *testing.T, name string) *filters.Arch {
	for _, a := range []*filters.Arch{filters.ArchX86_64, filters.ArchI386, filters.ArchX32} {
		if a.Name == name {
			return a
		}
	}
	t.Fatalf("unknown ABI %q", name)
	return nil
}
