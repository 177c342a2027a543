package optimize

import (
	"cmp"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"github.com/seccompbench/seccompbench/report"
)

// OptimizeOptions are `optimize`'s arguments and flags, checked by the command.
type OptimizeOptions struct {
	// Policy is POLICY, laid out as one filter.
	Policy  string
	Profile string // --profile FILE, "" for none
	// Out are --format (raw, text or json) and -o; Specs what to write
	// (stdout in Out.Format when nil).
	Out   output.Flags
	Specs []output.Spec
	// Compiler lays out OCI profiles (--compiler).
	Compiler scmp.Compiler
	// Load are the policy flags every command that reads a policy has
	// (--format-in, --arch, --caps, --kernel-version and the rest).
	Load cmdutil.LoadFlags
}

// RunOptimize lays opts' policy (a stack: all its filters) out as one
// filter proven equivalent to it, for --profile's syscall mix when
// given (Optimize), and writes it to ios or -o's files, its summary on
// ios.ErrOut.
func RunOptimize(ios *cmdutil.IOStreams, opts *OptimizeOptions) error {
	o, err := opts.Load.Options(ios.In)
	if err != nil {
		return err
	}
	o.Compiler = opts.Compiler
	progs, _, err := cmdutil.OpenPolicies([]string{opts.Policy}, o)
	if err != nil {
		return err
	}
	cmdutil.PrintWarnings(ios.ErrOut, progs)
	p, sum, err := Optimize(progs, opts.Policy, opts.Profile, ios.ErrOut)
	if err != nil {
		return err
	}
	if err := WriteBuilt(ios, output.Or(opts.Specs, cmp.Or(opts.Out.Format, "text")), p, sum); err != nil {
		return err
	}
	return report.WriteBuildSummary(ios.ErrOut, opts.Policy, sum)
}
