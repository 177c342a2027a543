package live

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/internal/testutils"
)

// TestCounterCost measures the counter's cost per call on the real
// kernel: a finite, non-negative figure (no timing bound: this machine
// is noisy), the filter it needs left on its own thread only (the
// process's main thread still reads Seccomp 0), this process out of the
// targets again and none of its calls left in the counts.
func TestCounterCost(t *testing.T) {
	requireLive(t)
	s, err := Open(Options{Pids: []int{1}})
	testutils.SkipIfNotSupported(t, err, ErrNotSupported, "5.15", "BPF sampling of kernel callchains")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ns, err := s.CounterCost(3, 2000)
	if err != nil {
		t.Fatal(err)
	}
	if math.IsNaN(ns) || math.IsInf(ns, 0) || ns < 0 {
		t.Errorf("counter cost %v ns per call, want a finite figure ≥ 0", ns)
	}
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "\nSeccomp:\t0\n") {
		t.Errorf("the process's main thread has a filter after CounterCost:\n%s", b)
	}
	var v uint8
	if s.targets.Lookup(uint32(os.Getpid()), &v) == nil {
		t.Error("this process is still a target")
	}
	counts, err := s.TakeCounts()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range counts {
		if c.Tgid == uint32(os.Getpid()) {
			t.Errorf("counts of this process left: %+v", c)
		}
	}
	if _, err := s.CounterCost(0, 1); err == nil {
		t.Error("CounterCost(0, 1): no error")
	}
}
