// Package optimize is the pipeline behind `merge`, `optimize` and
// `equiv`: it loads a filter stack from what the user names (policies, a
// systemd unit or directives, a directory written by inspect --save), runs
// the builders of filters/optimize on it, and summarizes the result for
// document.BuildSummary. It computes; the commands pick a renderer in report.
package optimize

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/filters/oci"
	"github.com/seccompbench/seccompbench/filters/scmp"
)

// ErrEmptyStack is returned by OpenStack when the sources install no
// filter (e.g. a systemd unit without seccomp directives).
var ErrEmptyStack = errors.New("no seccomp filter to work on")

// OpenStack loads a stack in installation order (index 0 = oldest) and
// names it for summaries. With directives (the text of --systemd) the
// stack is the one systemd models for them and specs must be empty.
// Otherwise each spec adds its filters on top of the previous ones: a
// policy or raw filter adds one, a systemd unit its modeled stack
// (formats.Load, Source.Stacked), a directory written by inspect --save
// the filters it holds. A source of several alternative filters (a
// Firecracker file without --thread) is refused: they never apply
// together. comp lays out OCI profiles and systemd filters.
// Loader warnings go to warn, one "warning: " line each.
//
// Errors: an unsupported format and alternatives are a
// *cmdutil.FlagError (the latter wrapping formats.ErrAlternatives); a missing file
// says what a spec may be; ErrEmptyStack when nothing installs a filter.
func OpenStack(specs []string, directives string, comp scmp.Compiler, warn io.Writer) (filters.Stack, string, error) {
	return OpenStackWith(specs, directives, formats.OpenOptions{Compiler: comp}, warn)
}

// OpenStackWith is OpenStack with every load option: the OCI-based
// formats' capabilities, kernel version and host arch (--caps,
// --kernel-version, --arch), Kubernetes profile names and the like.
func OpenStackWith(specs []string, directives string, o formats.OpenOptions, warn io.Writer) (filters.Stack, string, error) {
	if directives != "" {
		o.Format = formats.SystemdUnit
		src, err := formats.LoadData("--systemd", []byte(directives), o)
		if err != nil {
			return nil, "", fmt.Errorf("model --systemd: %w", err)
		}
		printWarnings(warn, src)
		return nonEmpty(src.Stack(), "--systemd")
	}
	if err := StdinOnce(specs); err != nil {
		return nil, "", err
	}
	var s filters.Stack
	for _, spec := range specs {
		part, err := openSpec(spec, o, warn)
		if err != nil {
			return nil, "", err
		}
		s = append(s, part...)
	}
	return nonEmpty(s, strings.Join(specs, " "))
}

// StdinOnce returns a usage error (*cmdutil.FlagError) when specs name
// standard input ("-") more than once: it can be read only once.
func StdinOnce(specs []string) error {
	n := 0
	for _, s := range specs {
		if s == "-" {
			n++
		}
	}
	if n > 1 {
		return cmdutil.FlagErrorf("\"-\" (standard input) is given %d times; it can be read once: save one of them to a file", n)
	}
	return nil
}

// WarnPathLength prints a warning to w when stack s (named desc) is
// longer on the path than MAX_INSNS_PER_PATH (kernel/seccomp.c:
// seccomp_attach_filter): the kernel refuses the filter that crosses it
// with ENOMEM, so that stack never runs as given.
func WarnPathLength(w io.Writer, desc string, s filters.Stack) {
	if total := s.PathLength(); total > filters.MaxInsnsPerPath {
		fmt.Fprintf(w, "warning: %s: %d filters need %d instructions on the path (converted eBPF length, +%d for all but the newest), over MAX_INSNS_PER_PATH (%d): the kernel refuses the filter that crosses it (ENOMEM)\n",
			desc, len(s), total, filters.PathPenalty, filters.MaxInsnsPerPath)
	}
}

// nonEmpty returns s and desc, or ErrEmptyStack for an empty s.
func nonEmpty(s filters.Stack, desc string) (filters.Stack, string, error) {
	if len(s) == 0 {
		return nil, "", fmt.Errorf("open stack %s: %w", desc, ErrEmptyStack)
	}
	return s, desc, nil
}

// openSpec loads one spec of OpenStack.
func openSpec(spec string, o formats.OpenOptions, warn io.Writer) (filters.Stack, error) {
	if fi, err := os.Stat(spec); err == nil && fi.IsDir() {
		return OpenDir(spec)
	}
	src, err := formats.Load(spec, o)
	switch {
	case errors.Is(err, formats.ErrUnsupportedFormat):
		return nil, &cmdutil.FlagError{Err: fmt.Errorf("open stack: %w", err)}
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("open stack: %w; give a policy or filter file, a systemd unit, a directory written by inspect --save, \"default\" or %q",
			err, oci.DockerDefaultName)
	case err != nil:
		return nil, fmt.Errorf("open stack: %w", err)
	}
	if !src.Stacked && len(src.Filters) > 1 {
		// Alternatives (a Firecracker file's thread filters) apply to
		// different threads, never together: stacking them would check,
		// merge or intersect a filter no thread runs.
		return nil, &cmdutil.FlagError{Err: fmt.Errorf("open stack: %w", formats.OneFilter(src))}
	}
	printWarnings(warn, src)
	return src.Stack(), nil
}

// printWarnings prints a source's warnings, located where the loader
// located them, else those its filters carry.
func printWarnings(w io.Writer, src *filters.Source) {
	if len(src.Warnings) == 0 {
		cmdutil.PrintWarnings(w, src.Filters)
		return
	}
	for _, msg := range filters.WarningText(src.Warnings) {
		fmt.Fprintf(w, "warning: %s\n", msg)
	}
}

// OpenDir reads a directory written by inspect --save or compile --save
// (cmdutil.OpenStackDir); an empty one wraps ErrEmptyStack.
func OpenDir(dir string) (filters.Stack, error) {
	s, err := cmdutil.OpenStackDir(dir)
	if errors.Is(err, cmdutil.ErrEmptyStackDir) {
		return nil, fmt.Errorf("%w: %w", err, ErrEmptyStack)
	}
	return s, err
}
