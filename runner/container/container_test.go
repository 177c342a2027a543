package container

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	specs "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/seccompbench/seccompbench/runner/internal/child"
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
	b, err := WriteBundles(dir, base, argv)
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
			if !slices.Equal(got.Process.Args, argv) || !got.Process.NoNewPrivileges {
				t.Errorf("process args %v no_new_privs %v, want %v and true", got.Process.Args, got.Process.NoNewPrivileges, argv)
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
	if base.Linux.Seccomp == nil || base.Process.Args[0] != "/placeholder" {
		t.Error("WriteBundles changed its base")
	}
	t.Run("no seccomp", func(t *testing.T) {
		_, err := WriteBundles(t.TempDir(), NewConfig(rootfs, argv, caps, nil), nil)
		if !errors.Is(err, ErrNoSeccomp) {
			t.Errorf("err = %v, want ErrNoSeccomp", err)
		}
	})
	t.Run("relative root", func(t *testing.T) {
		if _, err := WriteBundles(t.TempDir(), NewConfig("rootfs", argv, caps, testSeccomp()), nil); err == nil {
			t.Error("a relative root.path was accepted")
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

// fakeRuntime writes a shell script that answers --version and, for
// `run --bundle B ID`, appends "B ID" to a log and exits with the code in
// B/exit if there is one.
func fakeRuntime(t *testing.T) (path, log string) {
	t.Helper()
	dir := t.TempDir()
	path, log = filepath.Join(dir, "fakerun"), filepath.Join(dir, "log")
	script := `#!/bin/sh
if [ "$1" = --version ]; then echo "fakerun version 9.9"; echo "spec: 1.0.2"; exit 0; fi
[ "$1" = run ] && [ "$2" = --bundle ] || exit 99
echo "$3 $4" >> ` + log + `
[ -f "$3/exit" ] && exit $(cat "$3/exit")
exit 0
`
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path, log
}

// TestMeasureFakeRuntime: every run is one `RUNTIME run --bundle B ID`
// with a fresh ID, the 0-filter cell on the bundle without seccomp, the
// others on the one with it; a failing run fails the cell unless
// IgnoreFailure.
func TestMeasureFakeRuntime(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	rt, log := fakeRuntime(t)
	p, err := Prepare(context.Background(), Spec{Runtime: rt, Config: NewConfig(t.TempDir(), []string{"/x"}, nil, testSeccomp()), Profile: "test"}, []string{"/bin/true"}, t.TempDir())
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
	tests := []struct {
		filters    int
		wantBundle string
	}{{0, p.Bundles.Without}, {1, p.Bundles.With}}
	for _, tt := range tests {
		os.Remove(log)
		s, err := p.Measure(context.Background(), Request{Cell: result.Cell{Variant: result.VariantOn, Filters: tt.filters}, Warmup: 1, Runs: 3})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(log)
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		ids := map[string]bool{}
		for _, l := range lines {
			bundle, id, _ := strings.Cut(l, " ")
			if bundle != tt.wantBundle {
				t.Errorf("%d filters: ran bundle %s, want %s", tt.filters, bundle, tt.wantBundle)
			}
			ids[id] = true
		}
		if len(lines) != 4 || len(ids) != 4 {
			t.Errorf("%d filters: runs %q, want 4 with distinct IDs (1 warm-up, 3 timed)", tt.filters, lines)
		}
		if s.Command == nil || s.Command.Runs != 3 || s.Command.Warmup != 1 || len(s.SamplesNsPerOp) != 3 || !(s.NsPerOp > 0) || s.Filters != tt.filters {
			t.Errorf("%d filters: sample %+v, command %+v", tt.filters, s, s.Command)
		}
	}
	if err := os.WriteFile(filepath.Join(p.Bundles.With, "exit"), []byte("3"), 0o644); err != nil {
		t.Fatal(err)
	}
	req := Request{Cell: result.Cell{Variant: result.VariantOn, Filters: 1}, Runs: 2}
	_, err = p.Measure(context.Background(), req)
	var ce *child.Error
	var cmdErr *result.CommandError
	if !errors.As(err, &ce) || !errors.As(err, &cmdErr) || cmdErr.ExitCode != 3 || cmdErr.Run != 0 {
		t.Errorf("failing run: err = %v, want a child error with a CommandError of exit 3 in run 0", err)
	}
	req.IgnoreFailure = true
	s, err := p.Measure(context.Background(), req)
	if err != nil || s.Command.Failed != 2 || s.Command.FirstFailure == nil {
		t.Errorf("--ignore-failure: err %v, sample %+v", err, s.Command)
	}
}

// TestMeasureRunc runs /bin/true-like work in real runc containers, with
// and without docker-like seccomp: it needs root, runc and a host where
// runc can start containers (not the project's CI host, whose /proc and
// hybrid cgroups make it refuse; internal/vmtest -runtimes runs it for
// real).
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
		if s.Command.Runs != 2 || !(s.NsPerOp > 0) {
			t.Errorf("%d filters: %+v", n, s.Command)
		}
	}
	if !strings.HasPrefix(p.Version, "runc version") {
		t.Errorf("version %q, want runc's", p.Version)
	}
}
