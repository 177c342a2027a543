package runner

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

// execChild starts one measuring loop child (loopChild), feeds it spec and
// decodes its report. The child dies with the parent and is killed at
// timeout (child.Run). extra files become the child's fds 3, 4, ... (the
// notify workload's socket). It also returns the child's CPU time, user
// plus system over all its threads and the descendants it waited for.
// A failing child gives a *ChildError whose reason is the child's own
// error, with a hint for a failed seccomp(2) and the cause
// (ErrNotSupported, result.ErrLoaderCaps) where one is known.
func execChild(ctx context.Context, timeout time.Duration, c result.Cell, spec childSpec, extra ...*os.File) (childReport, time.Duration, error) {
	var rep childReport
	in, err := json.Marshal(spec)
	if err != nil {
		return rep, 0, fmt.Errorf("encode child spec: %w", err)
	}
	out, err := child.Run(ctx, loopChild.Name, timeout, c, in, extra...)
	if ctx.Err() != nil {
		return rep, out.Own, err
	}
	decErr := json.Unmarshal(out.Stdout, &rep)
	if err != nil {
		child.Refine(err, func(ce *ChildError) {
			if decErr == nil && rep.Err != "" {
				explain(ce, &rep, spec)
			}
		})
		return rep, out.Own, err
	}
	if decErr != nil {
		return rep, out.Own, &ChildError{Cell: c, Reason: fmt.Sprintf("decode report: %v", decErr), Stderr: out.Stderr}
	}
	return rep, out.Own, nil
}

// explain sets the reason of a failed child from its report: the child's
// error, the errno of a failed seccomp(2) or prctl(2) with installHint's
// hint, and the cause.
func explain(ce *ChildError, rep *childReport, spec childSpec) {
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
	if rep.Caps != nil && result.CheckLoaderCaps(spec.Loader, *rep.Caps) != nil {
		ce.Cause = result.ErrLoaderCaps
	}
}
