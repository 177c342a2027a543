package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

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

// LintOptions are the flags and arguments of `seccompbench lint`.
type LintOptions struct {
	IO *cmdutil.IOStreams

	Policies []string
	Workload string // "" = no workload check
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

// lintFormats are the output formats of `lint`.
var lintFormats = []string{"text", "json"}

// lintOCIResolution is the code of the info finding that says what
// resolved the OCI-based sources' conditions.
const lintOCIResolution = "oci-resolution"

// NewCmdLint builds `seccompbench lint`. runF, if not nil, replaces lintRun
// (tests use it to check flag parsing).
func NewCmdLint(f *cmdutil.Factory, runF func(*LintOptions) error) *cobra.Command {
	opts := &LintOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "lint POLICY...",
		Short: "Find mistakes in policies and what would break a benchmark",
		Long: `Check a stack of policies (the first installed first) and print findings
with a severity and a fix hint:

  error    invalid or oversized filters, the stack over MAX_INSNS_PER_PATH at
           --filters N, syscalls denied on x86_64 but allowed through the i386
           or x32 ABI (on aarch64: through the arm compat ABI), syscalls the
           Go runtime cannot live without killed, the workload's syscalls killed or trapped, filters that return
           SECCOMP_RET_USER_NOTIF (run refuses them: its children install
           filters without a listener; with --workload notify they are info),
           a filter denying seccomp(2) under which run would install more
           filters (at --filters N, else in the stack given; a warning at
           the depth run measures without --filters: 32 filters, or a lone
           unit's own stack),
           a systemd unit's entry on a SystemCallFilter=~ or
           RestrictAddressFamilies=~ line that systemd ignores (a misspelt
           name, group or family: the stack lets it through)
  warning  dead rules (same action as the default), rules an earlier rule
           always decides, x32 numbers allowed, runtime syscalls denied,
           workload syscalls denied with an errno, problems the loader found
           in a source (e.g. OCI syscall names no table knows, a unit's
           lines and entries systemd ignores), placed at file:line[:col]
           with "did you mean" where a close name exists
  info     allowed syscalls the kernel's action cache cannot skip; for
           OCI-based sources, the capabilities, kernel version and host
           arch that resolved their conditions

POLICY is any format run reads ("-": standard input); a systemd unit is
linted as the stack it installs, each finding naming the directive's
filter (e.g. "filter 28 (unit/SystemCallFilter/x86_64)"). A rule finding
names the rule's place in the source where the loader keeps it (Beats
policies, OCI profiles: "dead.yaml:7:15"), and always the BPF instruction
as "instruction N of filter I (NAME) in compile's listing", never as a
source line.

Policies are opened and checked for a host of --arch (default: this
machine's native ABI), e.g. --arch aarch64 on an x86_64 machine; a compat
ABI (i386, x32, arm) stands for its kernel's native one. Verdicts are
computed with all syscall arguments 0.` + cmdutil.ExitStatusHelp("an error-severity finding exists (the findings are printed)"),
		Example: `  seccompbench lint default
  seccompbench lint testdata/policies/denylist.yaml --workload mix --filters 32
  seccompbench lint --arch aarch64 default`,
		Args: func(cmd *cobra.Command, args []string) error { return opts.Load.PolicyArgs(cmd, args) },
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Policies = args
			if opts.Workload != "" {
				if _, err := workload.Lookup(opts.Workload); err != nil {
					return &cmdutil.FlagError{Err: fmt.Errorf("--workload: %w", err)}
				}
			}
			var err error
			if opts.Specs, err = opts.Out.Resolve(lintFormats, cmd.Flags().Changed("format")); err != nil {
				return err
			}
			if opts.Filters < 0 {
				return cmdutil.FlagErrorf("--filters: negative count %d", opts.Filters)
			}
			if _, err = opts.Load.Options(nil); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return lintRun(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Workload, "workload", "", "also check the syscalls of this run workload: "+strings.Join(workload.Names(), ", "))
	fl.IntVar(&opts.Filters, "filters", 0, "check the path limit for this many filters, cycling the policies")
	output.AddFlags(fl, &opts.Out, lintFormats, "text", "the findings")
	cmdutil.AddCompilerFlag(fl, &opts.Compiler)
	cmdutil.AddSystemdFlag(fl, &opts.Load)
	cmdutil.AddLoadFlags(fl, &opts.Load)
	return cmd
}

func lintRun(opts *LintOptions) error {
	o, err := opts.Load.Options(opts.IO.In)
	if err != nil {
		return err
	}
	o.Compiler = opts.Compiler
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
	err = output.WriteEach(specs, opts.IO.Out, opts.IO.ErrOut, func(format string, w io.Writer) error {
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
		return errFindings
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
func lintAlternatives(opts *LintOptions, o formats.OpenOptions, l *cmdutil.Loaded, alts []cmdutil.Alternative) ([]linted, bool) {
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
		findings := analysis.Lint(s, alo)
		if note != nil {
			findings = append(findings, *note)
		}
		if res := l.OCIResolution(o); res != nil {
			findings = append(findings, analysis.Finding{Severity: analysis.SeverityInfo, Code: lintOCIResolution, Filter: -1,
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

// lintArchNote is the finding code saying lint chose the ABI from the
// filters, not from --arch.
const lintArchNote = "abi-from-filter"

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
	return a, &analysis.Finding{Severity: analysis.SeverityInfo, Code: lintArchNote, Filter: -1,
		Message: fmt.Sprintf("checked for %s calls: the filters check %s, not this machine's %s", a.Name, strings.Join(abis, ", "), native.Name),
		Hint:    "give --arch to check for another ABI"}
}
