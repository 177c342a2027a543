package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/equiv"
	"github.com/seccompbench/seccompbench/report/document"
)

// WriteBuildJSON writes sum with p's disassembly as its program, indented.
// sum is not modified.
func WriteBuildJSON(w io.Writer, p *filters.Program, sum *document.BuildSummary) error {
	doc := *sum
	doc.SchemaVersion, doc.Kind = document.ContractVersion, document.Kind(sum.Command)
	doc.Program = nil
	for _, l := range filters.Disassemble(p, filters.ArchX86_64) {
		doc.Program = append(doc.Program, document.CompileInsn{Line: l.PC, Op: l.Raw.Op, Jt: l.Raw.Jt, Jf: l.Raw.Jf, K: l.Raw.K,
			Text: l.Text, Comment: l.Comment, Targets: l.Targets})
	}
	return document.WriteIndented(w, doc, "write filter json")
}

// maxListed is how many syscalls a summary line names before "... (N in
// all)".
const maxListed = 12

// WriteBuildSummary writes what was built and checked, for people: sizes,
// the proof, mean paths and the action-cache changes, desc naming the
// input.
func WriteBuildSummary(w io.Writer, desc string, sum *document.BuildSummary) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d filter(s), %d instructions -> 1 filter, %d instructions; proven equivalent over %d input classes\n",
		desc, sum.Filters, sum.InstructionsBefore, sum.Instructions, sum.InputClasses)
	fmt.Fprintf(&b, "mean path over every x86_64/i386/x32 syscall (args 0): %.2f -> %.2f instructions\n", sum.MeanPathBefore, sum.MeanPathAfter)
	if sum.Profile != "" {
		fmt.Fprintf(&b, "profile-weighted mean path (%s): %.2f -> %.2f instructions\n", sum.Profile, sum.WeightedPathBefore, sum.WeightedPathAfter)
	}
	list := func(what string, cs []document.CacheChange) {
		if len(cs) == 0 {
			fmt.Fprintf(&b, "%s: none\n", what)
			return
		}
		names := make([]string, 0, len(cs))
		for _, c := range cs {
			n := c.Name
			if n == "" {
				n = fmt.Sprint(c.Nr)
			}
			names = append(names, c.Arch+"/"+n)
		}
		if len(names) > maxListed {
			names = append(names[:maxListed], fmt.Sprintf("... (%d in all)", len(cs)))
		}
		fmt.Fprintf(&b, "%s (%d): %s\n", what, len(cs), strings.Join(names, " "))
	}
	list("action cache lost (cached before, not after)", sum.CacheLost)
	list("action cache gained", sum.CacheGained)
	if sum.Command == "optimize" && sum.Profile == "" {
		list("syscalls with a longer path than the input", sum.Longer)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write summary: %w", err)
	}
	return nil
}

// WriteEquivJSON writes equiv's verdict on a and b as an EquivDoc, with
// the units' settings outside seccomp that differ (diffs, for two units).
func WriteEquivJSON(w io.Writer, a, b document.EquivSide, res equiv.Result, diffs ...document.SettingDiff) error {
	doc := document.EquivDoc{SchemaVersion: document.ContractVersion, Kind: document.KindEquiv, A: a, B: b, Equivalent: res.Equivalent, InputClasses: res.Paths, OutsideSeccomp: diffs}
	if c := res.Counterexample; c != nil && !res.Equivalent {
		doc.Counterexample = &document.EquivCounterexample{Arch: c.Arch, AuditArch: c.Data.Arch, Nr: c.Nr, Name: c.Name,
			Args: c.Data.Args, InstructionPointer: c.Data.InstructionPointer, A: fmt.Sprint(c.A), B: fmt.Sprint(c.B)}
	}
	return document.WriteIndentedJSON(w, doc)
}

// WriteEquivText writes equiv's verdict on a and b: "equivalent: ..." with
// the number of input classes the proof explored, or "different: " and
// the counterexample; then, for two units, the settings outside seccomp
// in which they differ (diffs).
func WriteEquivText(w io.Writer, a, b document.EquivSide, res equiv.Result, diffs ...document.SettingDiff) error {
	var err error
	if res.Equivalent {
		_, err = fmt.Fprintf(w, "equivalent: %s (%d filter(s)) and %s (%d filter(s)) agree on every input (%d input classes)\n",
			a.Spec, a.Filters, b.Spec, b.Filters, res.Paths)
	} else {
		_, err = fmt.Fprintf(w, "different: %v\n  A = %s, B = %s\n", res.Counterexample, a.Spec, b.Spec)
	}
	if err != nil {
		return fmt.Errorf("write result: %w", err)
	}
	return writeSettingDiffs(w, diffs)
}
