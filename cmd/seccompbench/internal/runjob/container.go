package runjob

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	mobyseccomp "github.com/moby/profiles/seccomp"
	specs "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/filters/oci"
	"github.com/seccompbench/seccompbench/runner"
	"github.com/seccompbench/seccompbench/runner/container"
)

// ContainerFlags are the flags of the command workload's runtime path:
// each run of the command is a container an OCI runtime starts.
type ContainerFlags struct {
	// Bundle is --bundle: a bundle whose config.json is the template.
	Bundle string
	// Rootfs is --rootfs: write config.json from the policy instead, with
	// this root file system.
	Rootfs string
	// RuntimeBin is --runtime-bin: the runtime's binary, overriding the
	// one --runtime names.
	RuntimeBin string
}

// addContainerFlags adds the runtime path's flags to run's flag set.
func addContainerFlags(fs interface {
	StringVar(p *string, name, value, usage string)
}, cf *ContainerFlags) {
	fs.StringVar(&cf.Bundle, "bundle", "", "command workload: run every run of the command in a container of the OCI bundle `DIR` (its config.json's process.args become the command; 0-filter cells run it without linux.seccomp), started by --runtime (runc or crun)")
	fs.StringVar(&cf.Rootfs, "rootfs", "", "command workload: like --bundle, with config.json written from the OCI profile POLICY and root file system `DIR` (no_new_privs, the --caps set, read-only root)")
	fs.StringVar(&cf.RuntimeBin, "runtime-bin", "", "with --bundle or --rootfs: the runtime's binary `PATH` (default: runc for --runtime runc and runc-1.1, crun for crun, from PATH)")
}

// runtimeBinary is the binary that runs --runtime r's containers.
func runtimeBinary(r oci.Runtime) string {
	if r == oci.RuntimeCrun {
		return "crun"
	}
	return "runc"
}

// parseContainer applies --bundle, --rootfs and --runtime-bin: with
// either of the first two, the command workload becomes the runtime
// path (runner.ContainerWorkload). Its cells are 0 filters (no
// linux.seccomp) and 1 (the runtime's filter); the action cache cannot
// be defeated and the loader is the runtime's, so --cache, --loader,
// --prepare and --parallel are refused.
func (j *Job) parseContainer(fl *Flags, policies []string, changed func(string) bool) error {
	cf := &fl.Container
	if cf.Bundle == "" && cf.Rootfs == "" {
		if cf.RuntimeBin != "" {
			return cmdutil.FlagErrorf("--runtime-bin: needs --bundle or --rootfs")
		}
		return nil
	}
	if j.Workload.Command == nil {
		return cmdutil.FlagErrorf("--bundle and --rootfs need --workload command and a command after --")
	}
	if cf.Bundle != "" && cf.Rootfs != "" {
		return cmdutil.FlagErrorf("--bundle and --rootfs exclude each other")
	}
	for _, f := range []string{"cache", "loader", "prepare", "parallel", "pid", "systemd-unit", "systemd", "spec-allow", "pad"} {
		if changed(f) {
			return cmdutil.FlagErrorf("--%s: not with --bundle or --rootfs (the runtime loads its own filter)", f)
		}
	}
	j.Cache = "on"
	if !changed("filters") {
		j.Counts = []int{0, 1}
	}
	if !slices.Equal(j.Counts, []int{0, 1}) {
		return cmdutil.FlagErrorf("--filters: with --bundle or --rootfs the counts are 0,1 (without and with the runtime's filter), not %v", j.Counts)
	}
	if len(policies) != 1 {
		return cmdutil.FlagErrorf("--bundle, --rootfs: give exactly one POLICY, the OCI profile the container runs under, e.g. docker-default")
	}
	ct := container.Spec{Runtime: cf.RuntimeBin, Bundle: cf.Bundle, Profile: policies[0]}
	if ct.Runtime == "" {
		ct.Runtime = runtimeBinary(j.OCI.Runtime)
	}
	if cf.Rootfs != "" {
		cfg, err := rootfsConfig(cf.Rootfs, policies[0], fl.Command.Argv, j.OCI)
		if err != nil {
			return &cmdutil.FlagError{Err: fmt.Errorf("--rootfs: %w", err)}
		}
		ct.Config = cfg
	}
	w, err := runner.ContainerWorkload(*j.Workload.Command, ct)
	if err != nil {
		return &cmdutil.FlagError{Err: err}
	}
	j.Workload = w
	return nil
}

// rootfsConfig writes the config.json template of --rootfs: policy's
// OCI profile resolved as Docker does (moby/profiles/seccomp LoadProfile:
// includes and excludes on the --caps set, which is also the container's
// capability set) as linux.seccomp, argv as process.args.
func rootfsConfig(rootfs, policy string, argv []string, o oci.Options) (*specs.Spec, error) {
	abs, err := filepath.Abs(rootfs)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", rootfs)
	}
	var body []byte
	if policy == oci.DockerDefaultName {
		if body, err = oci.DockerDefaultJSON(); err != nil {
			return nil, err
		}
	} else if body, err = os.ReadFile(policy); err != nil {
		return nil, err
	}
	caps := o.Caps
	if caps == nil {
		caps = oci.DockerDefaultCaps
	}
	rs := &specs.Spec{Process: &specs.Process{Capabilities: &specs.LinuxCapabilities{Bounding: caps}}}
	sc, err := mobyseccomp.LoadProfile(string(body), rs)
	if err != nil {
		return nil, fmt.Errorf("resolve OCI profile %s: %w", policy, err)
	}
	return container.NewConfig(abs, argv, caps, sc), nil
}
