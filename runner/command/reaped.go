package command

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/seccompbench/seccompbench/runner/internal/child"
	"github.com/seccompbench/seccompbench/runner/result"
)

// reapedKind names the child that runs one program as the subreaper of
// everything it starts.
const reapedKind = "reaped-1"

// ReapedChild runs one program for RunReaped; the program's child
// dispatch must list it.
var ReapedChild = child.Kind{Name: reapedKind, Main: reapedMain}

// reapedSpec is what RunReaped writes on the child's standard input.
type reapedSpec struct {
	Path string   `json:"path"`
	Argv []string `json:"argv"`
	Env  []string `json:"env"`
}

// reapedReport is what the child writes on its standard output.
type reapedReport struct {
	ExitCode int    `json:"exit_code"` // -1 when killed by a signal or not run
	Signal   int    `json:"signal"`    // the signal that killed it, 0 if none
	Err      string `json:"err,omitempty"`
}

// Reaped is how a program run by RunReaped ended.
type Reaped struct {
	// ExitCode is its exit status, -1 when a signal killed it.
	ExitCode int
	// Signal is the signal that killed it, 0 if none.
	Signal syscall.Signal
	// StderrTail is the last 4 KiB of its standard error.
	StderrTail string
}

// RunReaped runs the program at path with argv and env (standard input
// and output /dev/null, standard error kept) in a child of this binary
// that is the subreaper of everything the program starts, as the timing
// child is (stop.go): when the program exits, whatever it left running
// is killed and reaped, and when ctx is done (a signal to seccompbench)
// the program and all it started are killed and reaped before RunReaped
// returns ctx's error. `estimate --command` profiles the command with
// strace this way. Errors: the child's (it could not start the program),
// or ctx's.
func RunReaped(ctx context.Context, path string, argv, env []string) (Reaped, error) {
	in, err := json.Marshal(reapedSpec{Path: path, Argv: argv, Env: env})
	if err != nil {
		return Reaped{}, fmt.Errorf("encode child spec: %w", err)
	}
	out, err := child.RunStoppable(ctx, reapedKind, time.Duration(1<<62), result.Cell{}, in)
	if ctx.Err() != nil {
		return Reaped{}, ctx.Err()
	}
	var rep reapedReport
	decErr := json.Unmarshal(out.Stdout, &rep)
	if err == nil && decErr != nil {
		err = fmt.Errorf("decode report: %w", decErr)
	}
	if err != nil {
		if decErr == nil && rep.Err != "" {
			err = fmt.Errorf("run %s: %s", path, rep.Err)
		}
		return Reaped{}, err
	}
	return Reaped{ExitCode: rep.ExitCode, Signal: syscall.Signal(rep.Signal), StderrTail: out.StderrTail}, nil
}

// reapedMain is ReapedChild's entry point.
func reapedMain() {
	rep := reapedReport{ExitCode: -1}
	var spec reapedSpec
	err := child.ReadSpec(os.Stdin, &spec)
	if err == nil {
		err = runReaped(&spec, &rep)
	}
	if err != nil {
		rep.Err = err.Error()
	}
	child.Exit(rep, err)
}

// runReaped runs the program of spec to its end into rep and kills and
// reaps whatever it left; a signal stops it (stopper).
func runReaped(spec *reapedSpec, rep *reapedReport) (err error) {
	stop := startStopper()
	if err := child.BecomeSubreaper(); err != nil {
		return err
	}
	defer func() {
		if serr := sweep(); serr != nil && err == nil {
			err = serr
		}
	}()
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("open %s: %w", os.DevNull, err)
	}
	defer null.Close()
	ws, err := child.SpawnWait(spec.Path, spec.Argv, spec.Env, []uintptr{null.Fd(), null.Fd(), os.Stderr.Fd()}, nil)
	if serr := stop.err(); serr != nil {
		return serr
	}
	if err != nil {
		return fmt.Errorf("run %s: %w", spec.Path, err)
	}
	rep.ExitCode = ws.ExitStatus()
	if ws.Signaled() {
		rep.Signal = int(ws.Signal())
	}
	return nil
}
