package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/filters/oci"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"github.com/seccompbench/seccompbench/filters/systemd"
)

func init() {
	extraCommands = append(extraCommands, func(f *Factory) *cobra.Command { return NewCmdCompile(f, nil) })
}

// CompileOptions are the flags and arguments of `seccompbench compile`.
type CompileOptions struct {
	IO *IOStreams

	Policy   string
	Format   string
	Compiler string
	// SystemdStack is a unit file whose modeled filter stack is printed
	// instead of a policy.
	SystemdStack string
}

// NewCmdCompile builds `seccompbench compile`. runF, if not nil, replaces
// compileRun (tests use it to check flag parsing).
func NewCmdCompile(f *Factory, runF func(*CompileOptions) error) *cobra.Command {
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
					return flagErrorf("compile: give POLICY or --systemd-stack UNIT, not both")
				}
				return nil
			}
			if len(args) != 1 {
				return flagErrorf("compile: need exactly one POLICY (or --systemd-stack UNIT), got %d arguments", len(args))
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
				return flagErrorf("--format: %q is not text, raw or json", opts.Format)
			}
			if _, err := scmp.ParseCompiler(opts.Compiler); err != nil {
				return flagErrorf("--compiler: %q is not native or libseccomp", opts.Compiler)
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

// systemdStackJSON is `compile --systemd-stack --format json`.
type systemdStackJSON struct {
	Unit       string                   `json:"unit"`
	Compiler   string                   `json:"compiler"`
	Filters    []systemdStackJSONFilter `json:"filters"`
	Directives []systemd.Directive      `json:"directives"`
	// Layouts is the stack's total instructions per layout built in.
	Layouts map[string]int `json:"layouts"`
	Count   int            `json:"count"`
}

type systemdStackJSONFilter struct {
	Index        int    `json:"index"`
	Name         string `json:"name"`
	Instructions int    `json:"instructions"`
	SHA256       string `json:"sha256"`
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
	out := opts.IO.Out
	switch opts.Format {
	case "json":
		doc := systemdStackJSON{Unit: unit.Unit, Compiler: comp.String(), Directives: unit.Directives, Layouts: layouts, Count: len(unit.Programs)}
		for i, p := range unit.Programs {
			doc.Filters = append(doc.Filters, systemdStackJSONFilter{Index: i, Name: p.Name, Instructions: p.Len(), SHA256: p.SHA256()})
		}
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(doc); err != nil {
			return fmt.Errorf("write stack json: %w", err)
		}
		return nil
	case "raw":
		return flagErrorf("--format raw: a systemd stack is several filters; use --format text or json (or inspect --save on a running unit)")
	}
	lay := fmt.Sprintf("; layouts: native %d instructions in total", layouts["native"])
	if n, ok := layouts["libseccomp"]; ok {
		lay += fmt.Sprintf(", libseccomp %d (as systemd installs it)", n)
	} else {
		lay += "; libseccomp not built in (build with -tags libseccomp)"
	}
	if _, err := fmt.Fprintf(out, "%s; shown: %s\n%s", lay, comp, unit.String()); err != nil {
		return fmt.Errorf("write stack: %w", err)
	}
	return nil
}

// compileJSON is the `compile --format json` document.
type compileJSON struct {
	Name         string `json:"name"`
	Source       string `json:"source"`
	SHA256       string `json:"sha256"`
	Instructions int    `json:"instructions"`
	// PathCost is what the filter adds to MAX_INSNS_PER_PATH when another
	// is attached on top: its converted eBPF length + 4
	// (filters.Program.EBPFLen, kernel/seccomp.c: seccomp_attach_filter).
	PathCost int `json:"path_cost"`
	// EBPFInstructions is the filter's length after the kernel converts it
	// to eBPF (net/core/filter.c: bpf_convert_filter).
	EBPFInstructions int               `json:"ebpf_instructions"`
	Counts           map[string]int    `json:"counts"`
	Program          []compileJSONInsn `json:"program"`
	// Compiler is "native" or "libseccomp" for OCI profiles, absent for
	// formats --compiler does not apply to.
	Compiler string `json:"compiler,omitempty"`
	// Layouts gives the instruction count of each layout available in
	// this build, keyed "native" and "libseccomp" (OCI profiles only).
	Layouts map[string]int `json:"layouts,omitempty"`
	// LibseccompVersion is the linked libseccomp, when there is one.
	LibseccompVersion string `json:"libseccomp_version,omitempty"`
}

type compileJSONInsn struct {
	Line    int    `json:"line"`
	Op      uint16 `json:"op"`
	Jt      uint8  `json:"jt"`
	Jf      uint8  `json:"jf"`
	K       uint32 `json:"k"`
	Text    string `json:"text"`
	Comment string `json:"comment,omitempty"`
	Targets []int  `json:"targets,omitempty"`
}

// insnClass names the BPF instruction class of op (include/uapi/linux/bpf_common.h).
func insnClass(op uint16) string {
	return [...]string{"ld", "ldx", "st", "stx", "alu", "jmp", "ret", "misc"}[op&0x07]
}

// compileLayouts compares the layouts of one OCI profile.
type compileLayouts struct {
	native, libseccomp int // instructions; libseccomp 0 when not built in
	version            string
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
func layoutsOf(spec string) (*compileLayouts, error) {
	n, err := formats.OpenWith(spec, formats.OpenOptions{Compiler: scmp.CompilerNative})
	if err != nil {
		return nil, err
	}
	l := &compileLayouts{native: n.Len()}
	if !scmp.LibseccompAvailable() {
		return l, nil
	}
	p, err := formats.OpenWith(spec, formats.OpenOptions{Compiler: scmp.CompilerLibseccomp})
	if err != nil {
		return nil, err
	}
	l.libseccomp = p.Len()
	l.version, _ = scmp.LibseccompVersion()
	return l, nil
}

// text is the comment line `compile` prints above an OCI disassembly.
func (l *compileLayouts) text(shown scmp.Compiler) string {
	if l.libseccomp == 0 {
		return fmt.Sprintf("; layouts: native %d instructions; libseccomp not built in (build with -tags libseccomp, needs libseccomp-dev and cgo)\n", l.native)
	}
	return fmt.Sprintf("; layouts: native %d instructions, libseccomp %s %d instructions (as runc installs it); shown: %s\n",
		l.native, l.version, l.libseccomp, shown)
}

func compileRun(opts *CompileOptions) error {
	comp, err := scmp.ParseCompiler(opts.Compiler)
	if err != nil {
		return &FlagError{Err: err}
	}
	if opts.SystemdStack != "" {
		return compileSystemdStack(opts, comp)
	}
	p, err := formats.OpenWith(opts.Policy, formats.OpenOptions{Compiler: comp})
	if err != nil {
		return fmt.Errorf("compile policy: %w", err)
	}
	printWarnings(opts.IO.ErrOut, []*filters.Program{p})
	// A filter the kernel would refuse is not printed as if it were one
	// (run, simulate and lint refuse it too).
	if _, err := filters.BuildStack([]*filters.Program{p}, 1); err != nil {
		return fmt.Errorf("compile policy %s: %w", opts.Policy, err)
	}
	var layouts *compileLayouts
	if ociSource(opts.Policy) {
		if layouts, err = layoutsOf(opts.Policy); err != nil {
			return fmt.Errorf("compile policy: %w", err)
		}
	} else if comp != scmp.CompilerNative {
		fmt.Fprintf(opts.IO.ErrOut, "note: --compiler applies to OCI profiles; %s is not one and is shown as loaded\n", opts.Policy)
	}
	out := opts.IO.Out
	switch opts.Format {
	case "raw":
		if _, err := out.Write(p.Bytes()); err != nil {
			return fmt.Errorf("write filter: %w", err)
		}
		return nil
	case "json":
		doc := compileJSON{Name: p.Name, Source: p.Source, SHA256: p.SHA256(), Instructions: p.Len(),
			PathCost: p.EBPFLen() + filters.PathPenalty, EBPFInstructions: p.EBPFLen(), Counts: map[string]int{}}
		if layouts != nil {
			doc.Compiler = comp.String()
			doc.Layouts = map[string]int{"native": layouts.native}
			if layouts.libseccomp != 0 {
				doc.Layouts["libseccomp"] = layouts.libseccomp
				doc.LibseccompVersion = layouts.version
			}
		}
		for _, l := range filters.Disassemble(p, filters.ArchX86_64) {
			doc.Counts[insnClass(l.Raw.Op)]++
			doc.Program = append(doc.Program, compileJSONInsn{Line: l.PC, Op: l.Raw.Op, Jt: l.Raw.Jt, Jf: l.Raw.Jf, K: l.Raw.K,
				Text: l.Text, Comment: l.Comment, Targets: l.Targets})
		}
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(doc); err != nil {
			return fmt.Errorf("write filter json: %w", err)
		}
		return nil
	}
	if layouts != nil {
		if _, err := fmt.Fprint(out, layouts.text(comp)); err != nil {
			return fmt.Errorf("write filter: %w", err)
		}
	}
	return filters.FormatText(out, p)
}
