package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/jitcost"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/filters/oci"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"github.com/seccompbench/seccompbench/filters/systemd"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/runner"
)

// CompileOptions are the flags and arguments of `seccompbench compile`.
type CompileOptions struct {
	IO *cmdutil.IOStreams

	Policy   string
	Format   string
	Compiler string
	// SystemdStack is a unit file whose modeled filter stack is printed
	// instead of a policy.
	SystemdStack string
}

// NewCmdCompile builds `seccompbench compile`. runF, if not nil, replaces
// compileRun (tests use it to check flag parsing).
func NewCmdCompile(f *cmdutil.Factory, runF func(*CompileOptions) error) *cobra.Command {
	opts := &CompileOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "compile POLICY | --systemd-stack UNIT",
		Short: "Show the BPF filter a policy compiles to",
		Long: `Compile a policy and print the classic BPF filter the kernel would run.

--format text is a disassembly: one line per instruction with its line
number, jump targets as line numbers, the syscall name next to each number
compared after ld [nr], and action names on ret (e.g. ret ERRNO(1)).
--format raw writes the filter as an array of struct sock_filter (8 bytes
per instruction, little-endian), the format bubblewrap --seccomp reads and
libseccomp's seccomp_export_bpf writes.
--format json carries the instructions and counts.

--compiler chooses who lays out an OCI profile (and docker-default):
native (this tool's layout) or libseccomp (what runc installs: libseccomp's
program, binary tree above 32 rules, runc's ENOSYS stub in front). Both
give the same verdicts; the instruction counts differ, and text and json
output show both side by side. libseccomp needs a binary built with
-tags libseccomp (cgo and libseccomp-dev). Beats policies are compiled by
go-seccomp-bpf and raw BPF is shown as it is, whatever --compiler says.

POLICY is a policy file, "default" for the embedded default policy or
"docker-default" for Docker's default profile.

--systemd-stack UNIT prints the stack of filters systemd 252 installs for
the unit on x86_64 (one filter per local architecture per directive, in
systemd's order), with a count per directive, ending with "N filters".`,
		Example: `  seccompbench compile default
  seccompbench compile testdata/policies/denylist.yaml --format raw > filter.bpf
  seccompbench compile docker-default --compiler libseccomp
  seccompbench compile --systemd-stack testdata/policies/hardened.service`,
		Args: func(cmd *cobra.Command, args []string) error {
			if opts.SystemdStack != "" {
				if len(args) != 0 {
					return cmdutil.FlagErrorf("compile: give POLICY or --systemd-stack UNIT, not both")
				}
				return nil
			}
			if len(args) != 1 {
				return cmdutil.FlagErrorf("compile: need exactly one POLICY (or --systemd-stack UNIT), got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Policy = args[0]
			}
			switch opts.Format {
			case "text", "raw", "json":
			default:
				return cmdutil.FlagErrorf("--format: %q is not text, raw or json", opts.Format)
			}
			if _, err := scmp.ParseCompiler(opts.Compiler); err != nil {
				return cmdutil.FlagErrorf("--compiler: %q is not native or libseccomp", opts.Compiler)
			}
			if runF != nil {
				return runF(opts)
			}
			return compileRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Format, "format", "text", "output format: text, raw or json")
	cmd.Flags().StringVar(&opts.Compiler, "compiler", "native", "who lays out OCI profiles and systemd filters: native or libseccomp (needs a -tags libseccomp build)")
	cmd.Flags().StringVar(&opts.SystemdStack, "systemd-stack", "", "print the filter stack systemd installs for the unit `FILE`")
	return cmd
}

// compileSystemdStack prints the modeled stack of opts.SystemdStack.
func compileSystemdStack(opts *CompileOptions, comp scmp.Compiler) error {
	data, err := os.ReadFile(opts.SystemdStack)
	if err != nil {
		return fmt.Errorf("read systemd unit: %w", err)
	}
	unit, err := systemd.ParseUnit(opts.SystemdStack, data, systemd.Options{Compiler: comp})
	if err != nil {
		return fmt.Errorf("model systemd stack: %w", err)
	}
	for _, w := range unit.Warnings {
		fmt.Fprintf(opts.IO.ErrOut, "warning: %s\n", w)
	}
	total := func(u *systemd.Stack) int {
		n := 0
		for _, p := range u.Programs {
			n += p.Len()
		}
		return n
	}
	layouts := map[string]int{comp.String(): total(unit)}
	other := scmp.CompilerNative
	if comp == scmp.CompilerNative {
		other = scmp.CompilerLibseccomp
	}
	if other == scmp.CompilerNative || scmp.LibseccompAvailable() {
		if u2, err := systemd.ParseUnit(opts.SystemdStack, data, systemd.Options{Compiler: other}); err == nil {
			layouts[other.String()] = total(u2)
		}
	}
	switch opts.Format {
	case "json":
		return report.WriteSystemdStackJSON(opts.IO.Out, unit, comp, layouts)
	case "raw":
		return cmdutil.FlagErrorf("--format raw: a systemd stack is several filters; use --format text or json (or inspect --save on a running unit)")
	}
	return report.WriteSystemdStackText(opts.IO.Out, unit, comp, layouts)
}

// ociSource reports whether spec names an OCI profile, the only format
// --compiler applies to.
func ociSource(spec string) bool {
	if spec == oci.DockerDefaultName {
		return true
	}
	data, err := os.ReadFile(spec)
	return err == nil && formats.DetectFormat(spec, data) == formats.OCI
}

// layoutsOf compiles an OCI profile with every compiler built in.
func layoutsOf(spec string) (*report.Layouts, error) {
	n, err := formats.OpenWith(spec, formats.OpenOptions{Compiler: scmp.CompilerNative})
	if err != nil {
		return nil, err
	}
	l := &report.Layouts{Native: n.Len()}
	if !scmp.LibseccompAvailable() {
		return l, nil
	}
	p, err := formats.OpenWith(spec, formats.OpenOptions{Compiler: scmp.CompilerLibseccomp})
	if err != nil {
		return nil, err
	}
	l.Libseccomp = p.Len()
	l.Version, _ = scmp.LibseccompVersion()
	return l, nil
}

func compileRun(opts *CompileOptions) error {
	comp, err := scmp.ParseCompiler(opts.Compiler)
	if err != nil {
		return &cmdutil.FlagError{Err: err}
	}
	if opts.SystemdStack != "" {
		return compileSystemdStack(opts, comp)
	}
	p, err := formats.OpenWith(opts.Policy, formats.OpenOptions{Compiler: comp})
	if err != nil {
		return fmt.Errorf("compile policy: %w", err)
	}
	cmdutil.PrintWarnings(opts.IO.ErrOut, []*filters.Program{p})
	// A filter the kernel would refuse is not printed as if it were one
	// (run, simulate and lint refuse it too).
	if _, err := filters.BuildStack([]*filters.Program{p}, 1); err != nil {
		return fmt.Errorf("compile policy %s: %w", opts.Policy, err)
	}
	var layouts *report.Layouts
	if ociSource(opts.Policy) {
		if layouts, err = layoutsOf(opts.Policy); err != nil {
			return fmt.Errorf("compile policy: %w", err)
		}
	} else if comp != scmp.CompilerNative {
		fmt.Fprintf(opts.IO.ErrOut, "note: --compiler applies to OCI profiles; %s is not one and is shown as loaded\n", opts.Policy)
	}
	// The JIT memory the filter takes once loaded, predicted from its size.
	ji := runner.ReadJITInfo()
	jit := jitcost.Estimate(jitcost.Model([]*filters.Program{p}, ji.Kernel), ji.Limit)
	switch opts.Format {
	case "raw":
		if _, err := opts.IO.Out.Write(p.Bytes()); err != nil {
			return fmt.Errorf("write filter: %w", err)
		}
		return nil
	case "json":
		return report.WriteCompileJSON(opts.IO.Out, p, comp, layouts, jit)
	}
	return report.WriteCompileText(opts.IO.Out, p, comp, layouts, jit)
}
