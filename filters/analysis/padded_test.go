package analysis

import (
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/beats"
	"github.com/seccompbench/seccompbench/filters/formats"
)

// TestPadded: padding appends unreachable returns and changes nothing a
// syscall sees: every x86_64 syscall gets the same verdict and runs the
// same instructions, and the action cache's decision is the same.
func TestPadded(t *testing.T) {
	p, err := formats.OpenWith(beats.DefaultName, formats.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	q := p.Padded(8)
	if q.Len() != p.Len()+8 || p.Padded(0) != p {
		t.Fatalf("Padded(8) has %d instructions from %d; Padded(0) must return p", q.Len(), p.Len())
	}
	if err := filters.Validate(q.Insns); err != nil {
		t.Fatalf("padded program is invalid: %v", err)
	}
	for nr := 0; nr < 470; nr++ {
		d := filters.ArchX86_64.Data(nr, 1, 2, 3)
		a, _ := filters.Emulate(p, d)
		b, _ := filters.Emulate(q, d)
		if a.Ret != b.Ret || a.Executed != b.Executed {
			t.Fatalf("nr %d: padded returns %#x after %d, unpadded %#x after %d", nr, b.Ret, b.Executed, a.Ret, a.Executed)
		}
	}
	pa := PredictCache(filters.Stack{p}, []*filters.Arch{filters.ArchX86_64})
	pb := PredictCache(filters.Stack{q}, []*filters.Arch{filters.ArchX86_64})
	for nr := 0; nr < 470; nr++ {
		ea, _ := pa.Lookup("x86_64", nr)
		eb, _ := pb.Lookup("x86_64", nr)
		if ea.Cached != eb.Cached {
			t.Fatalf("nr %d: cached %v padded, %v unpadded", nr, eb.Cached, ea.Cached)
		}
	}
}

// TestPaddedRange extends TestPadded to every pad a run can draw (0..16,
// runner.DefaultMaxPad), on the program as compiled and with the action
// cache defeated, in a stack of three: every x86_64 syscall gets the same
// verdict after the same number of executed instructions, and the action
// cache decides the same.
func TestPaddedRange(t *testing.T) {
	p, err := formats.OpenWith(beats.DefaultName, formats.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, base := range []*filters.Program{p, p.DefeatCache()} {
		ref := filters.Stack{base, base, base}
		refPred := PredictCache(ref, []*filters.Arch{filters.ArchX86_64})
		for pad := 0; pad <= 16; pad++ {
			q := base.Padded(pad)
			st := filters.Stack{q, q, q}
			if err := filters.Validate(q.Insns); err != nil {
				t.Fatalf("pad %d: invalid program: %v", pad, err)
			}
			pred := PredictCache(st, []*filters.Arch{filters.ArchX86_64})
			for nr := 0; nr < 470; nr++ {
				d := filters.ArchX86_64.Data(nr, 1, 2, 3)
				for i := range st {
					a, _ := filters.Emulate(ref[i], d)
					b, _ := filters.Emulate(st[i], d)
					if a.Ret != b.Ret || a.Executed != b.Executed {
						t.Fatalf("pad %d nr %d filter %d: returns %#x after %d, unpadded %#x after %d", pad, nr, i, b.Ret, b.Executed, a.Ret, a.Executed)
					}
				}
				ea, _ := refPred.Lookup("x86_64", nr)
				eb, _ := pred.Lookup("x86_64", nr)
				if ea.Cached != eb.Cached {
					t.Fatalf("pad %d nr %d: cached %v padded, %v unpadded", pad, nr, eb.Cached, ea.Cached)
				}
			}
		}
	}
}
