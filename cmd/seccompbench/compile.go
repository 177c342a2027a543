package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/seccompbench/seccompbench/filters"
)

func init() {
	extraCommands = append(extraCommands, func(f *Factory) *cobra.Command { return NewCmdCompile(f, nil) })
}

// CompileOptions are the flags and arguments of `seccompbench compile`.
type CompileOptions struct {
	IO *IOStreams

	Policy string
	Format string
}

// NewCmdCompile builds `seccompbench compile`. runF, if not nil, replaces
// compileRun (tests use it to check flag parsing).
func NewCmdCompile(f *Factory, runF func(*CompileOptions) error) *cobra.Command {
	opts := &CompileOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "compile POLICY",
		Short: "Show the BPF filter a policy compiles to",
		Long: `Compile a policy and print the classic BPF filter the kernel would run.

--format text is a disassembly: one line per instruction with its line
number, jump targets as line numbers, the syscall name next to each number
compared after ld [nr], and action names on ret (e.g. ret ERRNO(1)).
--format raw writes the filter as an array of struct sock_filter (8 bytes
per instruction, little-endian), the format bubblewrap --seccomp reads and
libseccomp's seccomp_export_bpf writes.
--format json carries the instructions and counts.

POLICY is a policy file or "default" for the embedded default policy.`,
		Example: `  seccompbench compile default
  seccompbench compile testdata/policies/denylist.yaml --format raw > filter.bpf`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Policy = args[0]
			switch opts.Format {
			case "text", "raw", "json":
			default:
				return flagErrorf("--format: %q is not text, raw or json", opts.Format)
			}
			if runF != nil {
				return runF(opts)
			}
			return compileRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Format, "format", "text", "output format: text, raw or json")
	return cmd
}

// compileJSON is the `compile --format json` document.
type compileJSON struct {
	Name         string            `json:"name"`
	Source       string            `json:"source"`
	SHA256       string            `json:"sha256"`
	Instructions int               `json:"instructions"`
	PathCost     int               `json:"path_cost"`
	Counts       map[string]int    `json:"counts"`
	Program      []compileJSONInsn `json:"program"`
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

func compileRun(opts *CompileOptions) error {
	p, err := filters.Open(opts.Policy)
	if err != nil {
		return fmt.Errorf("compile policy: %w", err)
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
			PathCost: p.Len() + filters.PathPenalty, Counts: map[string]int{}}
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
	return filters.FormatText(out, p)
}
