package cmdutil

import (
	"fmt"

	specs "github.com/opencontainers/runtime-spec/specs-go"
	"github.com/spf13/pflag"

	"github.com/seccompbench/seccompbench/filters/formats"
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
		ct.Runtime = container.RuntimeBinary(string(o.Runtime))
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
// as --rootfs would write it (same --caps): container.CheckSeccomp.
func bundleMatches(bundle, policy string, o oci.Options) error {
	want, err := rootfsConfig("/", policy, []string{"/x"}, o)
	if err != nil {
		return err
	}
	return container.CheckSeccomp(bundle, policy, want.Linux.Seccomp)
}

// rootfsConfig reads policy (a file or docker-default) and builds the
// config.json template of --rootfs with container.ResolveConfig, on the
// --caps set (Docker's default capabilities when not given).
func rootfsConfig(rootfs, policy string, argv []string, o oci.Options) (*specs.Spec, error) {
	var body []byte
	var err error
	if policy == oci.DockerDefaultName {
		if body, err = oci.DockerDefaultJSON(); err != nil {
			return nil, err
		}
	} else if body, err = formats.ReadInput(policy); err != nil {
		return nil, err
	}
	caps := o.Caps
	if caps == nil {
		caps = oci.DockerDefaultCaps
	}
	return container.ResolveConfig(rootfs, policy, body, argv, caps)
}
