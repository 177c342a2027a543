// Package container is the command workload's runtime path: every child
// is a container an OCI runtime (runc, crun) starts, `RUNTIME run --bundle
// DIR ID`, so the container's filter is the one the runtime compiles from
// config.json's linux.seccomp and installs itself, with the runtime's own
// privilege when it loads it and the no_new_privs state config.json asks
// for. The container's process is this binary as a timer (TimerChild),
// which runs the command R times under that stack and times each run from
// fork to reaping; the container's start is outside the runs and measured
// apart. A cell with 0 filters runs the same bundle without
// linux.seccomp. See docs/methodology-command.md, section 14, "Measuring inside a
// container".
package container

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// ErrNoSeccomp is returned by WriteBundles when the bundle's config.json
// has no linux.seccomp: its filtered cells would measure no filter.
var ErrNoSeccomp = errors.New("config.json has no linux.seccomp")

// ociVersion is the ociVersion NewConfig writes: crun 1.8.1 refuses any
// but 1.0.x ("unknown version specified"), and nothing here needs a later
// one.
const ociVersion = "1.0.2"

// NewConfig returns the config.json of a bundle that runs argv in rootfs
// (an absolute directory) under seccomp sc (nil: none): no_new_privs set,
// caps as bounding, effective and permitted set (the set sc was resolved
// against, so that the runtime's filter is the one modelled), its own PID, IPC, UTS, mount and network namespaces,
// /proc and a tmpfs /dev mounted, the root file system read-only, user
// and group 0, PATH the usual one.
func NewConfig(rootfs string, argv, caps []string, sc *specs.LinuxSeccomp) *specs.Spec {
	caps = slices.Clone(caps)
	return &specs.Spec{
		Version: ociVersion,
		Root:    &specs.Root{Path: rootfs, Readonly: true},
		Process: &specs.Process{
			Args:            slices.Clone(argv),
			Env:             []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
			Cwd:             "/",
			NoNewPrivileges: true,
			Capabilities:    &specs.LinuxCapabilities{Bounding: caps, Effective: caps, Permitted: caps},
		},
		Hostname: "seccompbench",
		Mounts: []specs.Mount{
			{Destination: "/proc", Type: "proc", Source: "proc", Options: []string{"nosuid", "noexec", "nodev"}},
			{Destination: "/dev", Type: "tmpfs", Source: "tmpfs", Options: []string{"nosuid", "strictatime", "mode=755", "size=65536k"}},
		},
		Linux: &specs.Linux{
			Namespaces: []specs.LinuxNamespace{
				{Type: specs.PIDNamespace}, {Type: specs.IPCNamespace}, {Type: specs.UTSNamespace},
				{Type: specs.MountNamespace}, {Type: specs.NetworkNamespace},
			},
			Seccomp: sc,
		},
	}
}

// ReadConfig reads and decodes DIR/config.json of a bundle, with a root
// path made absolute (relative paths are relative to the bundle, OCI
// runtime-spec config.md "root"). Errors name the file.
func ReadConfig(dir string) (*specs.Spec, error) {
	path := filepath.Join(dir, "config.json")
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read bundle config: %w", err)
	}
	var s specs.Spec
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("decode %s: %w", path, err)
	}
	if s.Root == nil || s.Root.Path == "" {
		return nil, fmt.Errorf("%s: no root.path", path)
	}
	if s.Process == nil {
		return nil, fmt.Errorf("%s: no process", path)
	}
	if !filepath.IsAbs(s.Root.Path) {
		abs, err := filepath.Abs(filepath.Join(dir, s.Root.Path))
		if err != nil {
			return nil, fmt.Errorf("%s: root.path: %w", path, err)
		}
		s.Root.Path = abs
	}
	return &s, nil
}

// Bundles are the two bundles of one measurement: With runs the command
// under the config's linux.seccomp, Without the same config without it
// (the 0-filter cells).
type Bundles struct {
	With, Without string
}

// WriteBundles writes the two bundles of base into dir (dir/seccomp and
// dir/none, each with only a config.json; root.path must be absolute, so
// both use base's root file system). Their process is the timer: timer
// (this binary's path on the host) bind-mounted read-only at TimerPath,
// process.args [TimerPath], process.env base's plus the child settings
// (timerEnv); the command itself reaches the timer on standard input.
// It returns ErrNoSeccomp (wrapped) when base has no linux.seccomp. base
// is not changed.
func WriteBundles(dir string, base *specs.Spec, timer string) (Bundles, error) {
	if base.Linux == nil || base.Linux.Seccomp == nil {
		return Bundles{}, fmt.Errorf("write bundles: %w: give a profile (or --rootfs to write one from the policy)", ErrNoSeccomp)
	}
	if base.Root == nil || !filepath.IsAbs(base.Root.Path) {
		return Bundles{}, errors.New("write bundles: root.path must be an absolute directory")
	}
	if !filepath.IsAbs(timer) {
		return Bundles{}, fmt.Errorf("write bundles: timer %q is not an absolute path", timer)
	}
	b := Bundles{With: filepath.Join(dir, "seccomp"), Without: filepath.Join(dir, "none")}
	with := *base
	proc := *base.Process
	proc.Args = []string{TimerPath}
	proc.Env = timerEnv(base.Process.Env)
	proc.Terminal = false
	with.Process = &proc
	with.Mounts = append(slices.Clone(base.Mounts), specs.Mount{Destination: TimerPath, Type: "bind", Source: timer,
		Options: []string{"bind", "ro", "nosuid", "nodev"}})
	without := with
	lin := *base.Linux
	lin.Seccomp = nil
	without.Linux = &lin
	for _, w := range []struct {
		dir  string
		spec *specs.Spec
	}{{b.With, &with}, {b.Without, &without}} {
		data, err := json.MarshalIndent(w.spec, "", "\t")
		if err != nil {
			return Bundles{}, fmt.Errorf("encode config.json: %w", err)
		}
		if err := os.MkdirAll(w.dir, 0o755); err != nil {
			return Bundles{}, fmt.Errorf("write bundles: %w", err)
		}
		if err := os.WriteFile(filepath.Join(w.dir, "config.json"), data, 0o644); err != nil {
			return Bundles{}, fmt.Errorf("write bundles: %w", err)
		}
	}
	return b, nil
}
