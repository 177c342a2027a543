package top

import (
	"math"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/report/document"
)

// TestPredictCachedStillPaysEntry: a stack the action cache cannot serve
// (each filter loads the instruction pointer, as run --cache defeat
// does) merged into one filter the cache can serve does not save all of
// the syscall's seccomp time: a cached call still pays the entry, so the
// prediction is the measured time × entry / model(before), not 0.
func TestPredictCachedStillPaysEntry(t *testing.T) {
	// ld [instruction_pointer] (offset 8); ld [arch] (offset 4); ret ALLOW.
	raw := []byte{
		0x20, 0, 0, 0, 8, 0, 0, 0,
		0x20, 0, 0, 0, 4, 0, 0, 0,
		0x06, 0, 0, 0, 0, 0, 0xff, 0x7f,
	}
	var stack filters.Stack
	for i := 0; i < 2; i++ {
		p, err := filters.ParseRaw("test", raw)
		if err != nil {
			t.Fatal(err)
		}
		stack = append(stack, p)
	}
	calls := 1000.0
	p := &document.TopProcess{CPUNs: 1e9, SeccompNs: 1e6, Syscalls: []document.TopSyscall{
		{Nr: 110, Name: "getppid", Samples: 10, SeccompNs: 1e6, Calls: &calls},
	}}
	pr, err := predict(stack, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The Watcher's kept merge gives the same prediction, and is kept:
	// the second lookup returns the same result.
	w := &Watcher{}
	kept := w.mergedFor(stack)
	if kept == nil || w.mergedFor(stack) != kept {
		t.Fatalf("mergedFor did not keep the merge: %v", kept)
	}
	pr2, err := predict(stack, p, kept)
	if err != nil {
		t.Fatal(err)
	}
	for i := range pr.Rows {
		if pr.Rows[i] != pr2.Rows[i] {
			t.Errorf("row %d with the kept merge %+v, computed %+v", i, pr2.Rows[i], pr.Rows[i])
		}
	}
	m := ReferenceModel
	// Before: 2 uncached filters executing 3 instructions each.
	before := m.Entry.Center + 2*m.PerFilter.Center + 6*m.PerInsn.Center
	want := 1e6 * m.Entry.Center / before
	for _, r := range pr.Rows {
		if math.Abs(r.SeccompNs/want-1) > 1e-9 || math.Abs(r.SavedNs-(1e6-want)) > 1e-3 {
			t.Errorf("%s: predicted %v ns, saved %v; want %v (the entry a cached call still pays), saved %v", r.Name, r.SeccompNs, r.SavedNs, want, 1e6-want)
		}
	}
}
