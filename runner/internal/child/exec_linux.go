package child

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/seccompbench/seccompbench/runner/result"
)

// Output is what a finished child left.
type Output struct {
	// Stdout is the child's standard output, trimmed of white space: its
	// report.
	Stdout []byte
	// Stderr is the first 8 KiB of its standard error.
	Stderr string
	// StderrTail is the last 4 KiB of it, where a failing program says
	// why.
	StderrTail string
	// Own is the child's CPU time, user plus system over all its threads
	// and the descendants it waited for (wait4(2) rusage).
	Own time.Duration
}

// Run starts one child of kind for cell c, writes spec (JSON) on its
// standard input and returns its Output. The child
// dies with the parent (PR_SET_PDEATHSIG) and is killed at timeout (at
// least MinTimeout). extra files become the child's fds 3, 4, ...
//
// When ctx is done it returns ctx.Err(). A child that fails (killed,
// non-zero exit, hung) gives an *Error naming the cell, with the reason
// "died", "exited with status N" or the deadline; its Output is still
// returned, and the caller may set a better reason from the report it
// holds with Refine.
func Run(ctx context.Context, kind string, timeout time.Duration, c result.Cell, spec []byte, extra ...*os.File) (Output, error) {
	return run(ctx, kind, timeout, c, spec, false, extra...)
}

// StopGrace is how long RunStoppable waits for a child it sent SIGTERM to
// before it kills the child's process group as Run does.
const StopGrace = 2 * time.Second

// RunStoppable is Run for a kind of child that ends its own descendants
// when it gets SIGTERM (the command workload's timing child, which
// kills and reaps every process its runs started). When ctx is done or
// the deadline passes, the child gets SIGTERM instead of SIGKILL, and it
// gets SIGTERM as well when this process dies (PR_SET_PDEATHSIG); only if
// it has not exited StopGrace later is its process group killed. Results
// and errors are Run's.
func RunStoppable(ctx context.Context, kind string, timeout time.Duration, c result.Cell, spec []byte, extra ...*os.File) (Output, error) {
	return run(ctx, kind, timeout, c, spec, true, extra...)
}

// run is Run, or RunStoppable when stoppable.
func run(ctx context.Context, kind string, timeout time.Duration, c result.Cell, spec []byte, stoppable bool, extra ...*os.File) (Output, error) {
	var o Output
	exe, err := os.Executable()
	if err != nil {
		return o, fmt.Errorf("find own executable for re-exec: %w", err)
	}
	if timeout <= 0 {
		timeout = MinTimeout
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, exe)
	cmd.Env = Environ(kind)
	cmd.Stdin = bytes.NewReader(spec)
	cmd.ExtraFiles = extra
	var out, stderr bytes.Buffer
	cmd.Stdout = &out
	errBuf := &limitedBuffer{max: 8 << 10, buf: &stderr}
	cmd.Stderr = errBuf
	// Its own process group: a Ctrl-C on the terminal reaches only the
	// parent, which then kills the child's whole group (the exec
	// workloads' programs too) and reports the interruption, instead of
	// children dying first and looking like failures.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		return cmd.Process.Kill()
	}
	cmd.WaitDelay = time.Second
	reaped := func() {}
	if stoppable {
		reaped = stopGently(cmd)
	}
	runErr := cmd.Run()
	reaped()
	o.Stdout, o.Stderr, o.StderrTail = bytes.TrimSpace(out.Bytes()), stderr.String(), string(errBuf.tail)
	if cmd.ProcessState != nil {
		o.Own = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	if ctx.Err() != nil {
		return o, ctx.Err()
	}
	if runErr == nil {
		return o, nil
	}
	ce := &Error{Cell: c, ExitCode: -1, Stderr: o.Stderr}
	if cctx.Err() == context.DeadlineExceeded {
		ce.Reason = fmt.Sprintf("no report within %s; killed (hung child: a filter may block a syscall the harness needs)", timeout)
		ce.timedOut = true
		return o, ce
	}
	var ee *exec.ExitError
	if errors.As(runErr, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok {
			if ws.Signaled() {
				ce.Signal = ws.Signal()
			} else {
				ce.ExitCode = ws.ExitStatus()
			}
		}
	}
	if ce.Signal != 0 {
		ce.Reason = "died"
	} else {
		ce.Reason = fmt.Sprintf("exited with status %d", ce.ExitCode)
	}
	return o, ce
}

// stopGently makes cmd's cancellation RunStoppable's: SIGTERM to the
// child (also when this process dies), and its process group killed if
// it has not been reaped StopGrace later (os/exec kills the child itself
// at WaitDelay, a second after that). The caller calls reaped once
// cmd.Wait has returned, so that the group is not signalled after its
// leader's pid was released.
func stopGently(cmd *exec.Cmd) (reaped func()) {
	cmd.SysProcAttr.Pdeathsig = syscall.SIGTERM
	var mu sync.Mutex
	exited := false
	cmd.Cancel = func() error {
		pid := cmd.Process.Pid
		time.AfterFunc(StopGrace, func() {
			mu.Lock()
			defer mu.Unlock()
			if !exited {
				syscall.Kill(-pid, syscall.SIGKILL)
			}
		})
		return cmd.Process.Signal(syscall.SIGTERM)
	}
	cmd.WaitDelay = StopGrace + time.Second
	return func() {
		mu.Lock()
		exited = true
		mu.Unlock()
	}
}

// Refine calls fix with the *Error in err when the child ended by itself
// (not at its deadline), so that the caller can replace the generic
// reason with what the child reported.
func Refine(err error, fix func(*Error)) {
	var ce *Error
	if errors.As(err, &ce) && !ce.timedOut {
		fix(ce)
	}
}

// limitedBuffer keeps the first max bytes written to it, and the last
// tailMax in tail.
type limitedBuffer struct {
	max  int
	buf  *bytes.Buffer
	tail []byte
}

// tailMax is the size of limitedBuffer's tail.
const tailMax = 4 << 10

// Write keeps what fits under max and reports all of p written, so the
// child never blocks on a full stderr pipe.
func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.buf.Len(); room > 0 {
		l.buf.Write(p[:min(room, len(p))])
	}
	l.tail = append(l.tail, p[max(0, len(p)-tailMax):]...)
	if n := len(l.tail); n > tailMax {
		l.tail = append(l.tail[:0], l.tail[n-tailMax:]...)
	}
	return len(p), nil
}

// LookPathIn resolves file as execvp(3) would in env's PATH (a name with a
// slash is taken as is) and returns an absolute path.
func LookPathIn(file string, env []string) (string, error) {
	if strings.Contains(file, "/") {
		p, err := exec.LookPath(file)
		if err != nil {
			return "", err
		}
		return filepath.Abs(p)
	}
	pathEnv := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathEnv = v
		}
	}
	for _, dir := range filepath.SplitList(pathEnv) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, file)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return filepath.Abs(p)
		}
	}
	return "", fmt.Errorf("command %q not found in PATH %q", file, pathEnv)
}

// SpawnWait forks and execs path with files as its descriptors 0, 1, 2,
// ..., waits for it with wait4(2) and returns its status, filling ru (if
// not nil) with its resource usage and the pids (if given) with its pid.
// The process dies with this one (PR_SET_PDEATHSIG).
func SpawnWait(path string, argv, env []string, files []uintptr, ru *syscall.Rusage, pid ...*int) (syscall.WaitStatus, error) {
	var ws syscall.WaitStatus
	p, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{Env: env, Files: files,
		Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}})
	if err != nil {
		return ws, err
	}
	for _, q := range pid {
		*q = p
	}
	for {
		_, err = syscall.Wait4(p, &ws, 0, ru)
		if !errors.Is(err, syscall.EINTR) {
			return ws, err
		}
	}
}
