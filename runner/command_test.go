package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
	"golang.org/x/sys/unix"
)

// commandConfig returns a one-trial command run of argv with an allow-all
// policy at counts.
func commandConfig(t *testing.T, spec CommandSpec, counts []int, progs ...*filters.Program) Config {
	t.Helper()
	w, err := CommandWorkload(spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(progs) == 0 {
		progs = []*filters.Program{prog(t, "allow", allow)}
	}
	return Config{Programs: progs, Counts: counts, Variants: []Variant{VariantOn}, Workload: w, Trials: 1, Seed: 1}
}

// The command really runs under the stack: each run appends the
// Seccomp_filters line of its own /proc/self/status to a file. Warm-up and
// timed runs are counted, and the calibration child (one warm-up run, no
// filters, when R is given) adds one line more at the inherited count.
func TestCommandWorkloadRunsUnderStack(t *testing.T) {
	skipIfNoSeccomp(t)
	out := filepath.Join(t.TempDir(), "status")
	script := "grep '^Seccomp_filters:' /proc/self/status | cut -f2 >> " + out
	cfg := commandConfig(t, CommandSpec{Argv: []string{"sh", "-c", script}, Warmup: 2, Runs: 3}, []int{0, 3})
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
	cfg := commandConfig(t, CommandSpec{Argv: []string{"true"}}, []int{1})
	got, info, err := RunAdaptive(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if info.Runs < MinCommandRuns || info.Runs > MaxCommandRuns || !(info.RunNs > 0) {
		t.Errorf("calibrated R = %d (one run %v ns), want R in [%d, %d]", info.Runs, info.RunNs, MinCommandRuns, MaxCommandRuns)
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
			cfg := commandConfig(t, CommandSpec{Argv: tt.argv, Runs: 2, IgnoreFailure: tt.ignore}, []int{0, 1}, tt.progs...)
			_, err := Run(context.Background(), cfg)
			var ce *ChildError
			var cmdErr *CommandError
			if !errors.As(err, &ce) || !errors.As(err, &cmdErr) || !errors.Is(err, ErrCommandFailed) {
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
		cfg := commandConfig(t, CommandSpec{Argv: []string{"sh", "-c", "exit 3"}, Runs: 2, Warmup: 1, IgnoreFailure: true}, []int{0})
		got, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if c := got[0].Command; c.Failed != 2 || c.FirstFailure == nil || c.FirstFailure.ExitCode != 3 {
			t.Errorf("failed %d, first failure %v; want 2 runs failed with status 3", c.Failed, c.FirstFailure)
		}
	})
	t.Run("prepare fails", func(t *testing.T) {
		cfg := commandConfig(t, CommandSpec{Argv: []string{"true"}, Prepare: "exit 4", Runs: 1, IgnoreFailure: true}, []int{0})
		_, err := Run(context.Background(), cfg)
		var cmdErr *CommandError
		if !errors.As(err, &cmdErr) || cmdErr.Stage != "prepare" || cmdErr.ExitCode != 4 {
			t.Errorf("err = %v, want the prepare command's status 4 even with IgnoreFailure", err)
		}
	})
}

// The prepare command runs before every run, warm-ups included.
func TestCommandWorkloadPrepare(t *testing.T) {
	skipIfNoSeccomp(t)
	out := filepath.Join(t.TempDir(), "prepared")
	cfg := commandConfig(t, CommandSpec{Argv: []string{"true"}, Prepare: "echo x >> " + out, Warmup: 1, Runs: 2}, []int{0, 1})
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

func TestParseSeccompAudit(t *testing.T) {
	tests := []struct {
		line string
		want auditRecord
		ok   bool
	}{
		{`5,812,1321071278,-;audit: type=1326 audit(1796118678.658:43): auid=4294967295 uid=0 gid=0 ses=4294967295 pid=22032 comm="runner.test" exe="/tmp/x" sig=31 arch=c000003e syscall=317 compat=0 ip=0x40ac6e code=0x0` + "\n",
			auditRecord{pid: 22032, syscall: 317, arch: 0xc000003e}, true},
		{`6,813,1,-;audit: type=1400 apparmor="DENIED" pid=1`, auditRecord{}, false},
		{`5,1,1,-;audit: type=1326 pid=7 arch=zz syscall=1`, auditRecord{pid: 7, syscall: 1}, false},
	}
	for _, tt := range tests {
		got, ok := parseSeccompAudit([]byte(tt.line))
		if ok != tt.ok || (ok && got != tt.want) {
			t.Errorf("parseSeccompAudit(%q) = %+v, %v; want %+v, %v", tt.line, got, ok, tt.want, tt.ok)
		}
	}
}

func TestCommandErrorText(t *testing.T) {
	tests := []struct {
		err  CommandError
		want string
	}{
		{CommandError{Stage: "run", Run: 1, ExitCode: 2, Syscall: -1}, "run 2: command exited with status 2"},
		{CommandError{Stage: "run", Run: 1, ExitCode: 2, Syscall: -1, Filters: 3}, "run 2: command exited with status 2 (a syscall the stack denies"},
		{CommandError{Stage: "run", Run: -1, ExitCode: -1, Signal: syscall.SIGSYS, Syscall: 63, AuditArch: filters.AuditArchX86_64, Pid: 9}, "warm-up run 1: command killed by signal SIGSYS (bad system call) after syscall uname (nr 63) in pid 9"},
		{CommandError{Stage: "exec", Run: 0, Errno: syscall.EPERM, Syscall: -1}, "run 1: execve of the command: operation not permitted (the stack may deny execve)"},
		{CommandError{Stage: "install", Run: 0, Errno: syscall.ENOMEM, Filter: 4, Syscall: -1}, "run 1: install filter 5: seccomp(2): cannot allocate memory"},
		{CommandError{Stage: "install", Run: 2, ExitCode: 2, Filter: 3, Syscall: -1}, "run 3: the wrapper ended before execve of the command, with 3 filters installed, exit status 2"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); !strings.HasPrefix(got, tt.want) {
			t.Errorf("Error() = %q, want prefix %q", got, tt.want)
		}
	}
}

// commandSample keeps every run, flags the outlier and takes medians
// (synthetic report, no kernel).
func TestCommandSampleFlagsOutliers(t *testing.T) {
	cr := &commandChildReport{Warmup: 1, Installed: 2, Failed: 1,
		Failure: &runFailure{Stage: "run", Run: 3, ExitCode: 2, Syscall: -1, Filter: -1}}
	walls := []int64{100, 102, 98, 101, 99, 400, 100}
	for i, w := range walls {
		cr.Runs = append(cr.Runs, commandRun{WallNs: w + 50, CmdNs: w, InstallNs: 20 + int64(i), CPUNs: w / 2})
		cr.FilterNs = append(cr.FilterNs, []int64{10 + int64(i), 5})
	}
	var s Sample
	commandSample(&s, cr)
	c := s.Command
	if len(s.SamplesNsPerOp) != len(walls) || len(c.WallNs) != len(walls) || len(c.InstallNs) != len(walls) || len(c.CPUNs) != len(walls) {
		t.Fatalf("runs dropped: %+v", s)
	}
	if !slices.Equal(c.Outliers, []int{5}) {
		t.Errorf("outliers %v, want [5] (400 among ~100)", c.Outliers)
	}
	if want := []int64{13, 5}; !slices.Equal(s.InstallNs, want) {
		t.Errorf("per-filter install %v, want medians %v", s.InstallNs, want)
	}
	if c.Runs != 7 || c.Warmup != 1 || c.Failed != 1 || c.FirstFailure == nil || c.FirstFailure.ExitCode != 2 || c.FirstFailure.Filters != 2 {
		t.Errorf("counts %+v, first failure %+v", c, c.FirstFailure)
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
		for _, v := range []Variant{VariantOn, VariantDefeat} {
			if got := getrusageAllowed([]*filters.Program{tt.p}, Cell{Variant: v, Filters: tt.n}); got != tt.want {
				t.Errorf("%s (%s): got %v, want %v", tt.name, v, got, tt.want)
			}
		}
	}
}
