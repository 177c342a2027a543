package optimize

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"github.com/seccompbench/seccompbench/filters/subset"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/report/document"
)

// SubsetOptions are `subset`'s arguments and flags, checked by the command.
type SubsetOptions struct {
	// Profile are the profile stack's sources, Baseline the baseline's
	// (--baseline, repeatable), each oldest first.
	Profile, Baseline []string
	// StrictErrno counts the same action with other data (ERRNO(1)
	// against ERRNO(38)) against the subset (--strict-errno); by default
	// outcomes rank by action class and such differences are notes.
	StrictErrno bool
	// ClassOnly is --class-only, the default since --strict-errno exists;
	// kept so existing invocations still parse.
	ClassOnly bool
	// SyscallProfile is a workload's syscall profile for the cost
	// (--profile, as estimate's).
	SyscallProfile string
	// Out are --format (text or json) and -o; Specs what to write.
	Out   output.Flags
	Specs []output.Spec
	// Load are --format-in, --caps, --kernel-version, --arch,
	// --runtime, --profile-name, --base and --thread, for every input.
	Load cmdutil.LoadFlags
	// Compiler lays out OCI profiles and systemd filters (--compiler).
	Compiler scmp.Compiler
}

// RunSubset decides whether the profile stack is at least as
// restrictive as the baseline (filters/subset) and writes the verdict,
// with the cost of stacking both against their merge, to ios or -o's
// files. A looser profile returns cmdutil.ErrFindings.
func RunSubset(ios *cmdutil.IOStreams, opts *SubsetOptions) error {
	o, err := opts.Load.Options(ios.In)
	if err != nil {
		return err
	}
	o.Compiler = opts.Compiler
	p, pdesc, err := OpenStackWith(opts.Profile, "", o, ios.ErrOut)
	if err != nil {
		return err
	}
	b, bdesc, err := OpenStackWith(opts.Baseline, "", o, ios.ErrOut)
	if err != nil {
		return err
	}
	WarnPathLength(ios.ErrOut, "baseline + profile", append(slices.Clone(b), p...))
	classOnly := !opts.StrictErrno
	res, err := subset.Check(p, b, subset.Options{ClassOnly: classOnly})
	if err != nil {
		// equiv.ErrCannotProve and the like: exit status 1, with the reason.
		return fmt.Errorf("subset %s --baseline %s: %w", pdesc, strings.Join(opts.Baseline, " --baseline "), err)
	}
	cost, err := intersectCost(b, p, opts.SyscallProfile, filters.KernelArches(o.Arch), ios.ErrOut)
	if err != nil {
		return err
	}
	doc := report.NewSubsetDoc(document.EquivSide{Spec: pdesc, Filters: len(p)}, document.EquivSide{Spec: bdesc, Filters: len(b)}, res, classOnly, cost)
	if err := report.MarkENOSYSStubs(&doc, res, p, b); err != nil {
		return err
	}
	err = output.WriteEach(output.Or(opts.Specs, cmp.Or(opts.Out.Format, "text")), ios.Out, ios.ErrOut, func(format string, w io.Writer) error {
		if format == "json" {
			return report.WriteSubsetJSON(w, doc)
		}
		return report.WriteSubsetText(w, doc)
	})
	if err != nil {
		return err
	}
	if !res.Subset {
		return cmdutil.ErrFindings
	}
	return nil
}

// intersectCost is the cost of stacking baseline and profile (profile
// installed last) against their merge; a stack that cannot be merged
// gives a cost with the reason instead of an error. The cost covers the
// named syscalls of arches.
func intersectCost(baseline, profile filters.Stack, syscallProfile string, arches []*filters.Arch, warn io.Writer) (*document.Cost, error) {
	prof, err := LoadProfile(syscallProfile, warn)
	if err != nil {
		return nil, err
	}
	s := append(append(filters.Stack{}, baseline...), profile...)
	merged, _, mergeErr := Merge(s, "baseline + profile")
	return CostOf(s, merged, mergeErr, prof, arches)
}
