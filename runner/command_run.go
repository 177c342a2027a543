package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/stats"
)

// calibrationTimeout is the deadline of the command workload's calibration
// child when Config.ChildTimeout is not set: the command's duration is not
// known yet.
const calibrationTimeout = 10 * time.Minute

// setupCommand prepares cfg for the command workload before the first
// child: it copies the spec (the caller's stays unchanged), resolves
// Argv[0] in the command's PATH, fills Env, and calibrates: one child
// without filters makes one warm-up run and up to three timed ones, which
// checks that the command exits 0 and measures one run's whole cost; R
// (Runs, when 0) is then TargetChild over that, within [MinCommandRuns,
// MaxCommandRuns] and lowered so that two blocks fit in cfg.MaxTime. It
// returns the measured wall time of one run in ns.
func setupCommand(ctx context.Context, cfg *Config) (float64, error) {
	cs := *cfg.Workload.Command
	cfg.Workload.Command = &cs
	if cfg.Parallel > 1 {
		return 0, errors.New("command workload: parallel copies are not supported: run one copy")
	}
	if len(cs.Argv) == 0 {
		return 0, errors.New("command workload: no command")
	}
	if cs.Env == nil {
		cs.Env = os.Environ()
	}
	path, err := lookPathIn(cs.Argv[0], cs.Env)
	if err != nil {
		return 0, fmt.Errorf("command workload: %w", err)
	}
	cs.path = path
	if cs.TargetChild <= 0 {
		cs.TargetChild = DefaultTargetChild
	}
	cal := *cfg
	calSpec := cs
	calSpec.Warmup = 1
	calSpec.Runs = 3
	if cs.Runs > 0 {
		calSpec.Warmup, calSpec.Runs = 0, 1
	}
	cal.Workload.Command = &calSpec
	if cal.ChildTimeout == 0 {
		cal.ChildTimeout = calibrationTimeout
	}
	s, err := runCommandCopy(ctx, cal, Cell{Variant: VariantOn, Filters: 0}, nil)
	if err != nil {
		return 0, fmt.Errorf("calibrate: %w", err)
	}
	runNs := stats.Median(s.Command.WallNs)
	if !(runNs > 0) {
		return 0, fmt.Errorf("calibrate: measured %v ns per run", runNs)
	}
	if cs.Runs == 0 {
		r := int(math.Round(float64(cs.TargetChild) / runNs))
		r = min(max(r, MinCommandRuns), MaxCommandRuns)
		if cfg.MaxTime > 0 {
			cells := float64(len(cfg.Counts) * len(cfg.Variants))
			fit := int(float64(cfg.MaxTime)/(minCommandBlocks*cells*runNs)) - cs.Warmup
			r = min(r, max(fit, 1))
		}
		cs.Runs = r
	} else if ns := float64(cs.Warmup+cs.Runs) * runNs; ns > float64(MaxChildWork) {
		return 0, fmt.Errorf("%w: %d runs (+%d warm-up) at %.3g s each is about %.3g s per child, over %v; lower --runs",
			ErrTooMuchWork, cs.Runs, cs.Warmup, runNs/1e9, ns/1e9, MaxChildWork)
	}
	return runNs, nil
}

// lookPathIn resolves file as execvp(3) would in env's PATH (a name with a
// slash is taken as is) and returns an absolute path.
func lookPathIn(file string, env []string) (string, error) {
	if strings.Contains(file, "/") {
		p, err := exec.LookPath(file)
		if err != nil {
			return "", err
		}
		return filepath.Abs(p)
	}
	pathEnv := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathEnv = v
		}
	}
	for _, dir := range filepath.SplitList(pathEnv) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, file)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return filepath.Abs(p)
		}
	}
	return "", fmt.Errorf("command %q not found in PATH %q", file, pathEnv)
}

// runCommandCopy runs one child of the command workload for cell c with the
// given stack and converts its report into a Sample. A run that fails
// (without IgnoreFailure) gives a *ChildError naming the cell whose Cause
// is the *CommandError.
func runCommandCopy(ctx context.Context, cfg Config, c Cell, stack [][]byte) (Sample, error) {
	cs := cfg.Workload.Command
	spec := childSpec{
		Workload: "command",
		Filters:  stack,
		CPU:      -1,
		Command: &commandChildSpec{Path: cs.path, Argv: cs.Argv, Env: cs.Env, Prepare: cs.Prepare,
			Warmup: cs.Warmup, Runs: cs.Runs, IgnoreFailure: cs.IgnoreFailure, ShowOutput: cs.ShowOutput,
			CPUAfter: getrusageAllowed(cfg.Programs, c)},
	}
	if cfg.SpecAllow {
		spec.Flags |= seccompFlagSpecAllow
	}
	rep, _, err := execChild(ctx, cfg.ChildTimeout, c, spec)
	if err != nil {
		var ce *ChildError
		if errors.As(err, &ce) && rep.Command != nil && rep.Command.Failure != nil {
			f := rep.Command.Failure.err()
			f.Filters = len(stack)
			ce.Reason = fmt.Sprintf("command %s: %v", quoteArgv(cs.Argv), f)
			ce.Cause = f
			ce.Errno = f.Errno
		}
		return Sample{}, err
	}
	cr := rep.Command
	if cr == nil {
		return Sample{}, &ChildError{Cell: c, Reason: "the command child sent no command report"}
	}
	if len(cr.Runs) != cs.Runs || cr.Warmup != cs.Warmup {
		return Sample{}, &ChildError{Cell: c, Reason: fmt.Sprintf("made %d runs after %d warm-up runs, want %d after %d", len(cr.Runs), cr.Warmup, cs.Runs, cs.Warmup)}
	}
	if cr.Installed != len(stack) {
		return Sample{}, &ChildError{Cell: c, Reason: fmt.Sprintf("the wrapper installed %d filters, want %d", cr.Installed, len(stack))}
	}
	s := Sample{Cell: c, FiltersSeen: rep.FiltersAfter, CPU: -1}
	commandSample(&s, cr)
	s.NsPerOp = stats.Median(s.SamplesNsPerOp)
	s.Copies = []Copy{{CPU: -1, NsPerOp: s.NsPerOp}}
	return s, nil
}

// quoteArgv renders argv for messages, quoting words with spaces.
func quoteArgv(argv []string) string {
	q := slices.Clone(argv)
	for i, a := range q {
		if a == "" || strings.ContainsAny(a, " \t\n'\"") {
			q[i] = fmt.Sprintf("%q", a)
		}
	}
	return "`" + strings.Join(q, " ") + "`"
}

// getrusageAllowed reports whether the stack of cell c allows
// getrusage(RUSAGE_SELF) on this architecture, by emulating it
// (filters.EmulateStack; the action cache does not change verdicts). The
// wrapper then reads its CPU time after installing.
func getrusageAllowed(progs []*filters.Program, c Cell) bool {
	if c.Filters == 0 {
		return true
	}
	arch, err := filters.LookupArch(runtime.GOARCH)
	if err != nil {
		return false
	}
	st, err := StackFor(progs, c)
	if err != nil {
		return false
	}
	r, err := filters.EmulateStack(st, arch.Data(unix.SYS_GETRUSAGE, unix.RUSAGE_SELF))
	return err == nil && r.Action == filters.ActionAllow
}
