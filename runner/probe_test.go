package runner

import (
	"context"
	"errors"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/runner/internal/loop"
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/runner/workload"
)

// TestProbeChase: the data working set is one cycle through every cache
// line, so a walk of steps loads reads each line once and ends where it
// began.
func TestProbeChase(t *testing.T) {
	for _, kib := range []int{0, 1, 16, 1024} {
		chase, steps := probeChase(kib)
		if want := uint64(kib * 1024 / probeLine); steps != want {
			t.Fatalf("%d KiB: %d steps, want %d lines", kib, steps, want)
		}
		if steps == 0 {
			if len(chase) == 0 {
				t.Fatalf("%d KiB: empty buffer, the loop needs an address", kib)
			}
			continue
		}
		seen := make([]bool, steps)
		i := uint64(0)
		for range steps {
			if i%(probeLine/8) != 0 || i >= uint64(len(chase)) {
				t.Fatalf("%d KiB: index %d is not a line's first word", kib, i)
			}
			line := i / (probeLine / 8)
			if seen[line] {
				t.Fatalf("%d KiB: line %d visited twice before the cycle closed", kib, line)
			}
			seen[line] = true
			i = chase[i]
		}
		if i != 0 {
			t.Errorf("%d KiB: the walk of %d steps ends at %d, not back at 0", kib, steps, i)
		}
	}
}

// TestProbeLoopRuns calls the probe loop on this (unfiltered) thread with
// a data cycle and, on amd64, the code sled: it returns, and its last
// index is the cycle's start after whole walks.
func TestProbeLoopRuns(t *testing.T) {
	chase, steps := probeChase(64)
	var code uintptr
	if runtime.GOARCH == "amd64" {
		addr, mem, err := probeCode(64)
		if err != nil {
			t.Fatal(err)
		}
		defer runtime.KeepAlive(mem)
		code = addr
	} else if _, _, err := probeCode(64); err == nil {
		t.Errorf("probeCode on %s: no error, want not supported", runtime.GOARCH)
	}
	sink := uint64(1)
	loop.Probe(3, uintptr(nrGetppid), &chase[0], steps, code, &sink)
	if sink != 0 {
		t.Errorf("sink = %d after 3 whole walks, want 0", sink)
	}
}

// TestProbeWorkload runs the probe child: its syscall is really made (a
// filter killing it kills the child), and the working set is really
// touched: the unfiltered time per iteration at 4096 KiB (65,536
// dependent loads) is more than ten times that at 0 KiB (one getppid),
// which no cache or scheduler noise reverses.
func TestProbeWorkload(t *testing.T) {
	skipIfNoSeccomp(t)
	run := func(kib int, p *filters.Program, count int) ([]result.Sample, error) {
		s, err := workload.Probe("getppid", kib, runtime.GOARCH == "amd64")
		if err != nil {
			t.Fatal(err)
		}
		return Run(context.Background(), Config{Programs: []*filters.Program{p}, Counts: []int{count}, Variants: []result.Variant{result.VariantOn},
			Workload: Workload{Spec: s}, Trials: 1, Iterations: 20, Samples: 3, ChildTimeout: 30 * time.Second})
	}
	kill := prog(t, "kill-getppid", allow, [2]uint32{nrGetppid, uint32(filters.ActionKillProcess)})
	_, err := run(16, kill, 1)
	var ce *ChildError
	if !errors.As(err, &ce) || ce.Signal != syscall.SIGSYS {
		t.Fatalf("err = %v, want SIGSYS from the getppid rule", err)
	}
	ns := map[int]float64{}
	for _, kib := range []int{0, 4096} {
		s, err := run(kib, prog(t, "allow", allow), 0)
		if err != nil {
			t.Fatal(err)
		}
		ns[kib] = s[0].NsPerOp
	}
	if ns[4096] < 10*ns[0] {
		t.Errorf("ns per iteration: %.0f at 4096 KiB, %.0f at 0 KiB: the working set was not walked", ns[4096], ns[0])
	}
}
