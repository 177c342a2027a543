package cmdutil

import (
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/spf13/pflag"

	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/filters/oci"
)

// LoadFlags are the flags of every command that loads policies: how to
// read them (--format-in) and the choices the OCI-based formats leave to
// the container being modeled (--caps, --kernel-version, --arch), to a
// Kubernetes file (--profile-name, --base) and to a Firecracker file
// (--thread).
type LoadFlags struct {
	FormatIn      string
	Caps          string
	KernelVersion string
	Arch          string
	ProfileName   string
	Bases         []string
	Thread        string
}

// FirecrackerThreads are the thread categories --thread accepts.
var FirecrackerThreads = []string{"vmm", "api", "vcpu"}

// AddLoadFlags adds the load flags to fl. withArch is false for commands
// whose --arch already means something else (simulate: the ABI); their
// OCI host architecture is x86_64.
func AddLoadFlags(fl *pflag.FlagSet, lf *LoadFlags, withArch bool) {
	fl.StringVar(&lf.FormatIn, "format-in", "", "force the policy format: "+formats.Help()+" (default: detect from content)")
	fl.StringVar(&lf.Caps, "caps", "", "OCI-based profiles: capabilities to resolve includes/excludes with, e.g. default,-net_raw, all or none (default: Docker's default set)")
	fl.StringVar(&lf.KernelVersion, "kernel-version", "", "OCI-based profiles: kernel version `MAJOR.MINOR` for minKernel conditions (default: "+oci.DefaultKernelVersion+")")
	if withArch {
		fl.StringVar(&lf.Arch, "arch", "", "OCI-based profiles: host architecture x86_64, aarch64, x86 or arm (default x86_64)")
	}
	fl.StringVar(&lf.ProfileName, "profile-name", "", "Kubernetes files: the SeccompProfile `NAME` (metadata.name or namespace/name) to load (default: the file's only one)")
	fl.StringArrayVar(&lf.Bases, "base", nil, "Kubernetes files: a `FILE` holding base profiles (repeatable)")
	fl.StringVar(&lf.Thread, "thread", "", "Firecracker files: the thread category's filter to load: vmm, api or vcpu (default: all; simulate shows them side by side)")
}

// Options checks the flags and returns the load options they give, with
// in as the standard input "-" reads. Bad values are *FlagError; a base
// file that cannot be read is not.
func (lf *LoadFlags) Options(in io.Reader) (formats.OpenOptions, error) {
	o := formats.OpenOptions{Stdin: in, ProfileName: lf.ProfileName, Thread: lf.Thread}
	var err error
	if o.Format, err = formats.ParseFormat(lf.FormatIn); err != nil {
		return o, &FlagError{Err: fmt.Errorf("--format-in: %w", err)}
	}
	if lf.Caps != "" {
		if o.OCI.Caps, err = oci.ParseCaps(lf.Caps); err != nil {
			return o, &FlagError{Err: fmt.Errorf("--caps: %w", err)}
		}
	}
	o.OCI.KernelVersion, o.OCI.Arch = lf.KernelVersion, lf.Arch
	if err := oci.CheckOptions(o.OCI); err != nil {
		return o, &FlagError{Err: fmt.Errorf("--kernel-version/--arch: %w", err)}
	}
	if lf.Thread != "" && !slices.Contains(FirecrackerThreads, lf.Thread) {
		return o, FlagErrorf("--thread: %q is not vmm, api or vcpu", lf.Thread)
	}
	for _, b := range lf.Bases {
		data, err := os.ReadFile(b)
		if err != nil {
			return o, fmt.Errorf("read base profiles: %w", err)
		}
		if o.Bases == nil {
			o.Bases = map[string][]byte{}
		}
		o.Bases[b] = data
	}
	return o, nil
}
