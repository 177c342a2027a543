package container

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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

	dir     string // holds Bundles
	seq     int    // container IDs made
	noPivot bool   // Spec.NoPivot
}

// Prepare resolves s's runtime, reads its version and writes the two
// bundles of the command argv into a new temporary directory under tmp
// ("" for the default). The caller must Close the result.
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
	dir, err := os.MkdirTemp(tmp, "seccompbench-bundles-")
	if err != nil {
		return nil, fmt.Errorf("container bundles: %w", err)
	}
	b, err := WriteBundles(dir, base, argv)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return &Prepared{Path: path, Name: filepath.Base(path), Version: first, VersionText: text,
		Bundles: b, Profile: s.Profile, dir: dir, noPivot: s.NoPivot}, nil
}

// Close removes the bundles Prepare wrote (not the root file system).
func (p *Prepared) Close() error { return os.RemoveAll(p.dir) }

// Request is one cell's share of runs: Warmup untimed runs, then Runs
// timed ones, each a fresh container.
type Request struct {
	// Cell is the cell measured; Filters 0 runs Bundles.Without, any
	// other count Bundles.With.
	Cell result.Cell
	// Warmup and Runs are the untimed and timed runs.
	Warmup, Runs int
	// Timeout bounds all of them (0: child.MinTimeout per run).
	Timeout time.Duration
	// IgnoreFailure keeps a timed run that exits non-zero (counted in
	// CommandSample.Failed) instead of failing the cell.
	IgnoreFailure bool
	// ShowOutput sends the runtime's and the command's output to this
	// process's standard error instead of /dev/null.
	ShowOutput bool
}

// Measure makes req's runs of `RUNTIME run --bundle B ID`, each timed
// from fork to reaping by wait4(2), whose rusage gives the CPU time of
// the runtime and of the container it waited for. It runs in this
// process: the runtime, not this program, sets up the container's
// privileges, no_new_privs and filter, so there is nothing to isolate.
// A run that fails (without IgnoreFailure) gives a *child.Error naming
// the cell whose Cause is a *result.CommandError.
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
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cs := &result.CommandSample{}
	s := result.Sample{Cell: c, FiltersSeen: -1, CPU: -1}
	for i := -req.Warmup; i < req.Runs; i++ {
		wall, cpu, f, err := p.run(ctx, bundle, req.ShowOutput)
		if err != nil {
			return result.Sample{}, &child.Error{Cell: c, Reason: err.Error(), ExitCode: -1}
		}
		if f != nil {
			f.Run = i
			if i < 0 {
				f.Run = -1 - (i + req.Warmup) // warm-up run k is -1-k
			}
			if cs.FirstFailure == nil {
				cs.FirstFailure = f
			}
			if i < 0 || !req.IgnoreFailure {
				return result.Sample{}, &child.Error{Cell: c, Reason: fmt.Sprintf("%s run --bundle %s: %v", p.Name, bundle, f),
					ExitCode: f.ExitCode, Signal: f.Signal, Cause: f}
			}
			cs.Failed++
		}
		if i < 0 {
			cs.Warmup++
			continue
		}
		cs.Runs++
		cs.WallNs = append(cs.WallNs, wall)
		cs.CPUNs = append(cs.CPUNs, cpu)
		s.SamplesNsPerOp = append(s.SamplesNsPerOp, wall)
	}
	cs.Outliers = stats.Outliers(s.SamplesNsPerOp, 0)
	s.Command = cs
	s.NsPerOp = stats.Median(s.SamplesNsPerOp)
	s.Copies = []result.Copy{{CPU: -1, NsPerOp: s.NsPerOp}}
	return s, nil
}

// run makes one run: `RUNTIME run --bundle bundle ID` with a fresh ID,
// and returns its wall and CPU time in ns and, if it did not exit 0, what
// happened. A runtime killed at the deadline leaves its container: it is
// deleted (`RUNTIME delete --force ID`).
func (p *Prepared) run(ctx context.Context, bundle string, show bool) (wallNs, cpuNs float64, f *result.CommandError, err error) {
	p.seq++
	id := fmt.Sprintf("seccompbench-%d-%d", os.Getpid(), p.seq)
	args := []string{"run", "--bundle", bundle, id}
	if p.noPivot {
		args = []string{"run", "--no-pivot", "--bundle", bundle, id}
	}
	cmd := exec.CommandContext(ctx, p.Path, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if show {
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	}
	t0 := sys.Nanotime()
	if err := cmd.Start(); err != nil {
		return 0, 0, nil, fmt.Errorf("start %s: %w", p.Name, err)
	}
	werr := cmd.Wait()
	t1 := sys.Nanotime()
	ps := cmd.ProcessState
	if ps == nil {
		return 0, 0, nil, fmt.Errorf("wait for %s: %w", p.Name, werr)
	}
	if ctx.Err() != nil {
		exec.Command(p.Path, "delete", "--force", id).Run()
		return 0, 0, nil, fmt.Errorf("%s run: %w", p.Name, ctx.Err())
	}
	cpu := ps.UserTime() + ps.SystemTime()
	ws, _ := ps.Sys().(syscall.WaitStatus)
	if ws.Exited() && ws.ExitStatus() == 0 {
		return float64(t1 - t0), float64(cpu.Nanoseconds()), nil, nil
	}
	f = &result.CommandError{Stage: "run", ExitCode: ws.ExitStatus(), Filter: -1, Syscall: -1, Pid: ps.Pid()}
	if ws.Signaled() {
		f.ExitCode, f.Signal = -1, ws.Signal()
	}
	return float64(t1 - t0), float64(cpu.Nanoseconds()), f, nil
}
