package runner

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/bpf"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/runner/cpulock"
	"github.com/seccompbench/seccompbench/runner/internal/fixture"
	"github.com/seccompbench/seccompbench/runner/internal/sys"
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/runner/workload"
)

func TestMain(m *testing.M) {
	maybeRunProbeChild()
	maybeRunPathLimitChild()
	if IsChild() {
		ChildMain()
	}
	maybeRunLockHelper()
	os.Exit(m.Run())
}

// prog assembles a test filter: ld [nr]; for each (nr, ret): jeq nr -> ret;
// final ret def.
func prog(t *testing.T, name string, def uint32, rules ...[2]uint32) *filters.Program {
	t.Helper()
	ins := []bpf.Instruction{bpf.LoadAbsolute{Off: filters.OffsetNr, Size: 4}}
	for _, r := range rules {
		ins = append(ins, bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: r[0], SkipTrue: 1}, bpf.RetConstant{Val: r[1]})
	}
	ins = append(ins, bpf.RetConstant{Val: def})
	raw, err := bpf.Assemble(ins)
	if err != nil {
		t.Fatal(err)
	}
	return &filters.Program{Name: name, Insns: raw}
}

const (
	allow = uint32(filters.ActionAllow)
	errno = uint32(filters.ActionErrno)
)

func skipIfNoSeccomp(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc")
	}
}

func TestRunInstallsStack(t *testing.T) {
	skipIfNoSeccomp(t)
	p := prog(t, "allow", allow)
	cfg := Config{
		Programs: []*filters.Program{p}, Counts: []int{0, 1, 3}, Variants: []result.Variant{result.VariantOn, result.VariantDefeat},
		Workload: loops("mix"), Trials: 2, Seed: 1, Iterations: 200, Samples: 2, ControlIters: 1000,
	}
	got, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 12 {
		t.Fatalf("got %d samples, want 12", len(got))
	}
	// Children inherit the filters of the parent thread that forked them:
	// none here, unless the test process runs under a filter itself. (The
	// parent's /proc/self/status is no reference: another test may leave a
	// filter on the main thread, which never forks.) So the 0-filter
	// children give the inherited count.
	inherited := -1
	for _, s := range got {
		if s.Filters == 0 {
			inherited = s.FiltersSeen
		}
	}
	for _, s := range got {
		if s.FiltersSeen >= 0 && s.FiltersSeen != s.Filters+inherited {
			t.Errorf("%s: Seccomp_filters = %d, want %d + %d inherited", s.Cell, s.FiltersSeen, s.Filters, inherited)
		}
		if len(s.InstallNs) != s.Filters {
			t.Errorf("%s: %d install timings, want %d", s.Cell, len(s.InstallNs), s.Filters)
		}
		if !(s.NsPerOp > 0) || !(s.ControlBeforeNs > 0) || !(s.ControlAfterNs > 0) {
			t.Errorf("%s: non-positive timings %+v", s.Cell, s)
		}
		// Paired by default: the child timed its own baseline with
		// as many samples before installing.
		if len(s.BaselineSamplesNsPerOp) != cfg.Samples || !(s.BaselineNsPerOp > 0) {
			t.Errorf("%s: paired baseline %v from %d samples, want > 0 from %d", s.Cell, s.BaselineNsPerOp, len(s.BaselineSamplesNsPerOp), cfg.Samples)
		}
	}
	cfg.Unpaired, cfg.Counts, cfg.Variants, cfg.Trials = true, []int{0, 1}, []result.Variant{result.VariantOn}, 1
	got, err = Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range got {
		if s.BaselineNsPerOp != 0 || s.BaselineSamplesNsPerOp != nil {
			t.Errorf("%s: unpaired child reports baseline %v (%d samples)", s.Cell, s.BaselineNsPerOp, len(s.BaselineSamplesNsPerOp))
		}
	}
}

func parentFilters(t *testing.T) int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	st, err := sys.ParseProcStatus(b)
	if err != nil {
		t.Fatal(err)
	}
	return max(st.SeccompFilters, 0)
}

// A policy that denies write, futex, exit and exit_group on the measuring
// thread must still return results: they travel through another thread.
func TestRunHostilePolicyStillReports(t *testing.T) {
	skipIfNoSeccomp(t)
	deny := errno | 1
	p := prog(t, "deny-harness", allow,
		[2]uint32{nrWrite, deny},
		[2]uint32{nrFutex, deny},
		[2]uint32{nrExit, deny},
		[2]uint32{nrExitGroup, deny},
		[2]uint32{nrMmap, deny},
	)
	cfg := Config{Programs: []*filters.Program{p}, Counts: []int{2}, Variants: []result.Variant{result.VariantOn},
		Workload: loops("getpid"), Trials: 1, Iterations: 100, Samples: 2, ChildTimeout: 20 * time.Second}
	got, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !(got[0].NsPerOp > 0) {
		t.Fatalf("got %+v", got)
	}
}

func TestRunReportsKilledChild(t *testing.T) {
	skipIfNoSeccomp(t)
	p := prog(t, "kill-getpid", allow, [2]uint32{nrGetpid, uint32(filters.ActionKillProcess)})
	cfg := Config{Programs: []*filters.Program{p}, Counts: []int{1}, Variants: []result.Variant{result.VariantOn},
		Workload: loops("getpid"), Trials: 1, Iterations: 10, Samples: 1}
	_, err := Run(context.Background(), cfg)
	var ce *ChildError
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v, want *ChildError", err)
	}
	if ce.Signal != syscall.SIGSYS || ce.Cell.Filters != 1 {
		t.Errorf("got signal %v cell %v, want SIGSYS at filters=1", ce.Signal, ce.Cell)
	}
}

// TestProcStatusSeccompFields: the seccomp fields the child, the
// environment and the support probe read through parseProcStatus.
func TestProcStatusSeccompFields(t *testing.T) {
	tests := []struct {
		name       string
		in         string
		filt, mode int
	}{
		{"both", "Name:\tx\nSeccomp:\t2\nSeccomp_filters:\t7\n", 7, 2},
		{"old kernel", "Seccomp:\t0\n", -1, 0},
		{"none", "Name:\tx\n", -1, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := sys.ParseProcStatus([]byte(tt.in))
			f, m := st.SeccompFilters, st.SeccompMode
			if err != nil || f != tt.filt || m != tt.mode {
				t.Errorf("got %d %d %v, want %d %d", f, m, err, tt.filt, tt.mode)
			}
		})
	}
}

func TestScheduleBlocksHoldEveryCellOnce(t *testing.T) {
	counts := []int{0, 1, 2, 4}
	vs := []result.Variant{result.VariantOn, result.VariantDefeat}
	a := Schedule(counts, vs, 5, 7)
	b := Schedule(counts, vs, 5, 7)
	differs := false
	for i, blk := range a {
		seen := map[result.Cell]int{}
		for j, c := range blk {
			seen[c]++
			if b[i][j] != c {
				t.Fatal("same seed gave different schedules")
			}
			if i > 0 && a[0][j] != c {
				differs = true
			}
		}
		if len(seen) != 8 {
			t.Errorf("block %d has %d distinct cells, want 8", i, len(seen))
		}
		for c, n := range seen {
			if n != 1 {
				t.Errorf("block %d has %s %d times", i, c, n)
			}
		}
	}
	if !differs {
		t.Error("blocks are not shuffled differently")
	}
}

func TestExecWorkloadsReallyExec(t *testing.T) {
	skipIfNoSeccomp(t)
	p := prog(t, "allow", allow)
	for _, w := range []Workload{Workload{Spec: workload.Exec()}, Workload{Spec: workload.ExecvpeMiss(4)}} {
		t.Run(w.Name, func(t *testing.T) {
			// A private TMPDIR: other processes on the machine make
			// and remove fixtures of their own meanwhile.
			t.Setenv("TMPDIR", t.TempDir())
			before, _ := filepath.Glob(filepath.Join(os.TempDir(), "seccompbench-exec-*"))
			cfg := Config{Programs: []*filters.Program{p}, Counts: []int{0, 2}, Variants: []result.Variant{result.VariantOn},
				Workload: w, Trials: 1, Iterations: 5, Samples: 2}
			got, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			// runCell checks that every exec ran the program to exit(0);
			// here: results exist and the fixture is gone.
			if len(got) != 2 || !(got[0].NsPerOp > 0) {
				t.Fatalf("got %+v", got)
			}
			after, _ := filepath.Glob(filepath.Join(os.TempDir(), "seccompbench-exec-*"))
			if len(after) > len(before) {
				t.Errorf("temporary exec fixtures left behind: %v", after)
			}
		})
	}
}

// A filter that makes execve fail must be reported, not averaged in.
func TestExecWorkloadDeniedExecReported(t *testing.T) {
	skipIfNoSeccomp(t)
	p := prog(t, "deny-execve", allow, [2]uint32{nrExecve, errno | 13})
	cfg := Config{Programs: []*filters.Program{p}, Counts: []int{1}, Variants: []result.Variant{result.VariantOn},
		Workload: Workload{Spec: workload.Exec()}, Trials: 1, Iterations: 3, Samples: 1}
	_, err := Run(context.Background(), cfg)
	var ce *ChildError
	if !errors.As(err, &ce) || !strings.Contains(ce.Reason, "execs ran the program") {
		t.Fatalf("err = %v, want a ChildError about execs", err)
	}
}

func TestMinimalELFRuns(t *testing.T) {
	fx, err := fixture.New(1)
	if err != nil {
		t.Fatal(err)
	}
	defer fx.Close()
	if err := exec.Command(fx.Paths[0]).Run(); err != nil {
		t.Fatalf("minimal ELF: %v", err)
	}
}

func TestSyscallWorkload(t *testing.T) {
	tests := []struct {
		spec    string
		want    [4]int64
		wantErr string
	}{
		{"getppid", [4]int64{nrGetppid, 0, 0, 0}, ""},
		{"read", [4]int64{nrRead, -1, 0, 0}, ""},
		{"read:-2,0,0", [4]int64{nrRead, -2, 0, 0}, ""},
		{"umask:0x12", [4]int64{nrUmask, 0x12, 0, 0}, ""},
		{"openat", [4]int64{nrOpenat, -100, 0, 0}, ""},
		{"reboot", [4]int64{}, "not on the safe list"},
		{"read:x", [4]int64{}, "not an integer"},
		{"openat:-100,5", [4]int64{}, "fixed path"},
		{"read:1,2,3,4", [4]int64{}, "at most 3"},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			s, err := workload.Syscall(tt.spec)
			w := s
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || w.Syscall != tt.want {
				t.Errorf("got %v %v, want %v", w.Syscall, err, tt.want)
			}
		})
	}
}

// The syscall loop really makes the syscall: a filter returning a chosen
// errno for it leaves the loop running (errno path) and a kill action for
// it kills the child.
func TestSyscallWorkloadRunsThatSyscall(t *testing.T) {
	skipIfNoSeccomp(t)
	s, err := workload.Syscall("openat")
	w := Workload{Spec: s}
	if err != nil {
		t.Fatal(err)
	}
	p := prog(t, "kill-openat", allow, [2]uint32{nrOpenat, uint32(filters.ActionKillProcess)})
	_, err = Run(context.Background(), Config{Programs: []*filters.Program{p}, Counts: []int{1}, Variants: []result.Variant{result.VariantOn},
		Workload: w, Trials: 1, Iterations: 3, Samples: 1})
	var ce *ChildError
	if !errors.As(err, &ce) || ce.Signal != syscall.SIGSYS {
		t.Fatalf("err = %v, want SIGSYS from the openat rule", err)
	}
}

func TestRunAdaptiveStops(t *testing.T) {
	skipIfNoSeccomp(t)
	p := prog(t, "allow", allow)
	base := Config{Programs: []*filters.Program{p}, Counts: []int{0, 1}, Variants: []result.Variant{result.VariantOn},
		Workload: loops("getpid"), Trials: 2, Iterations: 50, Samples: 1}
	tests := []struct {
		name       string
		maxTrials  int
		stopAfter  int // Stop returns true once this many samples exist
		wantBlocks int
		wantReason result.StopReason
	}{
		{"fixed trials", 0, -1, 2, result.StopTrials},
		{"target reached", 10, 6, 3, result.StopPrecision},
		{"target never reached", 4, 1 << 30, 4, result.StopMaxTrials},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := base
			cfg.MaxTrials = tt.maxTrials
			if tt.stopAfter >= 0 {
				cfg.Stop = func(s []result.Sample) bool { return len(s) >= tt.stopAfter }
			}
			got, info, err := RunAdaptive(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if info.Blocks != tt.wantBlocks || info.StopReason != tt.wantReason || len(got) != 2*tt.wantBlocks {
				t.Errorf("blocks %d reason %q samples %d; want %d %q %d", info.Blocks, info.StopReason, len(got), tt.wantBlocks, tt.wantReason, 2*tt.wantBlocks)
			}
		})
	}
}

func TestParallelCopiesOnDistinctCPUs(t *testing.T) {
	skipIfNoSeccomp(t)
	if len(cpulock.AllowedCPUs()) < 2 {
		t.Skip("needs 2 allowed CPUs")
	}
	p := prog(t, "allow", allow)
	got, err := Run(context.Background(), Config{Programs: []*filters.Program{p}, Counts: []int{1}, Variants: []result.Variant{result.VariantOn},
		Workload: loops("getpid"), Trials: 1, Iterations: 100, Samples: 1, CPU: cpulock.HighestCPU(), Parallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	cs := got[0].Copies
	if len(cs) != 2 || cs[0].CPU == cs[1].CPU || cs[0].CPU < 0 || cs[1].CPU < 0 {
		t.Errorf("copies %+v, want 2 on distinct CPUs", cs)
	}
}

// A child that does not report by its deadline is killed and reported with
// its cell; the parent does not hang.
func TestRunKillsHungChild(t *testing.T) {
	skipIfNoSeccomp(t)
	p := prog(t, "allow", allow)
	start := time.Now()
	_, err := Run(context.Background(), Config{Programs: []*filters.Program{p}, Counts: []int{1}, Variants: []result.Variant{result.VariantDefeat},
		Workload: loops("getpid"), Trials: 1, Iterations: 1 << 40, Samples: 1, ChildTimeout: 300 * time.Millisecond})
	var ce *ChildError
	if !errors.As(err, &ce) || !strings.Contains(ce.Reason, "no report within") || ce.Cell.Filters != 1 {
		t.Fatalf("err = %v, want a hung-child ChildError for filters=1", err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("took %v to give up on a 300ms deadline", el)
	}
}

// Cancelling the context kills the running child and returns what was
// gathered with the context's error.
func TestRunCancelKillsChild(t *testing.T) {
	skipIfNoSeccomp(t)
	p := prog(t, "allow", allow)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	// An explicit ChildTimeout skips calibration and its work bound, so
	// the child really runs until the context ends.
	_, err := Run(ctx, Config{Programs: []*filters.Program{p}, Counts: []int{1}, Variants: []result.Variant{result.VariantOn},
		Workload: loops("getpid"), Trials: 1, Iterations: 1 << 40, Samples: 1, ChildTimeout: time.Minute})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded", err)
	}
}

// Iterations that would keep a child busy for hours are refused after
// calibration, before any measuring child starts.
func TestRunRefusesTooMuchWork(t *testing.T) {
	skipIfNoSeccomp(t)
	p := prog(t, "allow", allow)
	start := time.Now()
	_, err := Run(context.Background(), Config{Programs: []*filters.Program{p}, Counts: []int{1}, Variants: []result.Variant{result.VariantOn},
		Workload: loops("getpid"), Trials: 1, Iterations: 1 << 40, Samples: 1})
	if !errors.Is(err, ErrTooMuchWork) || !strings.Contains(err.Error(), "per child, over 5m0s") {
		t.Fatalf("err = %v, want ErrTooMuchWork naming the bound", err)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("took %v to refuse", el)
	}
}
