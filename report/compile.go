package report

import (
	"fmt"
	"io"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"github.com/seccompbench/seccompbench/filters/systemd"
)

// CompileDoc is the `compile --format json` document (kind "compile").
type CompileDoc struct {
	SchemaVersion int    `json:"schema_version"`
	Kind          Kind   `json:"kind"`
	Name          string `json:"name"`
	Source        string `json:"source"`
	SHA256        string `json:"sha256"`
	Instructions  int    `json:"instructions"`
	// PathCost is what the filter adds to MAX_INSNS_PER_PATH when another
	// is attached on top: its converted eBPF length + 4
	// (filters.Program.EBPFLen, kernel/seccomp.c: seccomp_attach_filter).
	PathCost int `json:"path_cost"`
	// EBPFInstructions is the filter's length after the kernel converts it
	// to eBPF (net/core/filter.c: bpf_convert_filter).
	EBPFInstructions int            `json:"ebpf_instructions"`
	Counts           map[string]int `json:"counts"`
	Program          []CompileInsn  `json:"program"`
	// Compiler is "native" or "libseccomp" for OCI profiles, absent for
	// formats --compiler does not apply to.
	Compiler string `json:"compiler,omitempty"`
	// Layouts gives the instruction count of each layout available in
	// this build, keyed "native" and "libseccomp" (OCI profiles only).
	Layouts map[string]int `json:"layouts,omitempty"`
	// LibseccompVersion is the linked libseccomp, when there is one.
	LibseccompVersion string `json:"libseccomp_version,omitempty"`
	// JIT is the filter's JIT memory when loaded, predicted from its size
	// (model), if given.
	JIT *JITEstimate `json:"jit,omitempty"`
	// OCI says what resolved an OCI-based source; absent for others.
	OCI *OCIResolution `json:"oci,omitempty"`
	// RuntimeVariants are the SHA-256 of the other filters the modeled
	// runtime may install for this profile with the same verdicts (runc's
	// ENOSYS stub in another architecture order, oci.LibseccompVariants);
	// absent when there are none or the libseccomp layout is not shown.
	RuntimeVariants []string `json:"runtime_variants,omitempty"`
	// ABIs are the ABIs the filter is written for
	// (filters.Program.ABIs), null when it does not check the arch.
	ABIs []string `json:"abis"`
}

// CompileInsn is one instruction of a CompileDoc, with its disassembly.
type CompileInsn struct {
	Line    int    `json:"line"`
	Op      uint16 `json:"op"`
	Jt      uint8  `json:"jt"`
	Jf      uint8  `json:"jf"`
	K       uint32 `json:"k"`
	Text    string `json:"text"`
	Comment string `json:"comment,omitempty"`
	Targets []int  `json:"targets,omitempty"`
}

// Layouts compares the layouts of one OCI profile, in instructions, and
// says what resolved an OCI-based source.
type Layouts struct {
	// Native is 0 for OCI-based formats --compiler does not apply to
	// (Kubernetes, Firecracker, LXC, minijail): no layouts are shown.
	Native int
	// Libseccomp is 0 when libseccomp is not built in; Version is the
	// linked libseccomp's.
	Libseccomp int
	Version    string
	// OCI says what resolved the source's conditions; nil if nothing.
	OCI *OCIResolution
	// Variants are CompileDoc.RuntimeVariants.
	Variants []string
}

// text is the comment line `compile` prints above an OCI disassembly.
func (l *Layouts) text(shown scmp.Compiler) string {
	res := ""
	if l.OCI != nil {
		res = "; OCI conditions resolved with " + l.OCI.Text + "\n"
	}
	if l.Native == 0 {
		return res
	}
	return l.layoutText(shown) + res
}

// layoutText compares the layouts.
func (l *Layouts) layoutText(shown scmp.Compiler) string {
	if l.Libseccomp == 0 {
		return fmt.Sprintf("; layouts: native %d instructions; libseccomp not built in (build with -tags libseccomp, needs libseccomp-dev and cgo)\n", l.Native)
	}
	v := ""
	if len(l.Variants) > 0 && shown == scmp.CompilerLibseccomp {
		v = fmt.Sprintf("; runc may also install %d other layouts (its ENOSYS stub's architectures in Go map order), same verdicts", len(l.Variants))
	}
	return fmt.Sprintf("; layouts: native %d instructions, libseccomp %s %d instructions (as the runtime installs it); shown: %s%s\n",
		l.Native, l.Version, l.Libseccomp, shown, v)
}

// insnClass names the BPF instruction class of op (include/uapi/linux/bpf_common.h).
func insnClass(op uint16) string {
	return [...]string{"ld", "ldx", "st", "stx", "alu", "jmp", "ret", "misc"}[op&0x07]
}

// WriteCompileJSON writes program p as a CompileDoc; layouts, for OCI
// profiles, names the compiler shown and every layout's length.
func WriteCompileJSON(w io.Writer, p *filters.Program, comp scmp.Compiler, layouts *Layouts, jit *JITEstimate) error {
	doc := CompileDoc{SchemaVersion: ContractVersion, Kind: KindCompile, Name: p.Name, Source: p.Source, SHA256: p.SHA256(), Instructions: p.Len(),
		PathCost: p.EBPFLen() + filters.PathPenalty, EBPFInstructions: p.EBPFLen(), Counts: map[string]int{}, JIT: jit,
		ABIs: p.ABIs()}
	if layouts != nil {
		doc.OCI = layouts.OCI
		doc.RuntimeVariants = layouts.Variants
	}
	if layouts != nil && layouts.Native != 0 {
		doc.Compiler = comp.String()
		doc.Layouts = map[string]int{"native": layouts.Native}
		if layouts.Libseccomp != 0 {
			doc.Layouts["libseccomp"] = layouts.Libseccomp
			doc.LibseccompVersion = layouts.Version
		}
	}
	for _, l := range filters.Disassemble(p, filters.ArchX86_64) {
		doc.Counts[insnClass(l.Raw.Op)]++
		doc.Program = append(doc.Program, CompileInsn{Line: l.PC, Op: l.Raw.Op, Jt: l.Raw.Jt, Jf: l.Raw.Jf, K: l.Raw.K,
			Text: l.Text, Comment: l.Comment, Targets: l.Targets})
	}
	return writeIndented(w, doc, "write filter json")
}

// WriteCompileText writes the disassembly of p, after a comment line
// comparing the layouts (OCI profiles: layouts not nil) and naming the one
// shown, and ends with a comment line giving the JIT memory (jit not nil).
func WriteCompileText(w io.Writer, p *filters.Program, comp scmp.Compiler, layouts *Layouts, jit *JITEstimate) error {
	if layouts != nil {
		if _, err := fmt.Fprint(w, layouts.text(comp)); err != nil {
			return fmt.Errorf("write filter: %w", err)
		}
	}
	if _, err := fmt.Fprintf(w, "; abi: %s\n", ABIText(filters.Stack{p})); err != nil {
		return fmt.Errorf("write filter: %w", err)
	}
	if err := filters.FormatText(w, p); err != nil {
		return err
	}
	if jit != nil {
		if _, err := fmt.Fprintf(w, "; loaded: %s\n", jit.Line()); err != nil {
			return fmt.Errorf("write filter: %w", err)
		}
	}
	return nil
}

// SystemdStackDoc is `compile --systemd-stack --format json` (kind
// "compile-stack").
type SystemdStackDoc struct {
	SchemaVersion int                 `json:"schema_version"`
	Kind          Kind                `json:"kind"`
	Unit          string              `json:"unit"`
	Compiler      string              `json:"compiler"`
	Filters       []StackEntry        `json:"filters"`
	Directives    []systemd.Directive `json:"directives"`
	// Layouts is the stack's total instructions per layout built in.
	Layouts map[string]int `json:"layouts"`
	Count   int            `json:"count"`
}

// WriteSystemdStackJSON writes unit's modeled stack as a SystemdStackDoc;
// layouts maps each compiler built in to the stack's total instructions.
func WriteSystemdStackJSON(w io.Writer, unit *systemd.Stack, comp scmp.Compiler, layouts map[string]int) error {
	doc := SystemdStackDoc{SchemaVersion: ContractVersion, Kind: KindCompileStack, Unit: unit.Unit, Compiler: comp.String(), Directives: unit.Directives, Layouts: layouts, Count: len(unit.Programs)}
	for i, p := range unit.Programs {
		doc.Filters = append(doc.Filters, StackEntry{Index: i, Name: p.Name, Instructions: p.Len(), SHA256: p.SHA256()})
	}
	return writeIndented(w, doc, "write stack json")
}

// WriteSystemdStackText writes unit's modeled stack (ending "N filters")
// after a comment line comparing the layouts.
func WriteSystemdStackText(w io.Writer, unit *systemd.Stack, comp scmp.Compiler, layouts map[string]int) error {
	lay := fmt.Sprintf("; layouts: native %d instructions in total", layouts["native"])
	if n, ok := layouts["libseccomp"]; ok {
		lay += fmt.Sprintf(", libseccomp %d (as systemd installs it)", n)
	} else {
		lay += "; libseccomp not built in (build with -tags libseccomp)"
	}
	if _, err := fmt.Fprintf(w, "%s; shown: %s\n%s", lay, comp, unit.String()); err != nil {
		return fmt.Errorf("write stack: %w", err)
	}
	return nil
}
