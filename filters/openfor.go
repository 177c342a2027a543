package filters

import (
	"fmt"
	"os"
	"strings"
)

// OpenFor is OpenWith for a host whose native ABI is native (ArchX86_64 or
// ArchAArch64; a compat ABI stands for its kernel's native one), whatever
// this host is: it is what `--arch` on the analysis commands opens
// policies with.
//
//   - Beats policies, the embedded default included, are compiled with
//     CompileFor(native): the arch check names native's audit arch and
//     syscalls native lacks are dropped (Program.Warnings says which);
//   - OCI profiles and docker-default are resolved with o.OCI.Arch set to
//     native (the libseccomp native arch, archMap, includes/excludes);
//   - raw BPF is the same on every host;
//   - systemd units are refused as OpenWith refuses them.
//
// Errors are OpenWith's and CompileFor's.
func OpenFor(spec string, native *Arch, o OpenOptions) (*Program, error) {
	native = KernelArches(native)[0]
	if o.OCI.Arch == "" {
		o.OCI.Arch = native.Name
	}
	switch spec {
	case "default", DefaultPolicyName:
		return DefaultPolicy().CompileFor(native)
	case DockerDefaultName:
		return OpenWith(spec, o)
	}
	if strings.HasPrefix(spec, "embedded:") {
		return Open(spec)
	}
	data, err := os.ReadFile(spec)
	if err != nil {
		return nil, fmt.Errorf("open filter: %w", err)
	}
	f := o.Format
	if f == FormatUnknown {
		f = DetectFormat(spec, data)
	}
	if f == FormatPolicy {
		p, err := ParsePolicy(spec, data)
		if err != nil {
			return nil, err
		}
		return p.CompileFor(native)
	}
	return openFormat(spec, data, f, o)
}
