package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/inspect"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/jitcost"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/filters/oci"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"github.com/seccompbench/seccompbench/filters/systemd"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/runner/jit"
)

// CompileOptions are the flags and arguments of `seccompbench compile`.
type CompileOptions struct {
	IO *cmdutil.IOStreams

	Policy string
	// Out are --format (text, raw or json) and -o; Specs what to write.
	Out      output.Flags
	Specs    []output.Spec
	Compiler string
	// SystemdStack is a unit file whose modeled filter stack is printed
	// instead of a policy ("-": standard input).
	SystemdStack string
	// Save is a directory to write the compiled filters to, as inspect
	// --save does (--save).
	Save string
	// Load are --format-in, --caps, --kernel-version, --arch,
	// --profile-name, --base and --thread.
	Load cmdutil.LoadFlags
	// Now stamps --save's manifest.
	Now func() time.Time
}

// NewCmdCompile builds `seccompbench compile`. runF, if not nil, replaces
// compileRun (tests use it to check flag parsing).
func NewCmdCompile(f *cmdutil.Factory, runF func(*CompileOptions) error) *cobra.Command {
	opts := &CompileOptions{IO: f.IO, Now: f.Now}
	cmd := &cobra.Command{
		Use:   "compile POLICY | --systemd-stack UNIT",
		Short: "Show the BPF filter a policy compiles to",
		Long: `Compile a policy and print the classic BPF filter the kernel would run.

--format text is a disassembly: one line per instruction with its line
number, jump targets as line numbers, the syscall name next to each number
compared after ld [nr], and action names on ret (e.g. ret ERRNO(1)).
--format raw writes the filter as an array of struct sock_filter (8 bytes
per instruction, little-endian), the format bubblewrap --seccomp reads and
libseccomp's seccomp_export_bpf writes.
--format json carries the instructions and counts.

--compiler chooses who lays out an OCI profile (and docker-default):
native (this tool's layout) or libseccomp (what runc installs: libseccomp's
program, binary tree above 32 rules, runc's ENOSYS stub in front). Both
give the same verdicts; the instruction counts differ, and text and json
output show both side by side. libseccomp needs a binary built with
-tags libseccomp (cgo and libseccomp-dev). Beats policies are compiled by
go-seccomp-bpf and raw BPF is shown as it is, whatever --compiler says.

POLICY is a policy file of any format run reads ("-": standard input),
"default" for the embedded default policy or "docker-default" for Docker's
default profile. A Firecracker file holds one filter per thread category:
pick one with --thread. For OCI-based formats, the output says which
capabilities, kernel version and host arch resolved the profile's
conditions (--caps, --kernel-version, --arch).

--arch compiles for a host of that native ABI (default: this machine's
native ABI): a Beats policy is assembled as go-seccomp-bpf does on that
architecture (its audit arch checked, its syscall numbers; names it lacks
are dropped with a warning), an OCI-based profile resolves that host's
architectures. A compat ABI (i386, x32, arm) stands for its kernel's
native one (x86_64, x86_64, aarch64).

--systemd-stack UNIT (or a unit given as POLICY) prints the stack of
filters systemd 252 installs for the unit on x86_64 (one filter per local
architecture per directive, in systemd's order), with a count per
directive, ending with "N filters". --save DIR writes the compiled
filters as DIR/filter-NN.bpf (raw, oldest first) plus DIR/manifest.json
(directive, arch and instructions of each), the layout inspect --save
writes, so run, simulate and bubblewrap can use them.` + cmdutil.ExitStatusHelp(""),
		Example: `  seccompbench compile default
  seccompbench compile testdata/policies/denylist.yaml --format raw > filter.bpf
  seccompbench compile docker-default --compiler libseccomp
  seccompbench compile --systemd-stack testdata/policies/hardened.service
  seccompbench compile --systemd-stack testdata/policies/hardened.service --save stack/
  seccompbench compile testdata/policies/firecracker-vmm.json --thread vcpu
  seccompbench compile --arch aarch64 default`,
		Args: func(cmd *cobra.Command, args []string) error { return opts.checkArgs(args) },
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.complete(cmd, args); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return compileRun(opts)
		},
	}
	output.AddFlags(cmd.Flags(), &opts.Out, compileFormats, "text", "the filter")
	cmd.Flags().StringVar(&opts.Compiler, "compiler", "native", "who lays out OCI profiles and systemd filters: native or libseccomp (needs a -tags libseccomp build)")
	cmd.Flags().StringVar(&opts.SystemdStack, "systemd-stack", "", "print the filter stack systemd installs for the unit `FILE`")
	cmd.Flags().StringVar(&opts.Save, "save", "", "also write the filters as raw BPF plus manifest.json into `DIR`, as inspect --save does")
	cmdutil.AddLoadFlags(cmd.Flags(), &opts.Load)
	return cmd
}

// loadPolicy loads the policy with load and o. An unsupported or
// ambiguous format is a usage error; a missing file's error says what
// POLICY may be.
func loadPolicy(load func(formats.OpenOptions) (*filters.Source, error), o formats.OpenOptions) (*filters.Source, error) {
	src, err := load(o)
	if errors.Is(err, formats.ErrUnsupportedFormat) || errors.Is(err, formats.ErrAlternatives) {
		return nil, &cmdutil.FlagError{Err: fmt.Errorf("compile policy: %w", err)}
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("compile policy: %w; POLICY is a file, \"default\", %q or \"-\" (standard input)", err, oci.DockerDefaultName)
	}
	if err != nil {
		return nil, fmt.Errorf("compile policy: %w", err)
	}
	return src, nil
}

// compileLayouts returns what compile shows beside the filter of src
// (loaded from name and data, nil data meaning a file or built-in name):
// for an OCI profile both compilers' layouts, with comp libseccomp also
// libseccomp's variants, and for every OCI-based format how the profile's
// conditions resolved; nil for other formats, with a note on ErrOut when
// --compiler asked for a layout that does not apply.
func compileLayouts(opts *CompileOptions, src *filters.Source, load func(formats.OpenOptions) (*filters.Source, error), o formats.OpenOptions, name string, data []byte, comp scmp.Compiler) (*report.Layouts, error) {
	var layouts *report.Layouts
	var err error
	if src.Format == string(formats.OCI) {
		if layouts, err = cmdutil.OCILayouts(load, o); err != nil {
			return nil, fmt.Errorf("compile policy: %w", err)
		}
	} else if comp != scmp.CompilerNative {
		fmt.Fprintf(opts.IO.ErrOut, "note: --compiler applies to OCI profiles; %s is not one and is shown as loaded\n", name)
	}
	if layouts != nil && comp == scmp.CompilerLibseccomp {
		if layouts.Variants, err = cmdutil.OCIVariants(name, data, o); err != nil {
			return nil, fmt.Errorf("compile policy: %w", err)
		}
	}
	if formats.UsesOCI(src.Format) {
		if layouts == nil {
			layouts = &report.Layouts{}
		}
		r := o.OCI.Resolution()
		layouts.OCI = cmdutil.NewOCIResolution(&r)
	}
	return layouts, nil
}

// checkArgs fails with a usage error unless args is exactly one POLICY,
// or none with --systemd-stack.
func (opts *CompileOptions) checkArgs(args []string) error {
	if opts.SystemdStack != "" {
		if len(args) != 0 {
			return cmdutil.FlagErrorf("compile: give POLICY or --systemd-stack UNIT, not both")
		}
		return nil
	}
	if len(args) != 1 {
		return cmdutil.FlagErrorf("compile: need exactly one POLICY (or --systemd-stack UNIT), got %d arguments", len(args))
	}
	return nil
}

// complete sets opts.Policy from args and opts.Specs from the output
// flags, and checks --compiler, the load flags and that --systemd-stack
// models the --arch host.
func (opts *CompileOptions) complete(cmd *cobra.Command, args []string) error {
	if len(args) == 1 {
		opts.Policy = args[0]
	}
	var err error
	if opts.Specs, err = opts.Out.Resolve(compileFormats, cmd.Flags().Changed("format")); err != nil {
		return err
	}
	if _, err := scmp.ParseCompiler(opts.Compiler); err != nil {
		return cmdutil.FlagErrorf("--compiler: %q is not native or libseccomp", opts.Compiler)
	}
	o, err := opts.Load.Options(nil)
	if err != nil {
		return err
	}
	if opts.SystemdStack != "" && !systemdArch(opts, o) {
		return cmdutil.FlagErrorf("--systemd-stack models x86_64 hosts only, not --arch %s", opts.Load.Arch)
	}
	return nil
}

// compileFormats are the output formats of `compile`.
var compileFormats = []string{"text", "raw", "json"}

// systemdArch reports whether the systemd model (x86_64 only) fits o's
// host: --arch left out (the model is x86_64's whatever this machine
// is) or naming an ABI of the x86_64 kernel.
func systemdArch(opts *CompileOptions, o formats.OpenOptions) bool {
	return opts.Load.Arch == "" || filters.KernelArches(o.Arch)[0] == filters.ArchX86_64
}

// compileSystemdStack prints the modeled stack of the unit spec (read as
// name, whose content is data; nil data for a bare name under --root),
// merged with its drop-ins.
func compileSystemdStack(opts *CompileOptions, spec, name string, data []byte, comp scmp.Compiler) error {
	if data == nil && !formats.RootUnitName(spec, opts.Load.Root) {
		return fmt.Errorf("read systemd unit: open %s: %w", spec, fs.ErrNotExist)
	}
	var dropIns []systemd.File
	if spec != formats.StdinName {
		// The unit's drop-ins, as systemd merges them (with --root, a
		// bare name was looked up in its search path).
		var err error
		if name, data, dropIns, err = formats.ReadUnit(spec, opts.Load.Root); err != nil {
			return fmt.Errorf("model systemd stack: %w", err)
		}
	}
	ver, note, err := cmdutil.SystemdVersion(opts.Load.SystemdVersion)
	if err != nil {
		return err
	}
	unit, err := systemd.ParseUnit(name, data, systemd.Options{Compiler: comp, DropIns: dropIns, SystemdVersion: ver, VersionNote: note})
	if err != nil {
		return fmt.Errorf("model systemd stack: %w", err)
	}
	for _, w := range unit.Warnings {
		fmt.Fprintf(opts.IO.ErrOut, "warning: %s\n", w)
	}
	total := func(u *systemd.Stack) int {
		n := 0
		for _, p := range u.Programs {
			n += p.Len()
		}
		return n
	}
	layouts := map[string]int{comp.String(): total(unit)}
	other := scmp.CompilerNative
	if comp == scmp.CompilerNative {
		other = scmp.CompilerLibseccomp
	}
	if other == scmp.CompilerNative || scmp.LibseccompAvailable() {
		if u2, err := systemd.ParseUnit(name, data, systemd.Options{Compiler: other, DropIns: dropIns, SystemdVersion: ver, VersionNote: note}); err == nil {
			layouts[other.String()] = total(u2)
		}
	}
	if slices.ContainsFunc(opts.specs(), func(s output.Spec) bool { return s.Format == "raw" }) {
		return cmdutil.FlagErrorf("--format raw: a systemd stack is several filters; use --format text or json, or --save DIR for one raw file per filter")
	}
	if opts.Save != "" {
		if err := saveStack(opts, unit.Source(), report.InspectManifest{Modeled: report.ModeledSystemd, ModeledFrom: name, ModeledFormat: "systemd", ModeledLayout: comp.String()}); err != nil {
			return err
		}
	}
	return output.WriteEach(opts.specs(), opts.IO.Out, opts.IO.ErrOut, func(format string, w io.Writer) error {
		if format == "json" {
			return report.WriteSystemdStackJSON(w, unit, comp, layouts)
		}
		return report.WriteSystemdStackText(w, unit, comp, layouts)
	})
}

// compileStack prints a stack that a policy other than a systemd unit
// installs (a snapd profile: its deny and allow filters): each filter's
// text, in install order, or the filters saved with --save DIR. Raw and
// JSON outputs hold one filter, so they are refused.
func compileStack(opts *CompileOptions, src *filters.Source) error {
	for _, s := range opts.specs() {
		if s.Format != "text" {
			return cmdutil.FlagErrorf("--format %s: %s installs a stack of %d filters; use --format text, or --save DIR for one raw file per filter", s.Format, src.Name, len(src.Filters))
		}
	}
	cmdutil.PrintWarnings(opts.IO.ErrOut, src.Filters)
	for _, w := range src.Warnings {
		fmt.Fprintf(opts.IO.ErrOut, "warning: %s\n", w)
	}
	if _, err := filters.BuildStack(src.Filters, len(src.Filters)); err != nil && len(src.Filters) > 0 {
		return fmt.Errorf("compile policy %s: %w", src.Name, err)
	}
	if opts.Save != "" {
		if err := saveStack(opts, src, report.InspectManifest{Modeled: report.ModeledStack, ModeledFrom: src.Name, ModeledFormat: src.Format}); err != nil {
			return err
		}
	}
	ji := jit.ReadJITInfo()
	return output.WriteEach(opts.specs(), opts.IO.Out, opts.IO.ErrOut, func(_ string, w io.Writer) error {
		fmt.Fprintf(w, "%s: a stack of %d filters, installed in this order\n", src.Name, len(src.Filters))
		for i, p := range src.Filters {
			fmt.Fprintf(w, "\n== filter %d of %d: %s ==\n", i, len(src.Filters), p.Name)
			est := jitcost.Estimate(jitcost.Model([]*filters.Program{p}, ji.Kernel), ji.Limit)
			if err := report.WriteCompileText(w, p, scmp.CompilerNative, nil, est); err != nil {
				return err
			}
		}
		return nil
	})
}

// specs are the outputs to write (output.Or).
func (opts *CompileOptions) specs() []output.Spec {
	return output.Or(opts.Specs, cmp.Or(opts.Out.Format, "text"))
}

// saveStack writes src's filters to opts.Save in inspect --save's
// layout, each with its directive (src.Parts) and arch (src.Arches), with
// a manifest that says what was modeled (m's Modeled fields).
func saveStack(opts *CompileOptions, src *filters.Source, m report.InspectManifest) error {
	var directive []string
	for _, p := range src.Parts {
		for range p.Count {
			directive = append(directive, p.Name)
		}
	}
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	m.Name, m.Captured = src.Name, now().UTC().Format(time.RFC3339)
	err := inspect.SaveStack(opts.Save, m, src.Filters, func(i int, f *report.InspectSavedFilter) {
		f.Name = src.Filters[i].Name
		if i < len(directive) && src.Stacked {
			f.Directive = directive[i]
		}
		if i < len(src.Arches) {
			f.Arch = src.Arches[i]
		}
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.ErrOut, "saved %s to %s\n", report.Plural(len(src.Filters), "filter"), opts.Save)
	return nil
}

func compileRun(opts *CompileOptions) error {
	comp, err := scmp.ParseCompiler(opts.Compiler)
	if err != nil {
		return &cmdutil.FlagError{Err: err}
	}
	o, err := opts.Load.Options(opts.IO.In)
	if err != nil {
		return err
	}
	o.Compiler = comp
	spec := opts.Policy
	if opts.SystemdStack != "" {
		spec = opts.SystemdStack
	}
	name, data, err := cmdutil.ReadSpec(spec, opts.IO.In)
	if err != nil {
		return err
	}
	if opts.SystemdStack != "" {
		return compileSystemdStack(opts, spec, name, data, comp)
	}
	if data != nil && (o.Format == formats.SystemdUnit || o.Format == formats.Unknown && formats.DetectFormat(name, data) == formats.SystemdUnit) {
		if !systemdArch(opts, o) {
			return cmdutil.FlagErrorf("compile %s: a systemd unit is modeled for x86_64 hosts only, not --arch %s", name, opts.Load.Arch)
		}
		return compileSystemdStack(opts, spec, name, data, comp)
	}
	load := func(o formats.OpenOptions) (*filters.Source, error) {
		if data == nil {
			return formats.Load(spec, o)
		}
		// Standard input has no path to take a minijail ABI or
		// toolchain from (formats.Load says so for its own reads).
		o.Minijail.Stdin = spec == formats.StdinName
		return formats.LoadData(name, data, o)
	}
	src, err := loadPolicy(load, o)
	if err != nil {
		return err
	}
	if src.Stacked && src.Format != string(formats.SystemdUnit) {
		return compileStack(opts, src)
	}
	if err := formats.OneFilter(src); err != nil {
		return &cmdutil.FlagError{Err: fmt.Errorf("compile policy: %w", err)}
	}
	p := src.Filters[0]
	cmdutil.PrintWarnings(opts.IO.ErrOut, []*filters.Program{p})
	// A filter the kernel would refuse is not printed as if it were one
	// (run, simulate and lint refuse it too).
	if _, err := filters.BuildStack([]*filters.Program{p}, 1); err != nil {
		return fmt.Errorf("compile policy %s: %w", name, err)
	}
	layouts, err := compileLayouts(opts, src, load, o, name, data, comp)
	if err != nil {
		return err
	}
	if opts.Save != "" {
		if err := saveStack(opts, src, report.InspectManifest{Modeled: report.ModeledPolicy, ModeledFrom: name, ModeledFormat: src.Format}); err != nil {
			return err
		}
	}
	// The JIT memory the filter takes once loaded, predicted from its size.
	ji := jit.ReadJITInfo()
	jit := jitcost.Estimate(jitcost.Model([]*filters.Program{p}, ji.Kernel), ji.Limit)
	return output.WriteEach(opts.specs(), opts.IO.Out, opts.IO.ErrOut, func(format string, w io.Writer) error {
		switch format {
		case "raw":
			return writeRaw(w, p)
		case "json":
			return report.WriteCompileJSON(w, p, comp, layouts, jit)
		}
		return report.WriteCompileText(w, p, comp, layouts, jit)
	})
}

// writeRaw writes p as an array of struct sock_filter.
func writeRaw(w io.Writer, p *filters.Program) error {
	if _, err := w.Write(p.Bytes()); err != nil {
		return fmt.Errorf("write filter: %w", err)
	}
	return nil
}
