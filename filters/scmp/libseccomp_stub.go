//go:build !libseccomp || !cgo

package scmp

import (
	"fmt"

	"golang.org/x/net/bpf"
)

// libseccompBuilt reports whether libseccomp.go is compiled in: not in this
// build (no libseccomp build tag, or cgo off).
const libseccompBuilt = false

func libseccompVersion() (string, error) {
	return "", fmt.Errorf("get libseccomp version: %w; %s", ErrNoLibseccomp, LibseccompHint)
}

// CompileLibseccomp fails with ErrNoLibseccomp: this build has no libseccomp.
func CompileLibseccomp(*Filter, LibseccompOptions) ([]bpf.RawInstruction, error) {
	return nil, fmt.Errorf("%w; %s", ErrNoLibseccomp, LibseccompHint)
}

// LibseccompENOSYSBounds fails with ErrNoLibseccomp: this build has no
// libseccomp.
func LibseccompENOSYSBounds([]*Arch, []Rule) ([]StubBound, error) {
	return nil, fmt.Errorf("%w; %s", ErrNoLibseccomp, LibseccompHint)
}
