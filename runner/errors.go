package runner

import (
	"github.com/seccompbench/seccompbench/runner/internal/child"
	"github.com/seccompbench/seccompbench/runner/internal/sys"
)

// ChildError reports a child that died, hung, failed to install its
// filters or reported a wrong filter count. It names the cell. Errors of
// every kind of child (the loops, runner/command, runner/notify's cells)
// are of this type.
type ChildError = child.Error

// ErrChild is wrapped by every *ChildError.
var ErrChild = child.ErrChild

// ErrNotSupported is returned when the kernel or architecture lacks a
// feature the runner needs; the wrapping error names it and the minimum
// kernel version.
var ErrNotSupported = sys.ErrNotSupported

// seccompFlagSpecAllow is SECCOMP_FILTER_FLAG_SPEC_ALLOW
// (include/uapi/linux/seccomp.h, Linux 4.17).
const seccompFlagSpecAllow = sys.FlagSpecAllow
