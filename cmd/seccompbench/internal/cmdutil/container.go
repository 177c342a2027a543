package cmdutil

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	mobyseccomp "github.com/moby/profiles/seccomp"
	specs "github.com/opencontainers/runtime-spec/specs-go"
	"github.com/spf13/pflag"

	"github.com/seccompbench/seccompbench/filters/oci"
	"github.com/seccompbench/seccompbench/runner/container"
)

// ContainerFlags are the flags of the command workload's runtime path
// (run --workload command, estimate --command): each run of the command
// is a container an OCI runtime starts.
type ContainerFlags struct {
	// Bundle is --bundle: a bundle whose config.json is the template.
	Bundle string
	// Rootfs is --rootfs: write config.json from the policy instead, with
	// this root file system.
	Rootfs string
	// RuntimeBin is --runtime-bin: the runtime's binary, overriding the
	// one --runtime names.
	RuntimeBin string
	// NoPivot is --no-pivot (container.Spec.NoPivot).
	NoPivot bool
}

// AddContainerFlags adds --bundle, --rootfs and --runtime-bin to fs.
func AddContainerFlags(fs *pflag.FlagSet, cf *ContainerFlags) {
	fs.StringVar(&cf.Bundle, "bundle", "", "command workload: run every run of the command in a container of the OCI bundle `DIR` (the command after -- replaces its config.json's process.args; its linux.seccomp must be POLICY as --caps resolves it; 0-filter cells run it without linux.seccomp), started by --runtime (runc or crun)")
	fs.StringVar(&cf.Rootfs, "rootfs", "", "command workload: like --bundle, with config.json written from the OCI profile POLICY and root file system `DIR` (no_new_privs, the --caps set, read-only root)")
	fs.BoolVar(&cf.NoPivot, "no-pivot", false, "with --bundle or --rootfs: pass --no-pivot to `RUNTIME run` (a root file system on an initramfs, where pivot_root(2) fails)")
	fs.StringVar(&cf.RuntimeBin, "runtime-bin", "", "with --bundle or --rootfs: the runtime's binary `PATH` (default: runc for --runtime runc and runc-1.1, crun for crun, from PATH)")
}

// Set reports whether --bundle or --rootfs was given.
func (cf *ContainerFlags) Set() bool { return cf.Bundle != "" || cf.Rootfs != "" }

// Spec returns the runtime path's container.Spec for the one policy (its
// name or file) and the command argv, with o's runtime (--runtime) and
// capabilities (--caps); nil without --bundle and --rootfs. Errors are
// *FlagError naming the flag.
func (cf *ContainerFlags) Spec(policies, argv []string, o oci.Options) (*container.Spec, error) {
	if !cf.Set() {
		if cf.RuntimeBin != "" || cf.NoPivot {
			return nil, FlagErrorf("--runtime-bin and --no-pivot: need --bundle or --rootfs")
		}
		return nil, nil
	}
	if cf.Bundle != "" && cf.Rootfs != "" {
		return nil, FlagErrorf("--bundle and --rootfs exclude each other")
	}
	if len(argv) == 0 {
		return nil, FlagErrorf("--bundle and --rootfs measure a command: give it after --")
	}
	if len(policies) != 1 {
		return nil, FlagErrorf("--bundle, --rootfs: give exactly one POLICY, the OCI profile the container runs under, e.g. docker-default")
	}
	ct := &container.Spec{Runtime: cf.RuntimeBin, Bundle: cf.Bundle, Profile: policies[0], NoPivot: cf.NoPivot}
	if ct.Runtime == "" {
		ct.Runtime = runtimeBinary(o.Runtime)
	}
	if cf.Rootfs != "" {
		cfg, err := rootfsConfig(cf.Rootfs, policies[0], argv, o)
		if err != nil {
			return nil, &FlagError{Err: fmt.Errorf("--rootfs: %w", err)}
		}
		ct.Config = cfg
	}
	if cf.Bundle != "" {
		if err := bundleMatches(cf.Bundle, policies[0], o); err != nil {
			return nil, &FlagError{Err: fmt.Errorf("--bundle: %w", err)}
		}
	}
	return ct, nil
}

// bundleMatches checks that the bundle's linux.seccomp is policy resolved
// as --rootfs would write it (same --caps): the runtime loads the
// bundle's profile, while the report and every analysis name POLICY, so
// the two must be one profile. Both are compared as JSON.
func bundleMatches(bundle, policy string, o oci.Options) error {
	cfg, err := container.ReadConfig(bundle)
	if err != nil {
		return err
	}
	want, err := rootfsConfig("/", policy, []string{"/x"}, o)
	if err != nil {
		return err
	}
	if cfg.Linux == nil || cfg.Linux.Seccomp == nil {
		return fmt.Errorf("%s/config.json has no linux.seccomp: the 1-filter cells would run without a filter", bundle)
	}
	got, _ := json.Marshal(cfg.Linux.Seccomp)
	exp, _ := json.Marshal(want.Linux.Seccomp)
	if !bytes.Equal(got, exp) {
		return fmt.Errorf("%s/config.json's linux.seccomp is not %s resolved with the --caps set (%d rules against %d): give the profile the bundle was written from as POLICY, with the container's capabilities as --caps",
			bundle, policy, len(cfg.Linux.Seccomp.Syscalls), len(want.Linux.Seccomp.Syscalls))
	}
	return nil
}

// runtimeBinary is the binary that runs --runtime r's containers.
func runtimeBinary(r oci.Runtime) string {
	if r == oci.RuntimeCrun {
		return "crun"
	}
	return "runc"
}

// rootfsConfig builds the config.json template of --rootfs (whose
// directory container.Prepare checks when the run starts): policy's OCI
// profile resolved as Docker resolves it (moby/profiles/seccomp
// LoadProfile: includes and excludes on the --caps set, which is also the
// container's capability set) as linux.seccomp, argv as process.args.
func rootfsConfig(rootfs, policy string, argv []string, o oci.Options) (*specs.Spec, error) {
	abs, err := filepath.Abs(rootfs)
	if err != nil {
		return nil, err
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
