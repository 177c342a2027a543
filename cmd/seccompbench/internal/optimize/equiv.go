package optimize

import (
	"cmp"
	"fmt"
	"io"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
	"github.com/seccompbench/seccompbench/filters/equiv"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/report/document"
)

// EquivOptions are `equiv`'s arguments and flags, checked by the command.
type EquivOptions struct {
	// A and B are the two stacks' sources (A, B).
	A, B string
	// Out are --format (text or json) and -o; Specs what to write
	// (stdout in Out.Format when nil).
	Out   output.Flags
	Specs []output.Spec
	// Compiler lays out OCI profiles and systemd filters (--compiler).
	Compiler scmp.Compiler
	// Load are the policy flags every command that reads a policy has
	// (--format-in, --arch, --caps, --kernel-version and the rest).
	Load cmdutil.LoadFlags
}

// RunEquiv decides whether stacks A and B give the same verdict for
// every input (filters/equiv) and writes the verdict, with a
// counterexample when they differ, to ios or -o's files. Different stacks
// return cmdutil.ErrFindings; a proof that cannot be made is an error.
func RunEquiv(ios *cmdutil.IOStreams, opts *EquivOptions) error {
	o, err := opts.Load.Options(ios.In)
	if err != nil {
		return err
	}
	o.Compiler = opts.Compiler
	if err := StdinOnce([]string{opts.A, opts.B}); err != nil {
		return err
	}
	a, _, err := OpenStackWith([]string{opts.A}, "", o, ios.ErrOut)
	if err != nil {
		return err
	}
	ob := o
	if opts.Load.SystemdVersionB != 0 {
		// --systemd-version A,B: B's units are read as systemd B.
		if ob.Systemd.SystemdVersion, ob.Systemd.VersionNote, err = cmdutil.SystemdVersion(opts.Load.SystemdVersionB); err != nil {
			return err
		}
	}
	b, _, err := OpenStackWith([]string{opts.B}, "", ob, ios.ErrOut)
	if err != nil {
		return err
	}
	res, err := equiv.Stacks(a, b)
	if err != nil {
		// equiv.ErrCannotProve and the like: exit status 1, with the reason.
		return fmt.Errorf("equiv %s %s: %w", opts.A, opts.B, err)
	}
	sa, sb := document.EquivSide{Spec: opts.A, Filters: len(a)}, document.EquivSide{Spec: opts.B, Filters: len(b)}
	diffs := UnitSettingDiffs(opts.A, opts.B, o, ob)
	err = output.WriteEach(output.Or(opts.Specs, cmp.Or(opts.Out.Format, "text")), ios.Out, ios.ErrOut, func(format string, w io.Writer) error {
		if format == "json" {
			return report.WriteEquivJSON(w, sa, sb, res, diffs...)
		}
		return report.WriteEquivText(w, sa, sb, res, diffs...)
	})
	if err != nil {
		return err
	}
	if !res.Equivalent {
		return cmdutil.ErrFindings
	}
	return nil
}
