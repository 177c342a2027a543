package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	mobyseccomp "github.com/moby/profiles/seccomp"
	specs "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/seccompbench/seccompbench/filters/oci"
	"github.com/seccompbench/seccompbench/runner/container"
)

// TestRunContainerFlags: --bundle and --rootfs turn the command workload
// into the runtime path, with counts 0,1, the runtime --runtime names (or
// --runtime-bin) and the one POLICY as the profile; every flag the runtime
// decides itself is refused.
func TestRunContainerFlags(t *testing.T) {
	rootfs := t.TempDir()
	b := dockerDefaultBundle(t)
	cmdArgs := []string{"--workload", "command", "--", "find", "/tree", "-name", "x"}
	tests := []struct {
		name        string
		args        []string
		wantErr     bool
		wantRuntime string
	}{
		{name: "bundle, runc", args: append([]string{"docker-default", "--bundle", b}, cmdArgs...), wantRuntime: "runc"},
		{name: "bundle, runc-1.1", args: append([]string{"docker-default", "--runtime", "runc-1.1", "--bundle", b}, cmdArgs...), wantRuntime: "runc"},
		{name: "bundle, crun", args: append([]string{"docker-default", "--runtime", "crun", "--bundle", b}, cmdArgs...), wantRuntime: "crun"},
		{name: "runtime binary", args: append([]string{"docker-default", "--runtime-bin", "/opt/runc", "--rootfs", rootfs}, cmdArgs...), wantRuntime: "/opt/runc"},
		{name: "rootfs", args: append([]string{"docker-default", "--rootfs", rootfs}, cmdArgs...), wantRuntime: "runc"},
		{name: "counts 0,1 given", args: append([]string{"docker-default", "--bundle", b, "--filters", "0,1"}, cmdArgs...), wantRuntime: "runc"},
		{name: "deeper counts", args: append([]string{"docker-default", "--bundle", b, "--filters", "0,4"}, cmdArgs...), wantErr: true},
		{name: "both bundle and rootfs", args: append([]string{"docker-default", "--bundle", b, "--rootfs", rootfs}, cmdArgs...), wantErr: true},
		{name: "no command workload", args: []string{"docker-default", "--bundle", b}, wantErr: true},
		{name: "two policies", args: append([]string{"docker-default", "default", "--bundle", b}, cmdArgs...), wantErr: true},
		{name: "no policy", args: append([]string{"--bundle", b}, cmdArgs...), wantErr: true},
		{name: "cache defeat", args: append([]string{"docker-default", "--bundle", b, "--cache", "defeat"}, cmdArgs...), wantErr: true},
		{name: "loader", args: append([]string{"docker-default", "--bundle", b, "--loader", "privileged"}, cmdArgs...), wantErr: true},
		{name: "prepare", args: append([]string{"docker-default", "--bundle", b, "--prepare", "sync"}, cmdArgs...), wantErr: true},
		{name: "runtime-bin alone", args: append([]string{"docker-default", "--runtime-bin", "/opt/runc"}, cmdArgs...), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseFlags(t, NewCmdRun, tt.args, execWant{Err: tt.wantErr, Contains: "--", Usage: true})
			if got == nil {
				return
			}
			ct, cs := got.Workload.Container, got.Workload.Command
			if ct == nil || cs == nil {
				t.Fatalf("workload %+v: want the runtime path", got.Workload)
			}
			if ct.Runtime != tt.wantRuntime || ct.Profile != "docker-default" || !slices.Equal(got.Counts, []int{0, 1}) || got.Cache != "on" {
				t.Errorf("runtime %q profile %q counts %v cache %q; want runtime %q, docker-default, [0 1], on", ct.Runtime, ct.Profile, got.Counts, got.Cache, tt.wantRuntime)
			}
			if ct.Config != nil {
				if ct.Config.Root.Path != rootfs || !slices.Equal(ct.Config.Process.Args, cs.Argv) || ct.Config.Linux.Seccomp == nil || !ct.Config.Process.NoNewPrivileges {
					t.Errorf("config from --rootfs: root %q args %v seccomp %v nnp %v", ct.Config.Root.Path, ct.Config.Process.Args, ct.Config.Linux.Seccomp != nil, ct.Config.Process.NoNewPrivileges)
				}
			}
		})
	}
}

// TestEstimateContainerFlags: estimate --command accepts --bundle and
// --rootfs for one filter of one policy, and refuses them otherwise.
func TestEstimateContainerFlags(t *testing.T) {
	b := dockerDefaultBundle(t)
	tests := []struct {
		name    string
		args    []string
		wantErr bool
	}{
		{name: "bundle", args: []string{"docker-default", "--runtime", "crun", "--bundle", b, "--command", "--", "find", "/tree"}},
		{name: "without --command", args: []string{"docker-default", "--bundle", b, "--profile", "p.txt"}, wantErr: true},
		{name: "deeper stack", args: []string{"docker-default", "--bundle", b, "--filters", "4", "--command", "--", "true"}, wantErr: true},
		{name: "cache defeat", args: []string{"docker-default", "--bundle", b, "--cache", "defeat", "--command", "--", "true"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseFlags(t, NewCmdEstimate, tt.args, execWant{Err: tt.wantErr, Contains: "--", Usage: true})
			if got == nil {
				return
			}
			ct := got.Container
			if ct == nil || ct.Runtime != "crun" || ct.Bundle != b || ct.Profile != "docker-default" {
				t.Errorf("container %+v; want crun, bundle %s, docker-default", ct, b)
			}
		})
	}
}

// dockerDefaultBundle writes a bundle whose linux.seccomp is docker-default
// resolved with Docker's default capabilities, as --bundle requires.
func dockerDefaultBundle(t *testing.T) string {
	t.Helper()
	body, err := oci.DockerDefaultJSON()
	if err != nil {
		t.Fatal(err)
	}
	rs := &specs.Spec{Process: &specs.Process{Capabilities: &specs.LinuxCapabilities{Bounding: oci.DockerDefaultCaps}}}
	sc, err := mobyseccomp.LoadProfile(string(body), rs)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	data, _ := json.Marshal(container.NewConfig(t.TempDir(), []string{"/x"}, oci.DockerDefaultCaps, sc))
	if err := os.WriteFile(filepath.Join(dir, "config.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}
