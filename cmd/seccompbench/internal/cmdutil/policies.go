package cmdutil

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/filters/oci"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/report/document"
)

// Loaded is what LoadPolicies opened: each source, and its filters
// flattened into one stack in install order.
type Loaded struct {
	// Sources are the loaded sources, one per POLICY.
	Sources []*filters.Source
	// Progs are the sources' filters, source after source, each source's
	// in install order (a systemd unit contributes its whole stack).
	Progs []*filters.Program
	// Pols describe each source for the report: one entry per source
	// (a unit's entry sums its filters' instructions).
	Pols []document.Policy
}

// LoadPolicies opens each policy argument ("-": o.Stdin, at most once)
// and describes it for the report. An unsupported format is a
// *FlagError; a missing file or a directory names what POLICY may be. A
// source of alternative filters (a Firecracker file without --thread)
// is kept as it is: Progs then holds every alternative, and
// Alternatives splits them.
func LoadPolicies(specs []string, o formats.OpenOptions) (*Loaded, error) {
	l := &Loaded{}
	if n := countStdin(specs); n > 1 {
		return nil, FlagErrorf("POLICY %q (standard input) given %d times; it can be read once", formats.StdinName, n)
	}
	for _, s := range specs {
		t0 := time.Now()
		var src *filters.Source
		var err error
		if fi, serr := os.Stat(s); serr == nil && fi.IsDir() {
			src, err = stackDirSource(s)
		} else {
			src, err = formats.Load(s, o)
		}
		if errors.Is(err, formats.ErrUnsupportedFormat) || errors.Is(err, formats.ErrAlternatives) {
			return nil, &FlagError{Err: openPolicyError(err)}
		}
		if errors.Is(err, formats.ErrBareUnit) {
			return nil, err // it says what a bare unit name needs
		}
		if MissingPolicy(err) {
			return nil, fmt.Errorf("%w; POLICY is a file, \"default\", %q or \"-\" (standard input)", openPolicyError(err), oci.DockerDefaultName)
		}
		var pe *fs.PathError
		if errors.As(err, &pe) && errors.Is(pe.Err, syscall.EISDIR) {
			return nil, fmt.Errorf("open policy %s: is a directory; POLICY is a file, a directory written by inspect --save or compile --save, \"default\", %q or \"-\" (standard input)", s, oci.DockerDefaultName)
		}
		if err != nil {
			return nil, openPolicyError(err)
		}
		compile := time.Since(t0)
		l.Sources = append(l.Sources, src)
		l.Progs = append(l.Progs, src.Filters...)
		pol := describe(src, compile)
		pol.ABIs = filters.StackABIs(src.Filters)
		if formats.UsesOCI(src.Format) {
			r := o.OCI.Resolution()
			pol.OCI = NewOCIResolution(&r)
		}
		l.Pols = append(l.Pols, pol)
	}
	return l, nil
}

// MissingPolicy reports whether err, from formats.Load, says the POLICY
// file itself does not exist, so that what POLICY may be is worth saying.
// A missing file that a policy names (an nsjail config's
// seccomp_policy_file) comes in a *filters.SourceError naming the policy
// and its line: that is not POLICY's fault, and gets no such hint.
func MissingPolicy(err error) bool {
	var se *filters.SourceError
	return errors.Is(err, fs.ErrNotExist) && !errors.As(err, &se)
}

// openPolicyError prefixes err with "open policy: " unless it already
// says what failed: formats.Load's read errors ("open /x: no such file or
// directory", "read stdin: input too large: …") and its own ("open filter
// \"x\": …"); "open policy: open filter: open /x: …" said it thrice.
func openPolicyError(err error) error {
	if msg := err.Error(); strings.HasPrefix(msg, "open ") || strings.HasPrefix(msg, "read ") {
		return err
	}
	return fmt.Errorf("open policy: %w", err)
}

// countStdin counts the specs that read standard input.
func countStdin(specs []string) int {
	n := 0
	for _, s := range specs {
		if s == formats.StdinName {
			n++
		}
	}
	return n
}

// describe is the report's entry for src: its path, hash and
// instructions (summed over a stack's filters).
func describe(src *filters.Source, compile time.Duration) document.Policy {
	us := float64(compile.Nanoseconds()) / 1e3
	if len(src.Filters) == 1 && !src.Stacked {
		p := src.Filters[0]
		return document.Policy{Path: p.Source, SHA256: p.SourceSHA256, Instructions: p.Len(), CompileUs: us}
	}
	n := 0
	for _, p := range src.Filters {
		n += p.Len()
	}
	kind := "alternative filters"
	switch {
	case src.Format == StackDirFormat:
		kind = "saved stack"
	case src.Stacked && src.Format == string(formats.SystemdUnit):
		kind = "systemd stack"
	case src.Stacked:
		kind = src.Format + " stack"
	}
	pol := document.Policy{Path: fmt.Sprintf("%s (%s of %s)", src.Name, kind, report.Plural(len(src.Filters), "filter")), Instructions: n, CompileUs: us}
	if len(src.Filters) > 0 {
		pol.SHA256 = src.Filters[0].SourceSHA256
	}
	return pol
}

// Alternative is one choice among a source's alternative filters (a
// Firecracker thread category) with the stack it gives.
type Alternative struct {
	// Name names the choice, e.g. "vmm"; "" when there is no choice.
	Name string
	// Progs is the stack with that choice made.
	Progs []*filters.Program
}

// Alternatives splits Progs by the alternatives of its one source that
// has several (a Firecracker file without --thread): one stack per
// choice, the other sources' filters around it as given. Without such a
// source it returns the one stack, unnamed. Two such sources are a
// *FlagError naming --thread.
func (l *Loaded) Alternatives() ([]Alternative, error) {
	alt := -1
	for i, src := range l.Sources {
		if !src.Stacked && len(src.Filters) > 1 {
			if alt >= 0 {
				return nil, FlagErrorf("%s and %s both hold alternative filters; choose one with --thread", l.Sources[alt].Name, src.Name)
			}
			alt = i
		}
	}
	if alt < 0 {
		return []Alternative{{Progs: l.Progs}}, nil
	}
	var out []Alternative
	for _, choice := range l.Sources[alt].Filters {
		var progs []*filters.Program
		for i, src := range l.Sources {
			if i == alt {
				progs = append(progs, choice)
				continue
			}
			progs = append(progs, src.Filters...)
		}
		out = append(out, Alternative{Name: choice.Name, Progs: progs})
	}
	return out, nil
}

// PrintWarnings prints what the loaders noticed in the sources on w: its
// filters' Program.Notes as "note: " lines, then one "warning: " line
// each: a source's located Warnings (a systemd unit's
// unknown lines and template placeholders), else its filters'
// Program.Warnings, each distinct text once.
func (l *Loaded) PrintWarnings(w io.Writer) {
	seen := map[string]bool{}
	for _, src := range l.Sources {
		if src.Toolchain != "" {
			fmt.Fprintf(w, "note: %s: read as %s\n", src.Name, src.Toolchain)
		}
		for _, p := range src.Filters {
			for _, n := range p.Notes {
				if !seen[n] {
					seen[n] = true
					fmt.Fprintf(w, "note: %s\n", n)
				}
			}
		}
		texts := filters.WarningText(src.Warnings)
		if len(texts) == 0 {
			for _, p := range src.Filters {
				texts = append(texts, p.Warnings...)
			}
		}
		for _, t := range texts {
			if !seen[t] {
				seen[t] = true
				fmt.Fprintf(w, "warning: %s\n", t)
			}
		}
	}
}

// OCIResolution returns what resolved the OCI-based sources (OCI
// profiles, docker-default, Kubernetes, Firecracker, LXC, minijail) under
// o, for outputs to state; nil when no source is OCI-based.
func (l *Loaded) OCIResolution(o formats.OpenOptions) *document.OCIResolution {
	for _, src := range l.Sources {
		if formats.UsesOCI(src.Format) {
			r := o.OCI.Resolution()
			return NewOCIResolution(&r)
		}
	}
	return nil
}

// OneStack returns l's stack for commands that measure or compile one
// stack: a source of alternative filters is a *FlagError that names them
// and --thread.
func OneStack(l *Loaded) ([]*filters.Program, error) {
	for _, src := range l.Sources {
		if !src.Stacked && len(src.Filters) > 1 {
			return nil, &FlagError{Err: openPolicyError(formats.OneFilter(src))}
		}
	}
	return l.Progs, nil
}

// OpenPolicies is LoadPolicies and OneStack: the stack's filters and the
// report's description of each source.
func OpenPolicies(specs []string, o formats.OpenOptions) ([]*filters.Program, []document.Policy, error) {
	l, err := LoadPolicies(specs, o)
	if err != nil {
		return nil, nil, err
	}
	progs, err := OneStack(l)
	if err != nil {
		return nil, nil, err
	}
	return progs, l.Pols, nil
}

// ReadDocument reads a run result (`run --format json`) from path; what
// names the file in errors ("result", "calibration"). A JSON document of
// another kind gives an error wrapping document.ErrWrongKind, e.g. "b.json
// is a compare document, want a run result" (a usage error: exit 2).
func ReadDocument(path, what string) (*document.Document, error) {
	data, err := formats.ReadInput(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", what, err)
	}
	d, err := report.ReadJSON(bytes.NewReader(data))
	if errors.Is(err, document.ErrWrongKind) {
		return nil, fmt.Errorf("%s is %w", path, err)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s %s: %w", what, path, err)
	}
	return d, nil
}

// PrintWarnings prints what the loaders noticed in the policies' sources
// (filters.Program.Warnings, e.g. OCI syscall names no table knows) on w,
// one "warning: " line each, after its notes (Program.Notes) as "note: "
// lines. lint reports them as findings instead.
func PrintWarnings(w io.Writer, progs []*filters.Program) {
	for _, p := range progs {
		for _, msg := range p.Notes {
			fmt.Fprintf(w, "note: %s\n", msg)
		}
		for _, msg := range p.Warnings {
			fmt.Fprintf(w, "warning: %s\n", msg)
		}
	}
}

// compilerUsage is the help text of every --compiler flag.
const compilerUsage = "who lays out OCI profiles (and docker-default): native or libseccomp (as runc installs them; needs a -tags libseccomp build)"

// compilerValue is a --compiler flag: a scmp.Compiler set through
// scmp.ParseCompiler, so a bad name is a usage error (exit 2) at flag
// parsing.
type compilerValue scmp.Compiler

// String returns the compiler's name ("native" or "libseccomp").
func (c *compilerValue) String() string { return scmp.Compiler(*c).String() }

// Set parses a compiler name; errors wrap scmp.ErrUnknownCompiler.
func (c *compilerValue) Set(s string) error {
	v, err := scmp.ParseCompiler(s)
	if err != nil {
		return err
	}
	*c = compilerValue(v)
	return nil
}

// Type names the value in help output.
func (c *compilerValue) Type() string { return "string" }

// AddCompilerFlag adds --compiler to fl, storing into dst (default native).
func AddCompilerFlag(fl *pflag.FlagSet, dst *scmp.Compiler) {
	fl.Var((*compilerValue)(dst), "compiler", compilerUsage)
}

// StackDirFormat is the Source.Format of a directory written by inspect
// --save or compile --save.
const StackDirFormat = "stack-dir"

// stackDirSource loads a saved stack directory (OpenStackDir) as one
// stacked source.
func stackDirSource(dir string) (*filters.Source, error) {
	st, err := OpenStackDir(dir)
	if err != nil {
		return nil, err
	}
	return &filters.Source{Name: dir, Format: StackDirFormat, Filters: st, Stacked: true}, nil
}

// ReadSpec reads the source spec names: standard input for "-" (named
// "stdin"), else the file; nil data (and no error) for a name that is no
// file, which formats.Load then serves as a built-in name or refuses.
func ReadSpec(spec string, in io.Reader) (string, []byte, error) {
	if spec == formats.StdinName {
		b, err := formats.ReadFrom("standard input", in)
		if err != nil {
			return "", nil, err
		}
		return formats.StdinSource, b, nil
	}
	b, err := formats.ReadInput(spec)
	if errors.Is(err, fs.ErrNotExist) {
		return spec, nil, nil
	}
	if err != nil {
		return "", nil, fmt.Errorf("read policy: %w", err)
	}
	return spec, b, nil
}

// OCIVariants returns the other filters the modeled runtime may install
// for the OCI profile data (nil: docker-default), as SHA-256s
// (oci.LibseccompVariants: runc's ENOSYS stub comes in several layouts).
func OCIVariants(name string, data []byte, o formats.OpenOptions) ([]string, error) {
	if data == nil {
		b, err := oci.DockerDefaultJSON()
		if err != nil {
			return nil, err
		}
		data = b
	}
	return oci.LibseccompVariants(name, data, o.OCI)
}

// OCILayouts compiles an OCI profile with every compiler built in (compile
// shows their lengths side by side); load opens the profile with o.
func OCILayouts(load func(formats.OpenOptions) (*filters.Source, error), o formats.OpenOptions) (*document.Layouts, error) {
	o.Compiler = scmp.CompilerNative
	n, err := load(o)
	if err != nil {
		return nil, err
	}
	l := &document.Layouts{Native: n.Filters[0].Len()}
	if !scmp.LibseccompAvailable() {
		return l, nil
	}
	o.Compiler = scmp.CompilerLibseccomp
	p, err := load(o)
	if err != nil {
		return nil, err
	}
	l.Libseccomp = p.Filters[0].Len()
	l.Version, _ = scmp.LibseccompVersion()
	return l, nil
}
