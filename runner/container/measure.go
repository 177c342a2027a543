package container

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	specs "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/seccompbench/seccompbench/runner/internal/child"
	"github.com/seccompbench/seccompbench/runner/internal/sys"
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/stats"
)

// Spec is the runtime path of the command workload: which runtime runs
// the command, and the bundle it runs.
type Spec struct {
	// Runtime is the OCI runtime's binary, a name looked up in PATH
	// ("runc", "crun") or a path.
	Runtime string
	// Bundle is a bundle directory whose config.json is the template of
	// both bundles (WriteBundles); "" when Config is given.
	Bundle string
	// Config is the template itself (NewConfig, from --rootfs and the
	// policy); nil when Bundle is given.
	Config *specs.Spec
	// Profile names the seccomp profile for the report, e.g.
	// "docker-default".
	Profile string
	// NoPivot passes --no-pivot to `RUNTIME run` (runc and crun): the
	// root file system is entered with chroot(2) instead of
	// pivot_root(2), which fails when it lives on the initramfs.
	NoPivot bool
}

// Check returns an error for a spec without a runtime or with neither
// or both of Bundle and Config.
func (s Spec) Check() error {
	if s.Runtime == "" {
		return errors.New("container: no runtime: give --container-runtime runc or crun")
	}
	if (s.Bundle == "") == (s.Config == nil) {
		return errors.New("container: give exactly one of --bundle DIR and --rootfs DIR")
	}
	return nil
}

// Prepared is a Spec ready to measure: the runtime resolved and its
// version read, the two bundles written. Close removes the bundles.
type Prepared struct {
	// Path is the runtime's binary, resolved; Name its base name.
	Path, Name string
	// Version is the first line of `RUNTIME --version`, e.g. "runc
	// version 1.1.5+ds1"; VersionText the whole output.
	Version, VersionText string
	// Bundles are the bundles every run uses.
	Bundles Bundles
	// Profile is Spec.Profile.
	Profile string

	argv, env []string // the command and its environment
	dir       string   // holds Bundles
	seq       int      // container IDs made
	noPivot   bool     // Spec.NoPivot
}

// Prepare resolves s's runtime, reads its version and writes the two
// bundles into a new temporary directory under tmp ("" for the default),
// with this binary as the timer of the command argv (the bundle's
// process.args when argv is empty). The binary must run inside the
// container's root file system: the default build is static. The caller
// must Close the result.
func Prepare(ctx context.Context, s Spec, argv []string, tmp string) (*Prepared, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	path, err := exec.LookPath(s.Runtime)
	if err != nil {
		return nil, fmt.Errorf("container runtime: %w (install it, e.g. apt-get install runc crun)", err)
	}
	if path, err = filepath.Abs(path); err != nil {
		return nil, fmt.Errorf("container runtime: %w", err)
	}
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		return nil, fmt.Errorf("container runtime: %s --version: %w", path, err)
	}
	text := strings.TrimSpace(string(out))
	first, _, _ := strings.Cut(text, "\n")
	base := s.Config
	if base == nil {
		if base, err = ReadConfig(s.Bundle); err != nil {
			return nil, err
		}
	}
	if fi, err := os.Stat(base.Root.Path); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("container root file system %s is not a directory", base.Root.Path)
	}
	if len(argv) == 0 {
		argv = base.Process.Args
	}
	if len(argv) == 0 {
		return nil, errors.New("container: no command: give one after -- or process.args in config.json")
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("container timer: find own executable: %w", err)
	}
	dir, err := os.MkdirTemp(tmp, "seccompbench-bundles-")
	if err != nil {
		return nil, fmt.Errorf("container bundles: %w", err)
	}
	b, err := WriteBundles(dir, base, self)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return &Prepared{Path: path, Name: filepath.Base(path), Version: first, VersionText: text,
		Bundles: b, Profile: s.Profile, argv: slices.Clone(argv), env: slices.Clone(base.Process.Env), dir: dir, noPivot: s.NoPivot}, nil
}

// Close removes the bundles Prepare wrote (not the root file system).
func (p *Prepared) Close() error { return os.RemoveAll(p.dir) }

// Request is one cell's share of runs: one container whose timer makes
// Warmup untimed runs, then Runs timed ones, each a new process.
type Request struct {
	// Cell is the cell measured; Filters 0 runs Bundles.Without, any
	// other count Bundles.With.
	Cell result.Cell
	// Warmup and Runs are the untimed and timed runs.
	Warmup, Runs int
	// Timeout bounds the container (0: child.MinTimeout per run).
	Timeout time.Duration
	// IgnoreFailure keeps a timed run that exits non-zero (counted in
	// CommandSample.Failed) instead of failing the cell.
	IgnoreFailure bool
	// ShowOutput sends the runtime's and the command's output to this
	// process's standard error instead of discarding it.
	ShowOutput bool
}

// ErrNoFilter is returned (wrapped in the cell's *child.Error) when the
// container of a filtered cell reports Seccomp_filters 0: the runtime
// installed nothing from linux.seccomp.
var ErrNoFilter = errors.New("the runtime installed no seccomp filter")

// Measure starts one container for req, `RUNTIME run --bundle B ID`,
// whose process is the timer (TimerChild): the runtime has set up the
// container's namespaces, privileges, no_new_privs and filter, and the
// timer runs the command req.Warmup+req.Runs times, each from fork to
// reaping by wait4(2), whose rusage gives the command's CPU time. The
// container's start and the runtime's work on linux.seccomp (decoding,
// compiling, installing) are outside every run: CommandSample.ContainerNs
// holds them. A run that fails (without IgnoreFailure) gives a
// *child.Error naming the cell whose Cause is a *result.CommandError.
func (p *Prepared) Measure(ctx context.Context, req Request) (result.Sample, error) {
	c := req.Cell
	bundle := p.Bundles.With
	if c.Filters == 0 {
		bundle = p.Bundles.Without
	}
	timeout := req.Timeout
	if timeout <= 0 {
		timeout = time.Duration(req.Warmup+req.Runs) * child.MinTimeout
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	fail := func(reason string, f *result.CommandError) (result.Sample, error) {
		if err := parent.Err(); err != nil {
			// Interrupted (Ctrl-C): the caller's error, as child.Run gives.
			return result.Sample{}, err
		}
		e := &child.Error{Cell: c, Reason: reason, ExitCode: -1}
		if f != nil {
			e.ExitCode, e.Signal, e.Cause = f.ExitCode, f.Signal, f
		}
		return result.Sample{}, e
	}
	spec, _ := json.Marshal(timerSpec{Argv: p.argv, Env: p.env, Warmup: req.Warmup, Runs: req.Runs,
		IgnoreFailure: req.IgnoreFailure, ShowOutput: req.ShowOutput})
	rep, wall, err := p.run(ctx, bundle, spec, req.ShowOutput)
	if err != nil {
		return fail(err.Error(), nil)
	}
	if c.Filters > 0 && rep.Filters == 0 {
		return fail(fmt.Sprintf("%s run --bundle %s: %v (Seccomp_filters 0 in the container)", p.Name, bundle, ErrNoFilter), nil)
	}
	cs := &result.CommandSample{Warmup: len(rep.Warmup)}
	s := result.Sample{Cell: c, FiltersSeen: rep.Filters, CPU: -1}
	inside := 0.0
	for k, r := range append(rep.Warmup, rep.Runs...) {
		inside += float64(r.WallNs)
		i := k - len(rep.Warmup) // warm-up run k is -1-k, as in the command workload
		if i < 0 {
			i = -1 - k
		}
		if r.ExitCode != 0 || r.Signal != 0 {
			f := &result.CommandError{Stage: "run", Run: i, ExitCode: r.ExitCode, Signal: syscall.Signal(r.Signal), Filter: -1, Syscall: -1}
			if cs.FirstFailure == nil {
				cs.FirstFailure = f
			}
			if i < 0 || !req.IgnoreFailure {
				return fail(fmt.Sprintf("%s run --bundle %s: %v", p.Name, bundle, f), f)
			}
			cs.Failed++
		}
		if i >= 0 {
			cs.WallNs = append(cs.WallNs, float64(r.WallNs))
			cs.CPUNs = append(cs.CPUNs, float64(r.CPUNs))
			s.SamplesNsPerOp = append(s.SamplesNsPerOp, float64(r.WallNs))
		}
	}
	if cs.Runs = len(rep.Runs); cs.Runs != req.Runs || cs.Warmup != req.Warmup {
		return fail(fmt.Sprintf("the timer in the container made %d warm-up and %d timed runs, want %d and %d", cs.Warmup, cs.Runs, req.Warmup, req.Runs), nil)
	}
	cs.ContainerNs = wall - inside
	cs.Outliers = stats.Outliers(s.SamplesNsPerOp, 0)
	s.Command = cs
	s.NsPerOp = stats.Median(s.SamplesNsPerOp)
	s.Copies = []result.Copy{{CPU: -1, NsPerOp: s.NsPerOp}}
	return s, nil
}

// run starts one container, `RUNTIME run --bundle bundle ID` with a fresh
// ID and spec on its standard input, and returns the timer's report and
// the container's whole wall time in ns, fork of the runtime to its
// reaping. A runtime that fails, or a timer that reports no runs, is an
// error with the runtime's standard error or the timer's message. A
// runtime killed at the deadline leaves its container: it is deleted
// (`RUNTIME delete --force ID`).
func (p *Prepared) run(ctx context.Context, bundle string, spec []byte, show bool) (timerReport, float64, error) {
	var rep timerReport
	p.seq++
	id := fmt.Sprintf("seccompbench-%d-%d", os.Getpid(), p.seq)
	args := []string{"run", "--bundle", bundle, id}
	if p.noPivot {
		args = []string{"run", "--no-pivot", "--bundle", bundle, id}
	}
	cmd := exec.CommandContext(ctx, p.Path, args...)
	// Its own process group, as child.Run's children: a Ctrl-C on the
	// terminal reaches only this process, which cancels ctx and kills
	// the runtime (the container is then deleted below).
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	cmd.Stdin = bytes.NewReader(spec)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if show {
		cmd.Stderr = io.MultiWriter(&stderr, os.Stderr)
	}
	t0 := sys.Nanotime()
	err := cmd.Run()
	wall := float64(sys.Nanotime() - t0)
	if ctx.Err() != nil {
		exec.Command(p.Path, "delete", "--force", id).Run()
		return rep, 0, fmt.Errorf("%s run: %w", p.Name, ctx.Err())
	}
	line := lastLine(stdout.Bytes())
	if jerr := json.Unmarshal(line, &rep); jerr != nil || (rep.Runs == nil && rep.Warmup == nil && rep.Err == "") {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 2000 {
			msg = msg[:2000] + "…"
		}
		if err == nil {
			err = errors.New("no report from the timer")
		}
		hint := ""
		if strings.Contains(msg, TimerPath) || strings.Contains(msg, "shared object") || strings.Contains(msg, "exec format") {
			hint = fmt.Sprintf(" (the timer is this binary at %s in the container: it must run in the container's root file system, as the static default build does; build with CGO_ENABLED=0)", TimerPath)
		}
		return rep, 0, fmt.Errorf("%s run --bundle %s: %v: %s%s", p.Name, bundle, err, msg, hint)
	}
	if rep.Err != "" {
		return rep, 0, fmt.Errorf("%s run --bundle %s: %s", p.Name, bundle, rep.Err)
	}
	return rep, wall, nil
}

// lastLine is the last non-empty line of b.
func lastLine(b []byte) []byte {
	b = bytes.TrimSpace(b)
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		b = b[i+1:]
	}
	return b
}

// SeccompWork estimates the runtime's work on linux.seccomp once per
// container (decoding and compiling the profile, seccomp(2)) from the
// samples of one variant: the containers' time outside their runs
// (result.CommandSample.ContainerNs) with the profile (filters > 0) minus
// without (filters 0), a bootstrap interval of the difference of medians
// (stats.RobustDiff), in ns. Too few containers give NaN bounds.
func SeccompWork(samples []result.Sample, variant result.Variant, confidence float64, seed uint64) stats.Estimate {
	var without, with []float64
	for _, s := range samples {
		if s.Command == nil || s.Variant != variant {
			continue
		}
		if s.Filters == 0 {
			without = append(without, s.Command.ContainerNs)
		} else {
			with = append(with, s.Command.ContainerNs)
		}
	}
	return stats.DiffEstimate(stats.RobustDiff(without, with, confidence, seed))
}
