package cmdutil

import (
	"fmt"
	"runtime"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/formats"
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

// ArchUsage is the help text of --arch (AddLoadFlags).
const ArchUsage = "native `ABI` of the host the policies are for: x86_64, aarch64 (or arm64) or riscv64; a compat ABI i386, x32 or arm stands for its kernel's native one (default: this machine's native ABI)"

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

// CheckLocalArch is the --arch check of commands that measure this
// machine (run, estimate): o.Arch (LoadFlags.Options) must be an ABI of
// this machine's kernel, since filters built for another kernel's
// arch check would decide every syscall here by their wrong-arch action.
// Another kernel's ABI is a *FlagError naming the commands that analyze
// other hosts.
func CheckLocalArch(cmd string, o formats.OpenOptions) error {
	if o.Arch == nil {
		return nil
	}
	want, got := filters.KernelArches(NativeArch())[0], filters.KernelArches(o.Arch)[0]
	if got != want {
		return FlagErrorf("--arch %s: %s measures this machine, whose kernel is %s; analyze an %s host with simulate, lint or compile --arch", o.Arch.Name, cmd, want.Name, got.Name)
	}
	return nil
}
