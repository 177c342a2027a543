package container

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	specs "github.com/opencontainers/runtime-spec/specs-go"
	"golang.org/x/sys/unix"

	"github.com/seccompbench/seccompbench/runner/internal/child"
	"github.com/seccompbench/seccompbench/runner/internal/sys"
	"github.com/seccompbench/seccompbench/runner/result"
)

// decodeStrict decodes a config.json with the OCI runtime-spec types,
// failing on any field they do not have.
func decodeStrict(t *testing.T, path string) *specs.Spec {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var s specs.Spec
	if err := dec.Decode(&s); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &s
}

func testSeccomp() *specs.LinuxSeccomp {
	return &specs.LinuxSeccomp{DefaultAction: specs.ActErrno, Architectures: []specs.Arch{specs.ArchX86_64},
		Syscalls: []specs.LinuxSyscall{{Names: []string{"read", "write"}, Action: specs.ActAllow}}}
}

func TestWriteBundles(t *testing.T) {
	rootfs := t.TempDir()
	argv := []string{"/bin/find", "/tree", "-name", "x"}
	caps := []string{"CAP_KILL"}
	base := NewConfig(rootfs, []string{"/placeholder"}, caps, testSeccomp())
	dir := t.TempDir()
	b, err := WriteBundles(dir, base, "/usr/local/bin/seccompbench")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		bundle      string
		wantSeccomp bool
	}{
		{"with", b.With, true},
		{"without", b.Without, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := decodeStrict(t, filepath.Join(tt.bundle, "config.json"))
			if got.Root.Path != rootfs || !got.Root.Readonly {
				t.Errorf("root %+v, want %s read-only", got.Root, rootfs)
			}
			if !slices.Equal(got.Process.Args, []string{TimerPath}) || !got.Process.NoNewPrivileges || got.Process.Terminal {
				t.Errorf("process args %v no_new_privs %v terminal %v, want [%s], true, false", got.Process.Args, got.Process.NoNewPrivileges, got.Process.Terminal, TimerPath)
			}
			if !slices.Contains(got.Process.Env, child.Env+"="+timerKind) || !slices.Contains(got.Process.Env, base.Process.Env[0]) {
				t.Errorf("process env %v, want the base's and %s=%s", got.Process.Env, child.Env, timerKind)
			}
			last := got.Mounts[len(got.Mounts)-1]
			if len(got.Mounts) != len(base.Mounts)+1 || last.Destination != TimerPath || last.Source != "/usr/local/bin/seccompbench" || !slices.Contains(last.Options, "ro") || last.Type != "bind" {
				t.Errorf("mounts %+v, want the base's and the timer bound read-only at %s last", got.Mounts, TimerPath)
			}
			c := got.Process.Capabilities
			if !slices.Equal(c.Bounding, caps) || !slices.Equal(c.Effective, caps) || !slices.Equal(c.Permitted, caps) || len(c.Inheritable) > 0 || len(c.Ambient) > 0 {
				t.Errorf("capabilities %+v, want %v as bounding, effective and permitted only", c, caps)
			}
			if (got.Linux.Seccomp != nil) != tt.wantSeccomp {
				t.Fatalf("linux.seccomp %v, want present %v", got.Linux.Seccomp, tt.wantSeccomp)
			}
			if tt.wantSeccomp && (got.Linux.Seccomp.DefaultAction != specs.ActErrno || len(got.Linux.Seccomp.Syscalls) != 1) {
				t.Errorf("linux.seccomp %+v, want the base's", got.Linux.Seccomp)
			}
			if len(got.Linux.Namespaces) != 5 {
				t.Errorf("namespaces %v, want pid, ipc, uts, mount, network", got.Linux.Namespaces)
			}
		})
	}
	if base.Linux.Seccomp == nil || base.Process.Args[0] != "/placeholder" || len(base.Mounts) != 2 || len(base.Process.Env) != 1 {
		t.Error("WriteBundles changed its base")
	}
	t.Run("no seccomp", func(t *testing.T) {
		_, err := WriteBundles(t.TempDir(), NewConfig(rootfs, argv, caps, nil), "/x")
		if !errors.Is(err, ErrNoSeccomp) {
			t.Errorf("err = %v, want ErrNoSeccomp", err)
		}
	})
	t.Run("relative root", func(t *testing.T) {
		if _, err := WriteBundles(t.TempDir(), NewConfig("rootfs", argv, caps, testSeccomp()), "/x"); err == nil {
			t.Error("a relative root.path was accepted")
		}
	})
	t.Run("relative timer", func(t *testing.T) {
		if _, err := WriteBundles(t.TempDir(), base, "seccompbench"); err == nil {
			t.Error("a relative timer path was accepted")
		}
	})
}

func TestReadConfig(t *testing.T) {
	dir := t.TempDir()
	cfg := NewConfig("rootfs", []string{"/x"}, nil, testSeccomp())
	b, _ := json.Marshal(cfg)
	if err := os.WriteFile(filepath.Join(dir, "config.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "rootfs"); got.Root.Path != want {
		t.Errorf("root.path %q, want %q (relative to the bundle)", got.Root.Path, want)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"ociVersion": "1.0.2"`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadConfig(dir); err == nil || !strings.Contains(err.Error(), "config.json") {
		t.Errorf("err = %v, want one naming config.json", err)
	}
}

func TestMain(m *testing.M) {
	if child.IsChild() {
		child.Main(TimerChild)
	}
	os.Exit(m.Run())
}

// fakeRuntime writes a shell script that answers --version and, for
// `run --bundle B ID`, appends "B ID" to a log and runs this test binary
// as the timer outside any container (so Seccomp_filters is this
// process's), or exits with the code in B/exit if there is one.
func fakeRuntime(t *testing.T) (path, log string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path, log = filepath.Join(dir, "fakerun"), filepath.Join(dir, "log")
	script := `#!/bin/sh
if [ "$1" = --version ]; then echo "fakerun version 9.9"; echo "spec: 1.0.2"; exit 0; fi
[ "$1" = run ] && [ "$2" = --bundle ] || exit 99
echo "$3 $4" >> ` + log + `
[ -f "$3/exit" ] && { echo "fakerun: container failed" >&2; exit $(cat "$3/exit"); }
` + child.Env + `=` + timerKind + ` GOGC=off exec ` + self + `
`
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path, log
}

// TestMeasureFakeRuntime: every cell is one `RUNTIME run --bundle B ID`
// with a fresh ID, the 0-filter cell on the bundle without seccomp, the
// others on the one with it; the timer inside makes the runs; a failing
// run fails the cell unless IgnoreFailure; a filtered cell whose
// container has no filter and a runtime that fails are errors.
func TestMeasureFakeRuntime(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	if n := sys.ThreadFilters(unix.Gettid()); n != 0 {
		t.Skipf("this test runs under %d seccomp filters", n)
	}
	rt, log := fakeRuntime(t)
	flag := filepath.Join(t.TempDir(), "fail")
	// The command sees the bundle's environment, not the timer's settings.
	argv := []string{"sh", "-c", `test "$SECCOMPBENCH_TEST_VAR" = 1 && test -z "$` + child.Env + `" && { test ! -f ` + flag + ` || exit 3; }`}
	cfg := NewConfig(t.TempDir(), []string{"/x"}, nil, testSeccomp())
	cfg.Process.Env = append(cfg.Process.Env, "SECCOMPBENCH_TEST_VAR=1")
	p, err := Prepare(context.Background(), Spec{Runtime: rt, Config: cfg, Profile: "test"}, argv, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, err := Prepare(context.Background(), Spec{Runtime: rt, Config: NewConfig("/nonexistent/rootfs", nil, nil, testSeccomp())}, []string{"/x"}, t.TempDir()); err == nil || !strings.Contains(err.Error(), "/nonexistent/rootfs") {
		t.Errorf("a missing root file system: err = %v, want one naming it", err)
	}
	if p.Version != "fakerun version 9.9" || !strings.Contains(p.VersionText, "spec: 1.0.2") || p.Name != "fakerun" {
		t.Errorf("version %q (%q), name %q", p.Version, p.VersionText, p.Name)
	}
	cell := func(n int) result.Cell { return result.Cell{Variant: result.VariantOn, Filters: n} }
	s, err := p.Measure(context.Background(), Request{Cell: cell(0), Warmup: 1, Runs: 3})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(log)
	if lines := strings.Fields(string(b)); len(lines) != 2 || lines[0] != p.Bundles.Without {
		t.Errorf("0 filters: runtime calls %q, want one of bundle %s", b, p.Bundles.Without)
	}
	if s.Command == nil || s.Command.Runs != 3 || s.Command.Warmup != 1 || len(s.SamplesNsPerOp) != 3 || len(s.Command.CPUNs) != 3 ||
		!(s.NsPerOp > 0) || s.Filters != 0 || s.FiltersSeen != 0 || !(s.Command.ContainerNs > 0) {
		t.Errorf("0 filters: sample %+v, command %+v", s, s.Command)
	}
	// The fake runtime installs nothing: a filtered cell must say so.
	_, err = p.Measure(context.Background(), Request{Cell: cell(1), Runs: 1})
	if !errors.Is(err, ErrNoFilter) && !strings.Contains(fmt.Sprint(err), ErrNoFilter.Error()) {
		t.Errorf("1 filter, nothing installed: err = %v, want %v", err, ErrNoFilter)
	}
	if err := os.WriteFile(flag, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	req := Request{Cell: cell(0), Runs: 2}
	_, err = p.Measure(context.Background(), req)
	var ce *child.Error
	var cmdErr *result.CommandError
	if !errors.As(err, &ce) || !errors.As(err, &cmdErr) || cmdErr.ExitCode != 3 || cmdErr.Run != 0 {
		t.Errorf("failing run: err = %v, want a child error with a CommandError of exit 3 in run 0", err)
	}
	req.IgnoreFailure = true
	s, err = p.Measure(context.Background(), req)
	if err != nil || s.Command.Failed != 2 || s.Command.FirstFailure == nil || len(s.SamplesNsPerOp) != 2 {
		t.Errorf("--ignore-failure: err %v, sample %+v", err, s.Command)
	}
	req.Warmup = 1
	if _, err = p.Measure(context.Background(), req); !errors.As(err, &cmdErr) || cmdErr.Run != -1 {
		t.Errorf("failing warm-up run with --ignore-failure: err = %v, want run -1 to fail the cell", err)
	}
	if err := os.WriteFile(filepath.Join(p.Bundles.Without, "exit"), []byte("1"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err = p.Measure(context.Background(), Request{Cell: cell(0), Runs: 1}); err == nil || !strings.Contains(err.Error(), "fakerun: container failed") {
		t.Errorf("failing runtime: err = %v, want its standard error", err)
	}
}

// TestMeasureRunc runs a trivial command in real runc containers, with
// and without a seccomp profile, timed by this test binary as the
// container's process: it needs root, runc and a host where runc can
// start containers (internal/vmtest -runtimes runs it in a clean guest
// too). The timer must see runc's one filter and no_new_privs.
func TestMeasureRunc(t *testing.T) {
	rt, err := exec.LookPath("runc")
	if err != nil {
		t.Skip("runc not installed")
	}
	if os.Geteuid() != 0 {
		t.Skip("runc needs root")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// A static test binary would be ideal; the rootfs holds this test
	// binary only when it is static, so probe with a trivial container
	// first and skip when runc cannot start one here.
	rootfs := t.TempDir()
	if out, err := exec.Command("cp", self, filepath.Join(rootfs, "probe")).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v: %s", err, out)
	}
	for _, d := range []string{"proc", "dev"} {
		os.Mkdir(filepath.Join(rootfs, d), 0o755)
	}
	sc := &specs.LinuxSeccomp{DefaultAction: specs.ActAllow, Architectures: []specs.Arch{specs.ArchX86_64, specs.ArchAARCH64},
		Syscalls: []specs.LinuxSyscall{{Names: []string{"kexec_load"}, Action: specs.ActErrno}}}
	p, err := Prepare(context.Background(), Spec{Runtime: rt, Config: NewConfig(rootfs, nil, []string{"CAP_KILL"}, sc), Profile: "test"},
		[]string{"/probe", "-test.run=^$"}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, err := p.Measure(context.Background(), Request{Cell: result.Cell{Variant: result.VariantOn}, Runs: 1, ShowOutput: testing.Verbose()}); err != nil {
		t.Skipf("runc cannot start a container here: %v", err)
	}
	for _, n := range []int{0, 1} {
		s, err := p.Measure(context.Background(), Request{Cell: result.Cell{Variant: result.VariantOn, Filters: n}, Warmup: 1, Runs: 2})
		if err != nil {
			t.Fatalf("%d filters: %v", n, err)
		}
		if s.Command.Runs != 2 || !(s.NsPerOp > 0) || !(s.Command.ContainerNs > 0) || s.FiltersSeen != n {
			t.Errorf("%d filters: filters seen in the container %d, command %+v", n, s.FiltersSeen, s.Command)
		}
	}
	if !strings.HasPrefix(p.Version, "runc version") {
		t.Errorf("version %q, want runc's", p.Version)
	}
}

// TestMeasureInterrupted: a cancelled context (Ctrl-C) ends the container
// at once and comes back as the context's error, not as a failed cell, so
// the run reports an interruption (exit 130).
func TestMeasureInterrupted(t *testing.T) {
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep")
	}
	rt, _ := fakeRuntime(t)
	p, err := Prepare(context.Background(), Spec{Runtime: rt, Config: NewConfig(t.TempDir(), nil, nil, testSeccomp()), Profile: "test"}, []string{"sleep", "5"}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	t0 := time.Now()
	_, err = p.Measure(ctx, Request{Cell: result.Cell{Variant: result.VariantOn}, Runs: 1})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if d := time.Since(t0); d > 3*time.Second {
		t.Errorf("Measure returned %v after the cancel, want at once", d)
	}
}
