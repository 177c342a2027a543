package estimate

import (
	"context"
	"os"
	"testing"
	"time"

	"golang.org/x/net/bpf"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/internal/kstack"
	"github.com/seccompbench/seccompbench/internal/testutils"
	"github.com/seccompbench/seccompbench/runner"
	"github.com/seccompbench/seccompbench/runner/live"
	"github.com/seccompbench/seccompbench/runner/result"
)

// TestMain lets the runner's children (the command workload's timing
// child and wrapper) run from this test binary.
func TestMain(m *testing.M) {
	if runner.IsChild() {
		runner.ChildMain()
	}
	os.Exit(m.Run())
}

// shReadLoop makes about five syscalls per iteration in the shell itself
// (open, dup, read, close of the redirection): a syscall-dense program.
const shReadLoop = `i=0; while [ $i -lt 3000 ]; do read x < /dev/null; i=$((i+1)); done`

// TestDirectRealKernel measures a /bin/sh loop with the command workload
// under 32 allow-all filters with the action cache defeated, sampling as
// estimate --command does: the sampler, given only this process, must
// follow the timing child, the wrapper and the shell, and find seccomp
// samples in the stacked cell's runs. Skips name the missing capability
// or kernel fact.
func TestDirectRealKernel(t *testing.T) {
	if err := live.FollowPrereqs(); err != nil {
		t.Skip(err)
	}
	testutils.SkipOnOldKernel(t, "5.15", "bpf_task_pt_regs")
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	raw, err := bpf.Assemble([]bpf.Instruction{bpf.LoadAbsolute{Off: filters.OffsetNr, Size: 4}, bpf.RetConstant{Val: uint32(filters.ActionAllow)}})
	if err != nil {
		t.Fatal(err)
	}
	base := []*filters.Program{{Name: "allow", Insns: raw}}
	src, classify, err := openLiveDirect(499)
	testutils.SkipIfNotSupported(t, err, live.ErrNotSupported, "5.15", "BPF sampling with fork following")
	opts := &Options{Trials: 2, Confidence: 0.95, Seed: 1, DirectFrequency: 499, MaxTime: time.Minute,
		OpenDirect: func(int) (DirectSource, func(*kstack.Sample) kstack.Verdict, error) { return src, classify, nil }}
	ds, why := startDirect(opts)
	if ds == nil {
		t.Fatalf("startDirect: %s", why)
	}
	defer ds.src.Close()
	samples, _, err := commandSamples(context.Background(), opts, []string{"/bin/sh", "-c", shReadLoop}, nil, base, result.VariantDefeat, 32, 0, ds.around)
	if err != nil {
		t.Fatal(err)
	}
	if ds.err != nil {
		t.Fatalf("sampling: %v", ds.err)
	}
	b, x := ds.tally(samples, 32)
	t.Logf("baseline %+v, stacked %+v, lost %d", b, x, ds.src.Lost())
	if x.Runs == 0 || b.Runs == 0 {
		t.Fatalf("no sampled runs: baseline %d, stacked %d", b.Runs, x.Runs)
	}
	if x.Samples < 20 {
		t.Fatalf("%d samples of the stacked cell's processes at 499 Hz: the sampler does not follow the command", x.Samples)
	}
	if x.Seccomp == 0 || x.Seccomp <= b.Seccomp {
		t.Errorf("%d seccomp samples under 32 defeated filters against %d without: want more under the stack", x.Seccomp, b.Seccomp)
	}
}
