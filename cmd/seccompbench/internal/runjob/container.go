package runjob

import (
	"slices"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/runner"
)

// parseContainer applies --bundle, --rootfs and --runtime-bin
// (cmdutil.ContainerFlags): with either of the first two, the command
// workload becomes the runtime path (runner.ContainerWorkload). Its
// cells are 0 filters (no linux.seccomp) and 1 (the runtime's filter);
// the action cache cannot be defeated and the loader is the runtime's, so
// --cache, --loader, --prepare, --parallel and the other stack sources
// are refused.
func (j *Job) parseContainer(fl *Flags, policies []string, changed func(string) bool) error {
	if fl.Container.Set() {
		if j.Workload.Command == nil {
			return cmdutil.FlagErrorf("--bundle and --rootfs need --workload command and a command after --")
		}
		for _, f := range []string{"cache", "loader", "prepare", "parallel", "pid", "systemd-unit", "systemd", "spec-allow", "pad"} {
			if changed(f) {
				return cmdutil.FlagErrorf("--%s: not with --bundle or --rootfs (the runtime loads its own filter)", f)
			}
		}
		// The runtime's filter is what it compiles: one cache state, and
		// no pad (Job.placement).
		j.Cache = "on"
		if !changed("filters") {
			j.Counts = []int{0, 1}
		}
		if !slices.Equal(j.Counts, []int{0, 1}) {
			return cmdutil.FlagErrorf("--filters: with --bundle or --rootfs the counts are 0,1 (without and with the runtime's filter), not %v", j.Counts)
		}
	}
	ct, err := fl.Container.Spec(policies, fl.Command.Argv, j.OCI)
	if err != nil || ct == nil {
		return err
	}
	w, err := runner.ContainerWorkload(*j.Workload.Command, *ct)
	if err != nil {
		return &cmdutil.FlagError{Err: err}
	}
	j.Workload = w
	return nil
}
