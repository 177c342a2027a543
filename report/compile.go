package report

import (
	"fmt"
	"io"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"github.com/seccompbench/seccompbench/filters/systemd"
	"github.com/seccompbench/seccompbench/report/document"
)

// layoutsText is the comment line `compile` prints above an OCI disassembly.
func layoutsText(l *document.Layouts, shown scmp.Compiler) string {
	res := ""
	if l.OCI != nil {
		res = "; OCI conditions resolved with " + l.OCI.Text + "\n"
	}
	if l.Native == 0 {
		return res
	}
	return layoutText(l, shown) + res
}

// layoutText compares the layouts.
func layoutText(l *document.Layouts, shown scmp.Compiler) string {
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
func WriteCompileJSON(w io.Writer, p *filters.Program, comp scmp.Compiler, layouts *document.Layouts, jit *document.JITEstimate) error {
	doc := document.CompileDoc{SchemaVersion: document.ContractVersion, Kind: document.KindCompile, Name: p.Name, Source: p.Source, SHA256: p.SHA256(), Instructions: p.Len(),
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
		doc.Program = append(doc.Program, document.CompileInsn{Line: l.PC, Op: l.Raw.Op, Jt: l.Raw.Jt, Jf: l.Raw.Jf, K: l.Raw.K,
			Text: l.Text, Comment: l.Comment, Targets: l.Targets})
	}
	return document.WriteIndented(w, doc, "write filter json")
}

// WriteCompileText writes the disassembly of p, after a comment line
// comparing the layouts (OCI profiles: layouts not nil) and naming the one
// shown, and ends with a comment line giving the JIT memory (jit not nil).
func WriteCompileText(w io.Writer, p *filters.Program, comp scmp.Compiler, layouts *document.Layouts, jit *document.JITEstimate) error {
	if layouts != nil {
		if _, err := fmt.Fprint(w, layoutsText(layouts, comp)); err != nil {
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
		if _, err := fmt.Fprintf(w, "; loaded: %s\n", JITLine(jit)); err != nil {
			return fmt.Errorf("write filter: %w", err)
		}
	}
	return nil
}

// WriteSystemdStackJSON writes unit's modeled stack as a SystemdStackDoc;
// layouts maps each compiler built in to the stack's total instructions.
func WriteSystemdStackJSON(w io.Writer, unit *systemd.Stack, comp scmp.Compiler, layouts map[string]int) error {
	doc := document.SystemdStackDoc{SchemaVersion: document.ContractVersion, Kind: document.KindCompileStack, Unit: unit.Unit, Compiler: comp.String(), Directives: directives(unit.Directives), Layouts: layouts, Count: len(unit.Programs)}
	for i, p := range unit.Programs {
		doc.Filters = append(doc.Filters, document.StackEntry{Index: i, Name: p.Name, Instructions: p.Len(), SHA256: p.SHA256()})
	}
	return document.WriteIndented(w, doc, "write stack json")
}

// directives copies ds into the document's type; nil for nil.
func directives(ds []systemd.Directive) []document.Directive {
	if ds == nil {
		return nil
	}
	out := make([]document.Directive, len(ds))
	for i, d := range ds {
		out[i] = document.Directive(d)
	}
	return out
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
