package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/equiv"
	"github.com/seccompbench/seccompbench/filters/optimize"
)

// BuildSummary describes a program built by `merge` or `optimize` next to
// its input: the standard-error summary and, with the program's
// disassembly added, the `--format json` document. Paths are instructions
// executed with all arguments 0, summed over the stack, over every named
// syscall of x86_64, i386 and x32, the action cache ignored.
type BuildSummary struct {
	// SchemaVersion and Kind (KindMerge or KindOptimize, as Command) are
	// set by WriteBuildJSON.
	SchemaVersion int  `json:"schema_version"`
	Kind          Kind `json:"kind"`
	// Command is "merge", "optimize" or "intersect".
	Command string `json:"command"`
	// Filters is the number of filters in the input stack.
	Filters int `json:"filters"`
	// InstructionsBefore is the input's length summed over its filters,
	// Instructions the built program's, both in classic BPF instructions.
	InstructionsBefore int `json:"instructions_before"`
	Instructions       int `json:"instructions"`
	// Equivalent is the exact checker's verdict (always true for a
	// program that was written); InputClasses is the number of input
	// classes the proof explored.
	Equivalent   bool `json:"equivalent"`
	InputClasses int  `json:"input_classes"`
	// MeanPathBefore and MeanPathAfter are mean instructions executed per
	// syscall, input and result.
	MeanPathBefore float64 `json:"mean_path_before"`
	MeanPathAfter  float64 `json:"mean_path_after"`
	// WeightedPathBefore and WeightedPathAfter are the means weighted by
	// the profile's call counts (optimize --profile), in instructions.
	WeightedPathBefore float64 `json:"weighted_path_before,omitempty"`
	WeightedPathAfter  float64 `json:"weighted_path_after,omitempty"`
	// CacheLost are syscalls the input had in the action cache and the
	// result does not; CacheGained the reverse ([] when none). Requires
	// at least Linux 5.11 to matter.
	CacheLost   []optimize.CacheChange `json:"cache_lost"`
	CacheGained []optimize.CacheChange `json:"cache_gained"`
	// Longer are syscalls whose path is longer than in the input
	// (optimize without a profile).
	Longer []optimize.CacheChange `json:"longer,omitempty"`
	// Program is the built filter's disassembly (--format json only).
	Program []CompileInsn `json:"program,omitempty"`
	// Passes are the cleanup passes that changed something.
	Passes []string `json:"passes,omitempty"`
	// Profile is the profile file the layout was weighted by.
	Profile string `json:"profile,omitempty"`
	// Cost compares the input stack with the built filter (intersect
	// only).
	Cost *Cost `json:"cost,omitempty"`
	// OCI is what intersect --oci wrote and proved.
	OCI *OCIIntersection `json:"oci,omitempty"`
}

// WriteBuildJSON writes sum with p's disassembly as its program, indented.
// sum is not modified.
func WriteBuildJSON(w io.Writer, p *filters.Program, sum *BuildSummary) error {
	doc := *sum
	doc.SchemaVersion, doc.Kind = ContractVersion, Kind(sum.Command)
	doc.Program = nil
	for _, l := range filters.Disassemble(p, filters.ArchX86_64) {
		doc.Program = append(doc.Program, CompileInsn{Line: l.PC, Op: l.Raw.Op, Jt: l.Raw.Jt, Jf: l.Raw.Jf, K: l.Raw.K,
			Text: l.Text, Comment: l.Comment, Targets: l.Targets})
	}
	return writeIndented(w, doc, "write filter json")
}

// maxListed is how many syscalls a summary line names before "... (N in
// all)".
const maxListed = 12

// WriteBuildSummary writes what was built and checked, for people: sizes,
// the proof, mean paths and the action-cache changes, desc naming the
// input.
func WriteBuildSummary(w io.Writer, desc string, sum *BuildSummary) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d filter(s), %d instructions -> 1 filter, %d instructions; proven equivalent over %d input classes\n",
		desc, sum.Filters, sum.InstructionsBefore, sum.Instructions, sum.InputClasses)
	fmt.Fprintf(&b, "mean path over every x86_64/i386/x32 syscall (args 0): %.2f -> %.2f instructions\n", sum.MeanPathBefore, sum.MeanPathAfter)
	if sum.Profile != "" {
		fmt.Fprintf(&b, "profile-weighted mean path (%s): %.2f -> %.2f instructions\n", sum.Profile, sum.WeightedPathBefore, sum.WeightedPathAfter)
	}
	list := func(what string, cs []optimize.CacheChange) {
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

// EquivSide names one side of `equiv`: the argument as given and the
// number of filters it loaded as.
type EquivSide struct {
	Spec    string `json:"spec"`
	Filters int    `json:"filters"`
}

// EquivDoc is the `equiv --format json` document (kind "equiv").
type EquivDoc struct {
	SchemaVersion int       `json:"schema_version"`
	Kind          Kind      `json:"kind"`
	A             EquivSide `json:"a"`
	B             EquivSide `json:"b"`
	// Equivalent is the verdict; the exit code is 3 when it is false.
	Equivalent bool `json:"equivalent"`
	// InputClasses is the number of input classes the proof explored.
	InputClasses int `json:"input_classes"`
	// Counterexample is the first differing input found; nil (null) when
	// the two are equivalent.
	Counterexample *EquivCounterexample `json:"counterexample"`
	// OutsideSeccomp lists, when A and B are systemd units, the settings
	// outside seccomp in which they differ (unitdiff.go); absent otherwise.
	OutsideSeccomp []SettingDiff `json:"outside_seccomp,omitempty"`
}

// EquivCounterexample is an input on which the two sides of equiv differ.
type EquivCounterexample struct {
	// Arch is the ABI ("x86_64", "i386", "x32"), "" for an arch value no
	// x86_64 kernel produces; AuditArch the raw seccomp_data.arch.
	Arch      string `json:"arch"`
	AuditArch uint32 `json:"audit_arch"`
	// Nr is the syscall's table number in Arch (x32 bit cleared), Name its
	// name ("" if the table has none).
	Nr   int    `json:"nr"`
	Name string `json:"name"`
	// Args are seccomp_data.args, InstructionPointer its
	// instruction_pointer.
	Args               [6]uint64 `json:"args"`
	InstructionPointer uint64    `json:"instruction_pointer"`
	// A and B are the two sides' outcomes, e.g. "ERRNO(1)", "ALLOW".
	A string `json:"a"`
	B string `json:"b"`
}

// WriteEquivJSON writes equiv's verdict on a and b as an EquivDoc, with
// the units' settings outside seccomp that differ (diffs, for two units).
func WriteEquivJSON(w io.Writer, a, b EquivSide, res equiv.Result, diffs ...SettingDiff) error {
	doc := EquivDoc{SchemaVersion: ContractVersion, Kind: KindEquiv, A: a, B: b, Equivalent: res.Equivalent, InputClasses: res.Paths, OutsideSeccomp: diffs}
	if c := res.Counterexample; c != nil && !res.Equivalent {
		doc.Counterexample = &EquivCounterexample{Arch: c.Arch, AuditArch: c.Data.Arch, Nr: c.Nr, Name: c.Name,
			Args: c.Data.Args, InstructionPointer: c.Data.InstructionPointer, A: fmt.Sprint(c.A), B: fmt.Sprint(c.B)}
	}
	return WriteIndentedJSON(w, doc)
}

// WriteEquivText writes equiv's verdict on a and b: "equivalent: ..." with
// the number of input classes the proof explored, or "different: " and
// the counterexample; then, for two units, the settings outside seccomp
// in which they differ (diffs).
func WriteEquivText(w io.Writer, a, b EquivSide, res equiv.Result, diffs ...SettingDiff) error {
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
