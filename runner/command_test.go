package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/runner/command"
	"github.com/seccompbench/seccompbench/runner/result"
	"golang.org/x/sys/unix"
)

// wrapExitExec is the exit status of runner/command's wrapper when execve
// fails.
const wrapExitExec = 127

// commandConfig returns a one-trial command run of argv with an allow-all
// policy at counts.
func commandConfig(t *testing.T, spec command.Spec, counts []int, progs ...*filters.Program) Config {
	t.Helper()
	w, err := CommandWorkload(spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(progs) == 0 {
		progs = []*filters.Program{prog(t, "allow", allow)}
	}
	return Config{Programs: progs, Counts: counts, Variants: []result.Variant{result.VariantOn}, Workload: w, Trials: 1, Seed: 1}
}

// The command really runs under the stack: each run appends the
// Seccomp_filters line of its own /proc/self/status to a file. Warm-up and
// timed runs are counted, and the calibration child (one warm-up run, no
// filters, when R is given) adds one line more at the inherited count.
func TestCommandWorkloadRunsUnderStack(t *testing.T) {
	skipIfNoSeccomp(t)
	out := filepath.Join(t.TempDir(), "status")
	script := "grep '^Seccomp_filters:' /proc/self/status | cut -f2 >> " + out
	cfg := commandConfig(t, command.Spec{Argv: []string{"sh", "-c", script}, Warmup: 2, Runs: 3}, []int{0, 3})
	got, info, err := RunAdaptive(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if info.Runs != 3 || len(got) != 2 {
		t.Fatalf("info.Runs = %d, %d samples; want 3 and 2", info.Runs, len(got))
	}
	inherited := parentFilters(t)
	for _, s := range got {
		if s.Command == nil {
			t.Fatalf("%s: no command detail", s.Cell)
		}
		if s.Command.Runs != 3 || s.Command.Warmup != 2 || len(s.SamplesNsPerOp) != 3 || len(s.Command.CPUNs) != 3 {
			t.Errorf("%s: runs %d, warm-up %d, %d samples, %d CPU times; want 3, 2, 3, 3", s.Cell, s.Command.Runs, s.Command.Warmup, len(s.SamplesNsPerOp), len(s.Command.CPUNs))
		}
		if len(s.Command.InstallCPUNs) != 3 {
			t.Errorf("%s: %d install CPU times, want 3 (the stack allows getrusage)", s.Cell, len(s.Command.InstallCPUNs))
		}
		if len(s.InstallNs) != s.Filters {
			t.Errorf("%s: %d per-filter install times, want %d", s.Cell, len(s.InstallNs), s.Filters)
		}
		if s.FiltersSeen != inherited+s.Filters {
			t.Errorf("%s: FiltersSeen = %d, want %d", s.Cell, s.FiltersSeen, inherited+s.Filters)
		}
		for i, ns := range s.SamplesNsPerOp {
			if !(ns > 0) || !(s.Command.WallNs[i] > ns) {
				t.Errorf("%s: run %d: %v ns from execve, %v ns in all: want 0 < execve-to-reap < wall", s.Cell, i, ns, s.Command.WallNs[i])
			}
		}
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, l := range strings.Fields(string(b)) {
		count[l]++
	}
	base, stacked := itoa(inherited), itoa(inherited+3)
	// Calibration: 1 run at 0 filters; each cell: 2 warm-up + 3 timed.
	want := map[string]int{base: 1 + 5, stacked: 5}
	if len(count) != len(want) || count[base] != want[base] || count[stacked] != want[stacked] {
		t.Errorf("Seccomp_filters seen by the command's runs: %v, want %v", count, want)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// A calibrated R lies within its bounds and every child makes R runs.
func TestCommandWorkloadCalibratesRuns(t *testing.T) {
	skipIfNoSeccomp(t)
	cfg := commandConfig(t, command.Spec{Argv: []string{"true"}}, []int{1})
	got, info, err := RunAdaptive(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if info.Runs < command.MinRuns || info.Runs > command.MaxRuns || !(info.RunNs > 0) {
		t.Errorf("calibrated R = %d (one run %v ns), want R in [%d, %d]", info.Runs, info.RunNs, command.MinRuns, command.MaxRuns)
	}
	if len(got) != 1 || got[0].Command.Runs != info.Runs {
		t.Errorf("got %d samples, first with %d runs; want 1 with %d", len(got), got[0].Command.Runs, info.Runs)
	}
}

// A command that fails, or is killed, is reported as a cell error that
// names the cell, the run and the status, with the syscall for SIGSYS
// when the kernel logged it; --ignore-failure keeps failing runs.
func TestCommandWorkloadFailures(t *testing.T) {
	skipIfNoSeccomp(t)
	const unameNr, execveNr = 63, 59
	kill := prog(t, "kill-uname", allow, [2]uint32{unameNr, uint32(filters.ActionKillProcess)})
	deny := prog(t, "deny-uname", allow, [2]uint32{unameNr, errno | 1})
	noExec := prog(t, "deny-execve", allow, [2]uint32{execveNr, errno | 1})
	tests := []struct {
		name      string
		argv      []string
		progs     []*filters.Program
		ignore    bool
		wantCell  string
		wantStage string
		wantExit  int
		wantSig   syscall.Signal
		wantErrno syscall.Errno
	}{
		{"exit status", []string{"sh", "-c", "exit 3"}, nil, false, "variant=on filters=0", "run", 3, 0, 0},
		{"killed by the stack", []string{"uname"}, []*filters.Program{kill}, false, "variant=on filters=1", "run", -1, syscall.SIGSYS, 0},
		{"denied with an errno", []string{"uname"}, []*filters.Program{deny}, false, "variant=on filters=1", "run", 1, 0, 0},
		{"execve denied", []string{"true"}, []*filters.Program{noExec}, false, "variant=on filters=1", "exec", wrapExitExec, 0, syscall.EPERM},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := commandConfig(t, command.Spec{Argv: tt.argv, Runs: 2, IgnoreFailure: tt.ignore}, []int{0, 1}, tt.progs...)
			_, err := Run(context.Background(), cfg)
			var ce *ChildError
			var cmdErr *result.CommandError
			if !errors.As(err, &ce) || !errors.As(err, &cmdErr) || !errors.Is(err, result.ErrCommandFailed) {
				t.Fatalf("err = %v, want a *ChildError caused by a *CommandError", err)
			}
			t.Log(err)
			if !strings.Contains(err.Error(), tt.wantCell) {
				t.Errorf("error %q does not name the cell %q", err, tt.wantCell)
			}
			if cmdErr.Stage != tt.wantStage || cmdErr.ExitCode != tt.wantExit || cmdErr.Signal != tt.wantSig || cmdErr.Errno != tt.wantErrno {
				t.Errorf("got stage %q exit %d signal %v errno %v, want %q %d %v %v (%v)", cmdErr.Stage, cmdErr.ExitCode, cmdErr.Signal, cmdErr.Errno,
					tt.wantStage, tt.wantExit, tt.wantSig, tt.wantErrno, err)
			}
			if tt.wantSig == syscall.SIGSYS && cmdErr.Syscall != -1 && cmdErr.Syscall != unameNr {
				t.Errorf("audit record names syscall %d, want %d (uname) or none", cmdErr.Syscall, unameNr)
			}
		})
	}
	t.Run("ignore failure", func(t *testing.T) {
		cfg := commandConfig(t, command.Spec{Argv: []string{"sh", "-c", "exit 3"}, Runs: 2, Warmup: 1, IgnoreFailure: true}, []int{0})
		got, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if c := got[0].Command; c.Failed != 2 || c.FirstFailure == nil || c.FirstFailure.ExitCode != 3 {
			t.Errorf("failed %d, first failure %v; want 2 runs failed with status 3", c.Failed, c.FirstFailure)
		}
	})
	t.Run("prepare fails", func(t *testing.T) {
		cfg := commandConfig(t, command.Spec{Argv: []string{"true"}, Prepare: "exit 4", Runs: 1, IgnoreFailure: true}, []int{0})
		_, err := Run(context.Background(), cfg)
		var cmdErr *result.CommandError
		if !errors.As(err, &cmdErr) || cmdErr.Stage != "prepare" || cmdErr.ExitCode != 4 {
			t.Errorf("err = %v, want the prepare command's status 4 even with IgnoreFailure", err)
		}
	})
}

// The prepare command runs before every run, warm-ups included.
func TestCommandWorkloadPrepare(t *testing.T) {
	skipIfNoSeccomp(t)
	out := filepath.Join(t.TempDir(), "prepared")
	cfg := commandConfig(t, command.Spec{Argv: []string{"true"}, Prepare: "echo x >> " + out, Warmup: 1, Runs: 2}, []int{0, 1})
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	// Calibration: 1 run; two cells of 1 warm-up + 2 runs.
	if got, want := strings.Count(string(b), "x"), 1+2*3; got != want {
		t.Errorf("prepare ran %d times, want %d", got, want)
	}
}

func TestGetrusageAllowed(t *testing.T) {
	// The native number: 98 on x86_64, 165 on arm64. A hard-coded 98 made
	// the "denied" and "killed" cases deny another call on arm64, where
	// getrusage then stayed allowed and the test failed in the VM.
	const getrusageNr = uint32(unix.SYS_GETRUSAGE)
	tests := []struct {
		name string
		p    *filters.Program
		n    int
		want bool
	}{
		{"no filters", prog(t, "kill-all", uint32(filters.ActionKillProcess)), 0, true},
		{"allow all", prog(t, "allow", allow), 2, true},
		{"denied", prog(t, "deny", allow, [2]uint32{getrusageNr, errno | 1}), 2, false},
		{"killed", prog(t, "kill", allow, [2]uint32{getrusageNr, uint32(filters.ActionKillProcess)}), 1, false},
	}
	for _, tt := range tests {
		for _, v := range []result.Variant{result.VariantOn, result.VariantDefeat} {
			if got := getrusageAllowed([]*filters.Program{tt.p}, result.Cell{Variant: v, Filters: tt.n}); got != tt.want {
				t.Errorf("%s (%s): got %v, want %v", tt.name, v, got, tt.want)
			}
		}
	}
}

// AroundChild brackets every child of the blocks, and only them: the
// hook's marks and the command's own lines interleave child by child, and
// the calibration child (before the first block) is not bracketed.
func TestAroundChildBracketsEachChild(t *testing.T) {
	skipIfNoSeccomp(t)
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh(1) in PATH (the kernel matrix's guests carry only the test binaries)")
	}
	out := filepath.Join(t.TempDir(), "log")
	appendLine := func(s string) {
		f, err := os.OpenFile(out, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Error(err)
			return
		}
		defer f.Close()
		f.WriteString(s + "\n")
	}
	cfg := commandConfig(t, command.Spec{Argv: []string{"sh", "-c", "echo run >> " + out}, Warmup: 1, Runs: 2}, []int{0, 2})
	cfg.Trials = 2
	cfg.AroundChild = func(b int, c result.Cell) func() {
		appendLine(fmt.Sprintf("before %d %d", b, c.Filters))
		return func() { appendLine("after") }
	}
	got, _, err := RunAdaptive(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	// One calibration run, then per child: before, 3 runs, after.
	if len(lines) != 1+len(got)*5 || lines[0] != "run" {
		t.Fatalf("log has %d lines for %d children, want 1 + 5 each:\n%s", len(lines), len(got), b)
	}
	for i, s := range got {
		chunk := lines[1+5*i : 6+5*i]
		want := []string{fmt.Sprintf("before %d %d", s.Block, s.Filters), "run", "run", "run", "after"}
		if !slices.Equal(chunk, want) {
			t.Errorf("child %d (%s, block %d): %q, want %q", i, s.Cell, s.Block, chunk, want)
		}
	}
}
