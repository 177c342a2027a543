package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// execChild starts one child, feeds it spec and decodes its report. The
// child dies with the parent (PR_SET_PDEATHSIG) and is killed at timeout.
// extra files become the child's fds 3, 4, ... (the notify workload's
// socket). It also returns the child's CPU time, user plus system over all
// its threads and the descendants it waited for (wait4(2) rusage).
func execChild(ctx context.Context, timeout time.Duration, c Cell, spec childSpec, extra ...*os.File) (childReport, time.Duration, error) {
	rep, cmd, err := execChildCmd(ctx, timeout, c, spec, extra...)
	var own time.Duration
	if cmd != nil && cmd.ProcessState != nil {
		own = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	return rep, own, err
}

// execChildCmd is execChild, returning the finished command.
func execChildCmd(ctx context.Context, timeout time.Duration, c Cell, spec childSpec, extra ...*os.File) (childReport, *exec.Cmd, error) {
	var rep childReport
	in, err := json.Marshal(spec)
	if err != nil {
		return rep, nil, fmt.Errorf("encode child spec: %w", err)
	}
	exe, err := os.Executable()
	if err != nil {
		return rep, nil, fmt.Errorf("find own executable for re-exec: %w", err)
	}
	if timeout <= 0 {
		timeout = minChildTimeout
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, exe)
	cmd.Env = childEnviron()
	cmd.Stdin = bytes.NewReader(in)
	cmd.ExtraFiles = extra
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &limitedBuffer{max: 8 << 10, buf: &stderr}
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
	runErr := cmd.Run()
	if ctx.Err() != nil {
		return rep, cmd, ctx.Err()
	}
	decErr := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &rep)
	if runErr != nil {
		ce := &ChildError{Cell: c, ExitCode: -1, Stderr: stderr.String()}
		if cctx.Err() == context.DeadlineExceeded {
			ce.Reason = fmt.Sprintf("no report within %s; killed (hung child: a filter may block a syscall the harness needs)", timeout)
			return rep, cmd, ce
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
		switch {
		case decErr == nil && rep.Err != "":
			ce.Reason = rep.Err
			ce.Errno = syscall.Errno(rep.InstallErrno)
			if ce.Errno != 0 {
				hint, notSup := installHint(ce.Errno, rep.FailedFilter, spec.Flags, rep.FiltersBefore, syscall.Errno(rep.ProbeErrno))
				if hint != "" {
					ce.Reason += ": " + hint
				}
				if notSup {
					ce.Cause = ErrNotSupported
				}
			}
			if rep.Caps != nil && checkLoaderCaps(spec.Loader, *rep.Caps) != nil {
				ce.Cause = ErrLoaderCaps
			}
		case ce.Signal != 0:
			ce.Reason = "died"
		default:
			ce.Reason = fmt.Sprintf("exited with status %d", ce.ExitCode)
		}
		return rep, cmd, ce
	}
	if decErr != nil {
		return rep, cmd, &ChildError{Cell: c, Reason: fmt.Sprintf("decode report: %v", decErr), Stderr: stderr.String()}
	}
	return rep, cmd, nil
}

// childEnviron is the parent's environment plus the child marker and the
// runtime settings of the recipe in docs/limits.md ("The Go-runtime
// trap"): no asynchronous preemption, no GC.
func childEnviron() []string {
	env := []string{childEnv + "=" + childProtocol}
	godebug := "asyncpreemptoff=1,updatemaxprocs=0"
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case childEnv, "GOGC", "GOMAXPROCS":
			continue
		case "GODEBUG":
			if v != "" {
				godebug = v + "," + godebug
			}
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GODEBUG="+godebug, "GOGC=off")
}

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	max int
	buf *bytes.Buffer
}

// Write keeps what fits under max and reports all of p written, so the
// child never blocks on a full stderr pipe.
func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.buf.Len(); room > 0 {
		l.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}
