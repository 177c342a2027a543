package container

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"

	mobyseccomp "github.com/moby/profiles/seccomp"
	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// ResolveConfig returns the config.json template of a bundle that runs
// argv in rootfs (made absolute; Prepare checks the directory when the run
// starts) under the OCI profile body, named policy in errors, resolved as
// Docker resolves it (moby/profiles/seccomp LoadProfile: includes and
// excludes on caps, which is also the container's capability set, see
// NewConfig).
func ResolveConfig(rootfs, policy string, body []byte, argv, caps []string) (*specs.Spec, error) {
	abs, err := filepath.Abs(rootfs)
	if err != nil {
		return nil, fmt.Errorf("resolve root file system %s: %w", rootfs, err)
	}
	rs := &specs.Spec{Process: &specs.Process{Capabilities: &specs.LinuxCapabilities{Bounding: caps}}}
	sc, err := mobyseccomp.LoadProfile(string(body), rs)
	if err != nil {
		return nil, fmt.Errorf("resolve OCI profile %s: %w", policy, err)
	}
	return NewConfig(abs, argv, caps, sc), nil
}

// CheckSeccomp checks that the bundle's config.json carries want as
// linux.seccomp (compared as JSON), where want is policy resolved as
// ResolveConfig resolves it: the runtime loads the bundle's profile,
// while the report and every analysis name policy, so the two must be one
// profile.
func CheckSeccomp(bundle, policy string, want *specs.LinuxSeccomp) error {
	cfg, err := ReadConfig(bundle)
	if err != nil {
		return err
	}
	if cfg.Linux == nil || cfg.Linux.Seccomp == nil {
		return fmt.Errorf("%s/config.json has no linux.seccomp: the 1-filter cells would run without a filter", bundle)
	}
	got, _ := json.Marshal(cfg.Linux.Seccomp)
	exp, _ := json.Marshal(want)
	if !bytes.Equal(got, exp) {
		return fmt.Errorf("%s/config.json's linux.seccomp is not %s resolved with the --caps set (%d rules against %d): give the profile the bundle was written from as POLICY, with the container's capabilities as --caps",
			bundle, policy, len(cfg.Linux.Seccomp.Syscalls), len(want.Syscalls))
	}
	return nil
}

// RuntimeBinary is the binary that runs the containers of the OCI runtime
// named runtime (filters/oci's Runtime: "runc", "runc-1.1" or "crun"):
// crun for crun, runc for every other.
func RuntimeBinary(runtime string) string {
	if runtime == "crun" {
		return "crun"
	}
	return "runc"
}
