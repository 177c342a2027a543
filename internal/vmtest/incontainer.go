package main

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strconv"

	"github.com/seccompbench/seccompbench/internal/vmtest/protocol"
)

// The in-container check (a step of -runtimes): the same command measured
// two ways under docker-default, (a) in runc containers started from a
// bundle `run --rootfs` writes (the runtime's own filter, loader and
// no_new_privs; seccompbench, with the shared libraries it needs, is each
// container's process and times the runs inside) and (b) run's command workload with the stack
// `compile --compiler libseccomp --runtime runc-1.1` models for that
// runc; the guest prints both added-time intervals and whether they
// overlap, which it does not judge (vminit/incontainer.go). The command is find over a tree this
// file writes into the container's root file system, so both walk the
// same directories: /tree inside the container, /vmtest/rootfs/tree
// outside.

// Shape of the tree find walks: treeDirs directories of treeFiles empty
// files each.
const (
	treeDirs  = 60
	treeFiles = 20
)

// inContainerTrials and inContainerRuns keep the step short under TCG
// (about a second per runc container, a tenth to a third of one per run
// of find): blocks, and timed runs per child (one container).
const (
	inContainerTrials = 6
	inContainerRuns   = 8
)

// findBin is the host's find, copied with its libraries to the same path
// in the guest and in the container's root file system.
const findBin = "/usr/bin/find"

// addInContainer adds find (in both roots) and the tree to fs, and to
// the container's root the shared libraries of sb, the guest's
// seccompbench (built with cgo), which runs there as the timer.
func addInContainer(ctx context.Context, fs *initramfs, rootfs, sb string) error {
	if err := copyWithLibs(ctx, fs, findBin); err != nil {
		return err
	}
	libs, err := sharedLibs(ctx, findBin)
	if err != nil {
		return err
	}
	sbLibs, err := sharedLibs(ctx, sb)
	if err != nil {
		return err
	}
	for _, l := range sbLibs {
		if !slices.Contains(libs, l) {
			libs = append(libs, l)
		}
	}
	for _, f := range append([]string{findBin}, libs...) {
		if err := fs.Copy(path.Join(rootfs, f), f); err != nil {
			return err
		}
	}
	for d := range treeDirs {
		for f := range treeFiles {
			fs.File(fmt.Sprintf("%s/tree/d%03d/f%02d", rootfs, d, f), nil, 0o644)
		}
	}
	return nil
}

// inContainerStep is the plan step of the check.
func inContainerStep(timeoutSeconds int) protocol.Step {
	return protocol.Step{Name: "incontainer", Path: "/vmtest/init", TimeoutSeconds: timeoutSeconds,
		Args: []string{"in-container", "/usr/sbin/runc", findBin, strconv.Itoa(inContainerTrials), strconv.Itoa(inContainerRuns)}}
}
