package cmdutil

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/filters/oci"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"github.com/seccompbench/seccompbench/report"
)

// OpenPolicies opens each policy argument and describes it for the report.
// An unsupported format is a *FlagError; a missing file or a directory
// names what POLICY may be.
func OpenPolicies(specs []string, o formats.OpenOptions) ([]*filters.Program, []report.Policy, error) {
	var progs []*filters.Program
	var pols []report.Policy
	for _, s := range specs {
		t0 := time.Now()
		p, err := formats.OpenWith(s, o)
		if errors.Is(err, formats.ErrUnsupportedFormat) {
			return nil, nil, &FlagError{Err: fmt.Errorf("open policy: %w", err)}
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, fmt.Errorf("open policy: %w; POLICY is a file, \"default\" or %q", err, oci.DockerDefaultName)
		}
		var pe *fs.PathError
		if errors.As(err, &pe) && errors.Is(pe.Err, syscall.EISDIR) {
			return nil, nil, fmt.Errorf("open policy %s: is a directory; POLICY is a file, \"default\" or %q", s, oci.DockerDefaultName)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("open policy: %w", err)
		}
		compile := time.Since(t0)
		progs = append(progs, p)
		pols = append(pols, report.Policy{Path: p.Source, SHA256: p.SourceSHA256, Instructions: p.Len(),
			CompileUs: float64(compile.Nanoseconds()) / 1e3})
	}
	return progs, pols, nil
}

// ReadDocument reads a run result (`run --format json`) from path; what
// names the file in errors ("result", "calibration").
func ReadDocument(path, what string) (*report.Document, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", what, err)
	}
	defer f.Close()
	d, err := report.ReadJSON(f)
	if err != nil {
		return nil, fmt.Errorf("read %s %s: %w", what, path, err)
	}
	return d, nil
}

// PrintWarnings prints what the loaders noticed in the policies' sources
// (filters.Program.Warnings, e.g. OCI syscall names no table knows) on w,
// one "warning: " line each. lint reports them as findings instead.
func PrintWarnings(w io.Writer, progs []*filters.Program) {
	for _, p := range progs {
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
