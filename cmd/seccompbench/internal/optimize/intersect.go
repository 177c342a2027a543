package optimize

import (
	"cmp"
	"fmt"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"github.com/seccompbench/seccompbench/report"
)

// IntersectOptions are `intersect`'s arguments and flags, checked by the command.
type IntersectOptions struct {
	// Specs are the inputs, oldest first (as merge's STACK).
	Specs []string
	// SyscallProfile is a workload's syscall profile for the cost
	// (--profile).
	SyscallProfile string
	// Out are --format (text, raw or json) and -o; Outs what to write.
	Out  output.Flags
	Outs []output.Spec
	// OCI is where --oci writes the intersection as an OCI profile ("":
	// not written).
	OCI string
	// Load are --format-in, --caps, --kernel-version, --arch,
	// --runtime, --profile-name, --base and --thread, for every input.
	Load cmdutil.LoadFlags
	// Compiler lays out OCI profiles and systemd filters (--compiler).
	Compiler scmp.Compiler
}

// RunIntersect merges the inputs into one filter proven equivalent to
// their stack, writes it to ios or -o's files with its summary and cost
// on ios.ErrOut, and with --oci writes the intersection as an OCI
// profile too (its error, if any, comes after the filter is written).
func RunIntersect(ios *cmdutil.IOStreams, opts *IntersectOptions) error {
	o, err := opts.Load.Options(ios.In)
	if err != nil {
		return err
	}
	o.Compiler = opts.Compiler
	s, desc, err := OpenStackWith(opts.Specs, "", o, ios.ErrOut)
	if err != nil {
		return err
	}
	WarnPathLength(ios.ErrOut, desc, s)
	prof, err := LoadProfile(opts.SyscallProfile, ios.ErrOut)
	if err != nil {
		return err
	}
	p, sum, err := Merge(s, desc)
	if err != nil {
		return err
	}
	sum.Command = "intersect"
	if sum.Cost, err = CostOf(s, p, nil, prof, filters.KernelArches(o.Arch)); err != nil {
		return err
	}
	// The OCI profile is proven on its own: when it cannot be written the
	// filter (proven by Merge) still is, and the error comes last.
	var ociErr error
	if opts.OCI != "" {
		sum.OCI, ociErr = IntersectOCI(opts.Specs, s, opts.OCI, o)
	}
	if err := WriteBuilt(ios, output.Or(opts.Outs, cmp.Or(opts.Out.Format, "text")), p, sum); err != nil {
		return err
	}
	if err := report.WriteBuildSummary(ios.ErrOut, desc, sum); err != nil {
		return err
	}
	if err := report.WriteCostText(ios.ErrOut, sum.Cost); err != nil {
		return err
	}
	if err := report.WriteOCIIntersectionText(ios.ErrOut, sum.OCI); err != nil {
		return err
	}
	if ociErr != nil {
		return fmt.Errorf("intersect --oci %s: %w", opts.OCI, ociErr)
	}
	return nil
}
