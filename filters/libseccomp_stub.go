//go:build !libseccomp || !cgo

package filters

import (
	"fmt"

	"golang.org/x/net/bpf"
)

// libseccompBuilt reports whether libseccomp.go is compiled in: not in this
// build (no libseccomp build tag, or cgo off).
const libseccompBuilt = false

func libseccompVersion() (string, error) {
	return "", fmt.Errorf("get libseccomp version: %w; %s", ErrNoLibseccomp, libseccompHint)
}

func libseccompCompile(*scmpFilter, lsOptions) ([]bpf.RawInstruction, error) {
	return nil, fmt.Errorf("%w; %s", ErrNoLibseccomp, libseccompHint)
}

func libseccompENOSYSBounds([]*scmpArch, []scmpRule) ([]stubBound, error) {
	return nil, fmt.Errorf("%w; %s", ErrNoLibseccomp, libseccompHint)
}
