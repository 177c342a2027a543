// Package compile is the `compile` pipeline: loading a policy or a
// systemd unit, compiling it to BPF (--compiler's layouts side by side),
// the modeled stack of a unit (--systemd-stack) or of a stacked policy
// (snapd's two filters), --save's inspect-style directory, and writing
// the text, raw or JSON output.
package compile

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"time"

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
	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/runner/jit"
)

// Options are what `compile` compiles and how it writes it: its
// arguments and flags, checked by the command.
type Options struct {
	// Policy is POLICY: a file, "default", "docker-default" or "-"
	// (standard input).
	Policy string
	// Out are --format (text, raw or json) and -o; Specs what to write
	// (stdout in Out.Format, default text, when nil).
	Out   output.Flags
	Specs []output.Spec
	// Compiler is --compiler: native or libseccomp (scmp.ParseCompiler).
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
}

// Run compiles opts' policy (or unit) and writes it to ios, stamping
// --save's manifest with now (time.Now when nil). Errors in the flags or
// the input's kind are *cmdutil.FlagError (exit status 2).
func Run(ios *cmdutil.IOStreams, now func() time.Time, opts *Options) error {
	if now == nil {
		now = time.Now
	}
	r := &runner{io: ios, now: now, opts: opts}
	return r.run()
}

// runner is one Run: its streams, clock and options.
type runner struct {
	io   *cmdutil.IOStreams
	now  func() time.Time
	opts *Options
}

// loadPolicy loads the policy with load and o. An unsupported or
// ambiguous format is a usage error; a missing file's error says what
// POLICY may be.
func loadPolicy(load func(formats.OpenOptions) (*filters.Source, error), o formats.OpenOptions) (*filters.Source, error) {
	src, err := load(o)
	if errors.Is(err, formats.ErrUnsupportedFormat) || errors.Is(err, formats.ErrAlternatives) {
		return nil, &cmdutil.FlagError{Err: fmt.Errorf("compile policy: %w", err)}
	}
	if errors.Is(err, formats.ErrBareUnit) {
		return nil, err // it says what a bare unit name needs
	}
	if cmdutil.MissingPolicy(err) {
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
func compileLayouts(ios *cmdutil.IOStreams, src *filters.Source, load func(formats.OpenOptions) (*filters.Source, error), o formats.OpenOptions, name string, data []byte, comp scmp.Compiler) (*document.Layouts, error) {
	var layouts *document.Layouts
	var err error
	if src.Format == string(formats.OCI) {
		if layouts, err = cmdutil.OCILayouts(load, o); err != nil {
			return nil, fmt.Errorf("compile policy: %w", err)
		}
	} else if comp != scmp.CompilerNative {
		fmt.Fprintf(ios.ErrOut, "note: --compiler applies to OCI profiles; %s is not one and is shown as loaded\n", name)
	}
	if layouts != nil && comp == scmp.CompilerLibseccomp {
		if layouts.Variants, err = cmdutil.OCIVariants(name, data, o); err != nil {
			return nil, fmt.Errorf("compile policy: %w", err)
		}
	}
	if formats.UsesOCI(src.Format) {
		if layouts == nil {
			layouts = &document.Layouts{}
		}
		r := o.OCI.Resolution()
		layouts.OCI = cmdutil.NewOCIResolution(&r)
	}
	return layouts, nil
}

// unitPolicy reports whether POLICY spec (read as name, whose content is
// data, nil for no such file) is a systemd unit, which compile models
// as --systemd-stack does: one by path (o.Format, or detected; an empty
// file of a unit's name is a masked unit, which systemdStack says), or
// a bare unit name under root (looked up in its search path).
func unitPolicy(spec, name string, data []byte, o formats.OpenOptions, root string) bool {
	if o.Format != formats.SystemdUnit && o.Format != formats.Unknown {
		return false
	}
	if data == nil {
		return formats.RootUnitName(spec, root)
	}
	return o.Format == formats.SystemdUnit || formats.DetectFormat(name, data) == formats.SystemdUnit ||
		spec != formats.StdinName && systemd.IsUnitName(spec) && len(bytes.TrimSpace(data)) == 0
}

// SystemdArch reports whether the systemd model (x86_64 only) fits the
// host of o, opened from load: --arch left out (the model is x86_64's
// whatever this machine is) or naming an ABI of the x86_64 kernel.
func SystemdArch(load cmdutil.LoadFlags, o formats.OpenOptions) bool {
	return load.Arch == "" || filters.KernelArches(o.Arch)[0] == filters.ArchX86_64
}

// compileSystemdStack prints the modeled stack of the unit spec (read as
// name, whose content is data; nil data for a bare name under --root),
// merged with its drop-ins.
func (r *runner) systemdStack(spec, name string, data []byte, comp scmp.Compiler) error {
	opts := r.opts
	if err := formats.MissingUnit(spec, opts.Load.Root); err != nil {
		return err
	}
	if data == nil && !formats.RootUnitName(spec, opts.Load.Root) {
		return fmt.Errorf("read systemd unit: open %s: %w", spec, fs.ErrNotExist)
	}
	var dropIns []systemd.File
	if spec != formats.StdinName {
		// The unit's drop-ins, as systemd merges them (with --root, a
		// bare name was looked up in its search path).
		u, err := formats.LookupUnit(spec, opts.Load.Root)
		if err != nil {
			return fmt.Errorf("model systemd stack: %w", err)
		}
		name, data, dropIns = u.Name, u.Data, u.DropIns
		for _, w := range u.Warnings {
			fmt.Fprintf(r.io.ErrOut, "warning: %s\n", w)
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
		fmt.Fprintf(r.io.ErrOut, "warning: %s\n", w)
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
	if slices.ContainsFunc(opts.Outputs(), func(s output.Spec) bool { return s.Format == "raw" }) {
		return cmdutil.FlagErrorf("--format raw: a systemd stack is several filters; use --format text or json, or --save DIR for one raw file per filter")
	}
	if opts.Save != "" {
		if err := r.saveStack(unit.Source(), document.InspectManifest{Modeled: document.ModeledSystemd, ModeledFrom: name, ModeledFormat: "systemd", ModeledLayout: comp.String()}); err != nil {
			return err
		}
	}
	return output.WriteEach(opts.Outputs(), r.io.Out, r.io.ErrOut, func(format string, w io.Writer) error {
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
func (r *runner) stack(src *filters.Source) error {
	opts := r.opts
	for _, s := range opts.Outputs() {
		if s.Format != "text" {
			return cmdutil.FlagErrorf("--format %s: %s installs a stack of %d filters; use --format text, or --save DIR for one raw file per filter", s.Format, src.Name, len(src.Filters))
		}
	}
	cmdutil.PrintWarnings(r.io.ErrOut, src.Filters)
	for _, w := range src.Warnings {
		fmt.Fprintf(r.io.ErrOut, "warning: %s\n", w)
	}
	if _, err := filters.BuildStack(src.Filters, len(src.Filters)); err != nil && len(src.Filters) > 0 {
		return fmt.Errorf("compile policy %s: %w", src.Name, err)
	}
	if opts.Save != "" {
		if err := r.saveStack(src, document.InspectManifest{Modeled: document.ModeledStack, ModeledFrom: src.Name, ModeledFormat: src.Format}); err != nil {
			return err
		}
	}
	ji := jit.ReadJITInfo()
	return output.WriteEach(opts.Outputs(), r.io.Out, r.io.ErrOut, func(_ string, w io.Writer) error {
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

// Outputs are the outputs to write: Specs, or stdout in --format
// (default text) when none (output.Or).
func (opts *Options) Outputs() []output.Spec {
	return output.Or(opts.Specs, cmp.Or(opts.Out.Format, "text"))
}

// saveStack writes src's filters to opts.Save in inspect --save's
// layout, each with its directive (src.Parts) and arch (src.Arches), with
// a manifest that says what was modeled (m's Modeled fields).
func (r *runner) saveStack(src *filters.Source, m document.InspectManifest) error {
	opts := r.opts
	var directive []string
	for _, p := range src.Parts {
		for range p.Count {
			directive = append(directive, p.Name)
		}
	}
	m.Name, m.Captured = src.Name, r.now().UTC().Format(time.RFC3339)
	err := inspect.SaveStack(opts.Save, m, src.Filters, func(i int, f *document.InspectSavedFilter) {
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
	fmt.Fprintf(r.io.ErrOut, "saved %s to %s\n", report.Plural(len(src.Filters), "filter"), opts.Save)
	return nil
}

// run compiles r.opts's policy or unit and writes it.
func (r *runner) run() error {
	opts := r.opts
	comp, err := scmp.ParseCompiler(opts.Compiler)
	if err != nil {
		return &cmdutil.FlagError{Err: err}
	}
	o, err := opts.Load.Options(r.io.In)
	if err != nil {
		return err
	}
	o.Compiler = comp
	spec := opts.Policy
	if opts.SystemdStack != "" {
		spec = opts.SystemdStack
	}
	name, data, err := cmdutil.ReadSpec(spec, r.io.In)
	if err != nil {
		return err
	}
	if opts.SystemdStack != "" {
		return r.systemdStack(spec, name, data, comp)
	}
	if unitPolicy(spec, name, data, o, opts.Load.Root) {
		if !SystemdArch(opts.Load, o) {
			return cmdutil.FlagErrorf("compile %s: a systemd unit is modeled for x86_64 hosts only, not --arch %s", name, opts.Load.Arch)
		}
		return r.systemdStack(spec, name, data, comp)
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
		return r.stack(src)
	}
	if err := formats.OneFilter(src); err != nil {
		return &cmdutil.FlagError{Err: fmt.Errorf("compile policy: %w", err)}
	}
	p := src.Filters[0]
	cmdutil.PrintWarnings(r.io.ErrOut, []*filters.Program{p})
	// A filter the kernel would refuse is not printed as if it were one
	// (run, simulate and lint refuse it too).
	if _, err := filters.BuildStack([]*filters.Program{p}, 1); err != nil {
		return fmt.Errorf("compile policy %s: %w", name, err)
	}
	layouts, err := compileLayouts(r.io, src, load, o, name, data, comp)
	if err != nil {
		return err
	}
	if opts.Save != "" {
		if err := r.saveStack(src, document.InspectManifest{Modeled: document.ModeledPolicy, ModeledFrom: name, ModeledFormat: src.Format}); err != nil {
			return err
		}
	}
	// The JIT memory the filter takes once loaded, predicted from its size.
	ji := jit.ReadJITInfo()
	jit := jitcost.Estimate(jitcost.Model([]*filters.Program{p}, ji.Kernel), ji.Limit)
	return output.WriteEach(opts.Outputs(), r.io.Out, r.io.ErrOut, func(format string, w io.Writer) error {
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
