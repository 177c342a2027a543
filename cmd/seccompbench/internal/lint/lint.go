// Package lint is the `lint` pipeline: a stack's findings (filters/analysis
// Lint, run's preflight rule set) for every alternative stack of the
// policies, the ABI they are checked for, the OCI resolution as an info
// finding, and the text or JSON output.
package lint

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/runjob"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/analysis"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/runner/workload"
)

// Options are what `lint` checks and how it writes the findings: its
// arguments and flags, checked by the command.
type Options struct {
	// Policies are POLICY..., the stack in install order.
	Policies []string
	Workload string // --workload, whose syscalls are checked; "" = none
	Filters  int    // requested stack depth; 0 = one filter per policy
	// Out are --format (text or json) and -o; Specs what to write (stdout
	// in Out.Format when nil).
	Out   output.Flags
	Specs []output.Spec
	// Compiler lays out OCI profiles and systemd filters (--compiler).
	Compiler scmp.Compiler
	// Load are --format-in, --caps, --kernel-version, --arch,
	// --profile-name, --base and --thread.
	Load cmdutil.LoadFlags
}

// OCIResolutionCode is the code of the info finding that says what
// resolved the OCI-based sources' conditions.
const OCIResolutionCode = "oci-resolution"

// Run lints opts' stack (each alternative stack of a Firecracker file)
// and writes the findings to ios or -o's files; it returns
// cmdutil.ErrFindings when a finding has error severity.
func Run(ios *cmdutil.IOStreams, opts *Options) error {
	o, err := opts.Load.Options(ios.In)
	if err != nil {
		return err
	}
	o.Compiler = opts.Compiler
	// A unit systemd refuses to start is an error finding, not
	// unreadable input: the rest of it is still linted.
	o.Systemd.ContinueRefused = true
	l, err := opts.Load.LoadPolicies(opts.Policies, o)
	if err != nil {
		return err
	}
	alts, err := l.Alternatives()
	if err != nil {
		return err
	}
	specs := output.Or(opts.Specs, cmp.Or(opts.Out.Format, "text"))
	if len(alts) > 1 && slices.ContainsFunc(specs, func(sp output.Spec) bool { return sp.Format == "json" }) {
		// One JSON document describes one stack.
		if _, err := cmdutil.OneStack(l); err != nil {
			return fmt.Errorf("%w (lint --format json checks one stack; the text output checks every thread's)", err)
		}
	}
	all, anyErrors := lintAlternatives(opts, o, l, alts)
	err = output.WriteEach(specs, ios.Out, ios.ErrOut, func(format string, w io.Writer) error {
		if format == "json" {
			return report.WriteLintJSON(w, all[0].stack, all[0].findings)
		}
		for i, x := range all {
			if x.name != "" {
				if i > 0 {
					fmt.Fprintln(w)
				}
				// A Firecracker file: every thread's filter, each named.
				fmt.Fprintf(w, "thread %s:\n", x.name)
			}
			if err := report.WriteLintStackText(w, x.stack, x.findings); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if anyErrors {
		return cmdutil.ErrFindings
	}
	return nil
}

// linted is one alternative stack's lint (a Firecracker file's thread,
// else the one stack): its name ("" for the one stack) and findings.
type linted struct {
	name     string
	stack    filters.Stack
	findings []analysis.Finding
}

// lintAlternatives lints every alternative stack of l (a Firecracker
// file's threads) for opts' workload and count, each for the ABI lintArch
// picks, adding the OCI resolution as an info finding. It reports whether
// any stack has an error.
func lintAlternatives(opts *Options, o formats.OpenOptions, l *cmdutil.Loaded, alts []cmdutil.Alternative) ([]linted, bool) {
	lo := analysis.LintOptions{Count: opts.Filters}
	if opts.Workload != "" {
		w, _ := workload.Lookup(opts.Workload)
		lo.Workload = w.Syscalls
		lo.Listener = w.IsNotify()
	}
	// A stacked source's (a unit's) located warnings and ABIs: the
	// filters' own warnings are Program.Warnings.
	arch := map[*filters.Program]string{}
	for _, src := range l.Sources {
		if !src.Stacked {
			continue
		}
		lo.SourceWarnings = append(lo.SourceWarnings, src.Warnings...)
		for i, p := range src.Filters {
			if i < len(src.Arches) {
				arch[p] = src.Arches[i]
			}
		}
	}
	lo.RunDepth = runDepth(l)
	var all []linted
	anyErrors := false
	for _, a := range alts {
		s := filters.Stack(a.Progs)
		alo := lo
		for _, p := range a.Progs {
			alo.Arches = append(alo.Arches, arch[p])
		}
		var note *analysis.Finding
		alo.Arch, note = lintArch(o, s)
		findings := append(analysis.Lint(s, alo), cmdutil.UnitFindings(l)...)
		if note != nil {
			findings = append(findings, *note)
		}
		if res := l.OCIResolution(o); res != nil {
			findings = append(findings, analysis.Finding{Severity: analysis.SeverityInfo, Code: OCIResolutionCode, Filter: -1,
				Message: "OCI conditions (includes/excludes, minKernel) resolved with " + res.Text,
				Hint:    "model another container with --caps, --kernel-version and --arch"})
		}
		anyErrors = anyErrors || analysis.HasErrors(findings)
		all = append(all, linted{a.Name, s, findings})
	}
	return all, anyErrors
}

// runDepth is the deepest stack `run POLICY...` measures without
// --filters: a lone systemd unit's own stack (its counts are the
// directives' prefixes), else runjob.DefaultDepth filters, the policies
// cycled.
func runDepth(l *cmdutil.Loaded) int {
	if len(l.Sources) == 1 && l.Sources[0].Stacked {
		return len(l.Sources[0].Filters)
	}
	return runjob.DefaultDepth
}

// ArchNoteCode is the code of the info finding saying lint chose the
// ABI from the filters, not from --arch.
const ArchNoteCode = "abi-from-filter"

// lintArch returns the native ABI to lint s for: --arch's kernel-native
// ABI when the user gave --arch, or when some filter of s checks one of
// the default host's ABIs (or none checks any); else the ABI the filters
// check (an aarch64 policy linted on an x86_64 machine is linted for
// aarch64 calls), with an info finding saying so.
func lintArch(o formats.OpenOptions, s filters.Stack) (*filters.Arch, *analysis.Finding) {
	native := filters.KernelArches(o.Arch)[0]
	abis := filters.StackABIs(s)
	if !o.ArchDefaulted || len(abis) == 0 {
		return native, nil
	}
	for _, k := range filters.KernelArches(o.Arch) {
		if slices.Contains(abis, k.Name) {
			return native, nil
		}
	}
	a, err := filters.LookupArch(abis[0])
	if err != nil {
		return native, nil
	}
	return a, &analysis.Finding{Severity: analysis.SeverityInfo, Code: ArchNoteCode, Filter: -1,
		Message: fmt.Sprintf("checked for %s calls: the filters check %s, not this machine's %s", a.Name, strings.Join(abis, ", "), native.Name),
		Hint:    "give --arch to check for another ABI"}
}
