package runner

import (
	"slices"
	"strings"

	"github.com/seccompbench/seccompbench/runner/command"
	"github.com/seccompbench/seccompbench/runner/container"
	"github.com/seccompbench/seccompbench/runner/workload"
)

// Workload is what the runner measures: the pure row of the workload
// table (workload.Spec: name, op, syscalls, arguments) and, for the
// command workload, the command and container it runs.
type Workload struct {
	workload.Spec
	// Command is the command workload's command (CommandWorkload); nil
	// for the loops.
	Command *command.Spec
	// Container, with Command, runs every run of the command in a
	// container an OCI runtime starts (ContainerWorkload); nil otherwise.
	Container *container.Spec
}

// CommandWorkload returns the command workload for spec: ns/op is the wall
// time of one run of the command, from its execve to its reaping by
// wait4(2). It returns an error for an empty command or a negative count.
func CommandWorkload(spec command.Spec) (Workload, error) {
	if err := spec.Check(); err != nil {
		return Workload{}, err
	}
	s, _ := workload.Find("command")
	w := Workload{Spec: workload.Spec{Name: s.Name, Op: s.Op, SyscallsPerIter: s.SyscallsPerIter}}
	spec.Argv = slices.Clone(spec.Argv)
	spec.Env = slices.Clone(spec.Env)
	w.Command = &spec
	w.Op = "one run of `" + strings.Join(spec.Argv, " ") + "`: execve to wait4, under the stack"
	return w, nil
}

// ContainerWorkload returns the command workload's runtime path: every
// child is one container, `RUNTIME run --bundle B ID`, whose process is
// this binary as a timer that runs the command in spec (the bundle's
// process.args when spec has none) R times, so the container's stack, the
// privilege it is loaded with and no_new_privs are the runtime's own. Cells with 0
// filters run the bundle without linux.seccomp, every other cell with it:
// the runtime's profile is one filter, whatever count the cell names.
func ContainerWorkload(spec command.Spec, ct container.Spec) (Workload, error) {
	w, err := CommandWorkload(spec)
	if err != nil {
		return Workload{}, err
	}
	if err := ct.Check(); err != nil {
		return Workload{}, err
	}
	w.Container = &ct
	w.Op = "one run of `" + strings.Join(spec.Argv, " ") + "` inside a " + ct.Runtime + " container, fork to reaping (the container's start outside)"
	return w, nil
}

// loopKind is the child's timed loop, the workload table's Kind.
type loopKind = workload.Kind

const (
	kindMix     = workload.KindMix
	kindClose   = workload.KindClose
	kindGetpid  = workload.KindGetpid
	kindSyscall = workload.KindSyscall
	kindExec    = workload.KindExec
	kindCommand = workload.KindCommand
	kindNotify  = workload.KindNotify
	kindProbe   = workload.KindProbe
)

// loops returns the built-in syscall loop named name as a Workload, for
// defaults and tests; the zero Workload when there is none.
func loops(name string) Workload { return Workload{Spec: workload.Loops()[name]} }
