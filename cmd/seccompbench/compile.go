package main

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/compile"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
	"github.com/seccompbench/seccompbench/filters/scmp"
)

// CompileOptions are the flags and arguments of `seccompbench compile`:
// the streams and clock (Now stamps --save's manifest), and what to
// compile and how to write it.
type CompileOptions struct {
	IO  *cmdutil.IOStreams
	Now func() time.Time

	compile.Options
}

// NewCmdCompile builds `seccompbench compile`. runF, if not nil, replaces
// compileRun (tests use it to check flag parsing).
func NewCmdCompile(f *cmdutil.Factory, runF func(*CompileOptions) error) *cobra.Command {
	opts := &CompileOptions{IO: f.IO, Now: f.Now}
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

POLICY is a policy file of any format run reads ("-": standard input),
"default" for the embedded default policy or "docker-default" for Docker's
default profile. A Firecracker file holds one filter per thread category:
pick one with --thread. For OCI-based formats, the output says which
capabilities, kernel version and host arch resolved the profile's
conditions (--caps, --kernel-version, --arch).

--arch compiles for a host of that native ABI (default: this machine's
native ABI): a Beats policy is assembled as go-seccomp-bpf does on that
architecture (its audit arch checked, its syscall numbers; names it lacks
are dropped with a warning), an OCI-based profile resolves that host's
architectures. A compat ABI (i386, x32, arm) stands for its kernel's
native one (x86_64, x86_64, aarch64).

--systemd-stack UNIT (or a unit given as POLICY) prints the stack of
filters systemd installs for the unit on x86_64 (the systemd version chosen
by --systemd-version, default: this host's, else the newest; the first line
names it), one filter per local architecture per directive, in systemd's
order, with a count per directive, ending with "N filters". --save DIR writes the compiled
filters as DIR/filter-NN.bpf (raw, oldest first) plus DIR/manifest.json
(directive, arch and instructions of each), the layout inspect --save
writes, so run, simulate and bubblewrap can use them.` + cmdutil.ExitStatusHelp(""),
		Example: `  seccompbench compile default
  seccompbench compile testdata/policies/denylist.yaml --format raw > filter.bpf
  seccompbench compile docker-default --compiler libseccomp
  seccompbench compile --systemd-stack testdata/policies/hardened.service
  seccompbench compile --systemd-stack testdata/policies/hardened.service --save stack/
  seccompbench compile testdata/policies/firecracker-vmm.json --thread vcpu
  seccompbench compile --arch aarch64 default`,
		Args: func(cmd *cobra.Command, args []string) error { return opts.checkArgs(args) },
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.complete(cmd, args); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return compileRun(opts)
		},
	}
	output.AddFlags(cmd.Flags(), &opts.Out, compileFormats, "text", "the filter")
	cmd.Flags().StringVar(&opts.Compiler, "compiler", "native", "who lays out OCI profiles and systemd filters: native or libseccomp (needs a -tags libseccomp build)")
	cmd.Flags().StringVar(&opts.SystemdStack, "systemd-stack", "", "print the filter stack systemd installs for the unit `FILE`")
	cmd.Flags().StringVar(&opts.Save, "save", "", "also write the filters as raw BPF plus manifest.json into `DIR`, as inspect --save does")
	cmdutil.AddLoadFlags(cmd.Flags(), &opts.Load)
	return cmd
}

// checkArgs fails with a usage error unless args is exactly one POLICY,
// or none with --systemd-stack.
func (opts *CompileOptions) checkArgs(args []string) error {
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
}

// complete sets opts.Policy from args and opts.Specs from the output
// flags, and checks --compiler, the load flags and that --systemd-stack
// models the --arch host.
func (opts *CompileOptions) complete(cmd *cobra.Command, args []string) error {
	if len(args) == 1 {
		opts.Policy = args[0]
	}
	var err error
	if opts.Specs, err = opts.Out.Resolve(compileFormats, cmd.Flags().Changed("format")); err != nil {
		return err
	}
	if _, err := scmp.ParseCompiler(opts.Compiler); err != nil {
		return cmdutil.FlagErrorf("--compiler: %q is not native or libseccomp", opts.Compiler)
	}
	o, err := opts.Load.Options(nil)
	if err != nil {
		return err
	}
	if opts.SystemdStack != "" && !compile.SystemdArch(opts.Load, o) {
		return cmdutil.FlagErrorf("--systemd-stack models x86_64 hosts only, not --arch %s", opts.Load.Arch)
	}
	return nil
}

// compileFormats are the output formats of `compile`.
var compileFormats = []string{"text", "raw", "json"}

// compileRun compiles and writes the policy (compile.Run) with the
// command's streams and clock.
func compileRun(opts *CompileOptions) error {
	return compile.Run(opts.IO, opts.Now, &opts.Options)
}
