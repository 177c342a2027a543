package cmdutil

import (
	"fmt"
	"io"
	"slices"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/filters/minijail"
	"github.com/seccompbench/seccompbench/filters/oci"
	"github.com/seccompbench/seccompbench/report/document"
)

// LoadFlags are the flags of every command that loads policies: how to
// read them (--format-in), the host they are for (--arch: its native ABI,
// for every format), the choices the OCI-based formats leave to the
// container being modeled (--caps, --kernel-version), to a Kubernetes
// file (--profile-name, --base) and to a Firecracker file (--thread).
type LoadFlags struct {
	FormatIn      string
	Caps          string
	KernelVersion string
	Arch          string
	ProfileName   string
	Bases         []string
	Thread        string
	// Runtime is --runtime: the OCI runtime whose installation of OCI
	// profiles is modeled (oci.ParseRuntime).
	Runtime string
	// MinijailToolchain, IncludePath and IncludeRoot are
	// --minijail-toolchain, --include-path and --include-root: how
	// minijail policies are read (minijail.Options).
	MinijailToolchain string
	IncludePath       []string
	IncludeRoot       []string
	// Systemd is directive text (`--systemd 'SystemCallFilter=...'`)
	// whose modeled stack goes first, as run --systemd puts it; only
	// commands that call AddSystemdFlag have it.
	Systemd string
	// Root is --root: a directory holding a system's unit search path
	// (etc/systemd/system, run/systemd/system, usr/lib/systemd/system),
	// where systemd units and their drop-ins are looked up
	// (formats.ReadUnit).
	Root string
	// SystemdVersion is --systemd-version: the systemd major version
	// whose system call groups units are read with (0: SystemdVersion's
	// default, the host's systemd or else the newest table).
	SystemdVersion int
	// SystemdVersionB is the B of --systemd-version A,B (0: none), the
	// version equiv reads its second policy with; only commands that set
	// SystemdVersionPair before parsing accept a pair.
	SystemdVersionB int
	// SystemdVersionPair lets --systemd-version take "A,B" (equiv).
	SystemdVersionPair bool
}

// AddSystemdFlag adds --systemd to fl (run has its own).
func AddSystemdFlag(fl *pflag.FlagSet, lf *LoadFlags) {
	fl.StringVar(&lf.Systemd, "systemd", "", "put the filter stack "+ChosenSystemd+" installs for these directives first, e.g. 'SystemCallFilter=@system-service' (POLICY may then be left out)")
}

// LoadPolicies is the package's LoadPolicies with --systemd's modeled
// stack (named "--systemd") as the first source.
func (lf *LoadFlags) LoadPolicies(specs []string, o formats.OpenOptions) (*Loaded, error) {
	l, err := LoadPolicies(specs, o)
	if err != nil || lf.Systemd == "" {
		return l, err
	}
	so := o
	so.Format = formats.SystemdUnit
	src, err := formats.LoadData("--systemd", []byte(lf.Systemd), so)
	if err != nil {
		return nil, fmt.Errorf("model systemd stack: %w", err)
	}
	l.Sources = append([]*filters.Source{src}, l.Sources...)
	l.Progs = append(append([]*filters.Program(nil), src.Filters...), l.Progs...)
	l.Pols = append([]document.Policy{describe(src, 0)}, l.Pols...)
	return l, nil
}

// PolicyArgs is the Args check of commands with --systemd: at least one
// POLICY unless --systemd is given.
func (lf *LoadFlags) PolicyArgs(cmd *cobra.Command, args []string) error {
	if lf.Systemd == "" {
		return cobra.MinimumNArgs(1)(cmd, args)
	}
	return nil
}

// FirecrackerThreads are the thread categories --thread accepts.
var FirecrackerThreads = []string{"vmm", "api", "vcpu"}

// AddLoadFlags adds the load flags to fl. --arch is the one definition
// of the flag in every command that loads policies: the native ABI of
// the host the policies are for (ArchUsage; Options resolves it).
func AddLoadFlags(fl *pflag.FlagSet, lf *LoadFlags) {
	fl.StringVar(&lf.FormatIn, "format-in", "", "force the policy format: "+formats.Help()+" (default: detect from content)")
	fl.StringVar(&lf.Caps, "caps", "", "OCI-based profiles: capabilities to resolve includes/excludes with, e.g. default,-net_raw, all or none (default: Docker's default set)")
	fl.StringVar(&lf.KernelVersion, "kernel-version", "", "OCI-based profiles: kernel version `MAJOR.MINOR` for minKernel conditions (default: "+oci.DefaultKernelVersion+")")
	fl.StringVar(&lf.Arch, "arch", "", ArchUsage)
	fl.StringVar(&lf.ProfileName, "profile-name", "", "Kubernetes files: the SeccompProfile `NAME` (metadata.name or namespace/name) to load (default: the file's only one)")
	fl.StringArrayVar(&lf.Bases, "base", nil, "Kubernetes files: a `FILE` holding base profiles (repeatable)")
	fl.StringVar(&lf.Runtime, "runtime", "", "OCI-based profiles: the runtime whose installation to model: runc (1.2+: ENOSYS stub, binary tree above 32 names), runc-1.1 (stub, libseccomp's default layout) or crun (neither) (default: runc)")
	fl.StringVar(&lf.MinijailToolchain, "minijail-toolchain", "", "minijail policies: whose reading to model where they differ (a repeated syscall, \"expr; action\"): c (ChromeOS's minijail0), android (its minijail, duplicates allowed) or python (compile_seccomp_policy.py, as crosvm builds) (default: auto, from the file: crosvm's and AOSP's includes and directories)")
	fl.StringArrayVar(&lf.IncludePath, "include-path", nil, "minijail policies: a `DIR` searched, by base name, for an absolute @include such as /system/etc/seccomp_policy/x.policy (repeatable; the including file's directory is searched too)")
	fl.StringArrayVar(&lf.IncludeRoot, "include-root", nil, "minijail policies: read an absolute @include under `OLD=NEW` from NEW, e.g. /usr/share/policy/crosvm=jail/seccomp/x86_64 (repeatable)")
	fl.StringVar(&lf.Root, "root", "", "Kubernetes workloads: the kubelet seccomp directory `DIR` Localhost profiles are relative to (default /var/lib/kubelet/seccomp); systemd units: read units (a bare name such as foo.service is looked up) and their drop-ins from the search path under DIR (etc/systemd/system, run/systemd/system, usr/lib/systemd/system, lib/systemd/system), symlinks resolved inside DIR; without it, the drop-in directories beside the unit file are read")
	AddSystemdVersionFlag(fl, lf)
	fl.StringVar(&lf.Thread, "thread", "", "Firecracker files: the thread category's filter to load: vmm, api or vcpu (default: all; simulate shows them side by side)")
}

// Options checks the flags and returns the load options they give, with
// in as the standard input "-" reads. Arch is always set: --arch resolved
// by LookupArch ("" is NativeArch()), so Beats policies are compiled for
// that host and OCI-based profiles resolved for its kernel's native ABI
// (formats.OpenOptions.Arch sets OCI.Arch). Bad values are *FlagError; a
// base file that cannot be read is not.
func (lf *LoadFlags) Options(in io.Reader) (formats.OpenOptions, error) {
	o := formats.OpenOptions{Stdin: in, ProfileName: lf.ProfileName, Thread: lf.Thread, SystemdRoot: lf.Root}
	var err error
	if o.Arch, err = LookupArch(lf.Arch); err != nil {
		return o, err
	}
	o.ArchDefaulted = lf.Arch == ""
	o.OCI.Arch = filters.KernelArches(o.Arch)[0].Name
	if o.Format, err = formats.ParseFormat(lf.FormatIn); err != nil {
		return o, &FlagError{Err: fmt.Errorf("--format-in: %w", err)}
	}
	if lf.Caps != "" {
		if o.OCI.Caps, err = oci.ParseCaps(lf.Caps); err != nil {
			return o, &FlagError{Err: fmt.Errorf("--caps: %w", err)}
		}
	}
	o.OCI.KernelVersion = lf.KernelVersion
	if o.OCI.Runtime, err = oci.ParseRuntime(lf.Runtime); err != nil {
		return o, &FlagError{Err: fmt.Errorf("--runtime: %w", err)}
	}
	if err := oci.CheckOptions(o.OCI); err != nil {
		return o, &FlagError{Err: fmt.Errorf("--kernel-version: %w", err)}
	}
	if o.Systemd.SystemdVersion, o.Systemd.VersionNote, err = SystemdVersion(lf.SystemdVersion); err != nil {
		return o, err
	}
	if lf.Thread != "" && !slices.Contains(FirecrackerThreads, lf.Thread) {
		return o, FlagErrorf("--thread: %q is not vmm, api or vcpu", lf.Thread)
	}
	if err := lf.minijailOptions(&o); err != nil {
		return o, err
	}
	for _, b := range lf.Bases {
		data, err := formats.ReadInput(b)
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

// minijailOptions sets o.Minijail from --minijail-toolchain,
// --include-path and --include-root; bad values are *FlagError.
func (lf *LoadFlags) minijailOptions(o *formats.OpenOptions) error {
	var err error
	if o.Minijail.Toolchain, err = minijail.ParseToolchain(lf.MinijailToolchain); err != nil {
		return &FlagError{Err: fmt.Errorf("--minijail-toolchain: %w", err)}
	}
	o.Minijail.IncludePath = lf.IncludePath
	for _, s := range lf.IncludeRoot {
		r, err := minijail.ParseIncludeRoot(s)
		if err != nil {
			return &FlagError{Err: fmt.Errorf("--include-root: %w", err)}
		}
		o.Minijail.IncludeRoots = append(o.Minijail.IncludeRoots, r)
	}
	return nil
}
