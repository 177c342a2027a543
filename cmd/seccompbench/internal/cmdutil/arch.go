package cmdutil

import (
	"fmt"
	"runtime"

	"github.com/spf13/pflag"

	"github.com/seccompbench/seccompbench/filters"
)

// NativeArch returns the native ABI of the machine this binary is built
// for: filters.HostArches(runtime.GOARCH)[0] (x86_64 on amd64, aarch64 on
// arm64), x86_64 for a GOARCH with no table. Commands that analyze a stack
// without --arch analyze it for this ABI.
func NativeArch() *filters.Arch {
	if as := filters.HostArches(runtime.GOARCH); len(as) > 0 {
		return as[0]
	}
	return filters.ArchX86_64
}

// ArchUsage is the help text of --arch.
const ArchUsage = "`ABI` the policies are for: x86_64, i386, x32, aarch64 (or arm64) or arm (default: this machine's native ABI)"

// AddArchFlag adds --arch to fl, storing the name into dst.
func AddArchFlag(fl *pflag.FlagSet, dst *string) {
	fl.StringVar(dst, "arch", "", ArchUsage)
}

// LookupArch resolves an --arch value: "" is NativeArch(), anything else
// filters.LookupArch's names. An unknown name is a *FlagError wrapping
// filters.ErrUnknownArch.
func LookupArch(name string) (*filters.Arch, error) {
	if name == "" {
		return NativeArch(), nil
	}
	a, err := filters.LookupArch(name)
	if err != nil {
		return nil, &FlagError{Err: fmt.Errorf("--arch: %w", err)}
	}
	return a, nil
}
