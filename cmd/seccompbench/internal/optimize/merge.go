package optimize

import (
	"cmp"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"github.com/seccompbench/seccompbench/report"
)

// MergeOptions are `merge`'s arguments and flags, checked by the command.
type MergeOptions struct {
	// Specs are the stack's sources, oldest first: policies and raw
	// filters (one filter each), systemd units (their modeled stacks) and
	// directories written by inspect --save (the filters saved).
	Specs []string
	// Systemd is directive text modeled as a unit (--systemd).
	Systemd string
	// Out are --format (raw, text or json) and -o; Outs what to write
	// (stdout in Out.Format when nil).
	Out  output.Flags
	Outs []output.Spec
	// Compiler lays out OCI profiles and systemd filters (--compiler).
	Compiler scmp.Compiler
	// Load are the policy flags every command that reads a policy has
	// (--format-in, --arch, --caps, --kernel-version and the rest).
	Load cmdutil.LoadFlags
}

// RunMerge merges opts' stack into one filter proven equivalent to it
// (Merge) and writes it to ios or -o's files, its summary on
// ios.ErrOut.
func RunMerge(ios *cmdutil.IOStreams, opts *MergeOptions) error {
	o, err := opts.Load.Options(ios.In)
	if err != nil {
		return err
	}
	o.Compiler = opts.Compiler
	s, desc, err := OpenStackWith(opts.Specs, opts.Systemd, o, ios.ErrOut)
	if err != nil {
		return err
	}
	p, sum, err := Merge(s, desc)
	if err != nil {
		return err
	}
	if err := WriteBuilt(ios, output.Or(opts.Outs, cmp.Or(opts.Out.Format, "text")), p, sum); err != nil {
		return err
	}
	return report.WriteBuildSummary(ios.ErrOut, desc, sum)
}
