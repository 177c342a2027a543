package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"github.com/seccompbench/seccompbench/filters/subset"
)

// SubsetDoc is the `subset --format json` document (kind "subset").
type SubsetDoc struct {
	SchemaVersion int  `json:"schema_version"`
	Kind          Kind `json:"kind"`
	// Profile and Baseline name the two stacks as given.
	Profile  EquivSide `json:"profile"`
	Baseline EquivSide `json:"baseline"`
	// Subset is the verdict: the profile is at least as restrictive as
	// the baseline on every input. The exit code is 3 when it is false.
	Subset bool `json:"subset"`
	// ClassOnly is true unless --strict-errno: outcomes of one action
	// with different data (errno, trap data, tracer message) were not
	// counted, only listed in DataNotes.
	ClassOnly bool `json:"class_only"`
	// InputClasses is the number of input classes the proof explored.
	InputClasses int `json:"input_classes"`
	// Looser and DataDiffers count the findings per relation: the named
	// syscalls and the Unnamed entries (one per ABI).
	Looser      int `json:"looser"`
	DataDiffers int `json:"data_differs"`
	// Findings are every named syscall where the profile violates
	// ([] when none), Unnamed the violating inputs outside the syscall
	// tables, one per ABI.
	Findings []SubsetFinding `json:"findings"`
	Unnamed  []SubsetFinding `json:"unnamed"`
	// DataNotes are, when ClassOnly, the syscalls (and unnamed inputs)
	// where the profile returns the same action with other data ([] when
	// none): not counted against the subset.
	DataNotes []SubsetFinding `json:"data_notes"`
	// Cost is what enforcing both costs, stacked and intersected.
	Cost *Cost `json:"cost"`
}

// SubsetFinding is one syscall where the profile is looser than the
// baseline or returns other data, with a concrete witness.
type SubsetFinding struct {
	EquivCounterexample
	// Relation is "looser" or "data differs".
	Relation string `json:"relation"`
	// Classes is the number of input classes of the syscall on which the
	// profile violates.
	Classes int `json:"classes"`
	// ProfileENOSYSStub and BaselineENOSYSStub report that the side's
	// ERRNO(38) comes from runc's ENOSYS stub in front of its filter (the
	// number is above every syscall the profile names), not from a rule
	// (scmp.FromENOSYSStub); set by MarkENOSYSStubs.
	ProfileENOSYSStub  bool `json:"profile_enosys_stub,omitempty"`
	BaselineENOSYSStub bool `json:"baseline_enosys_stub,omitempty"`
}

// Cost compares enforcing two stacks by stacking them with enforcing
// their intersection as one merged filter. Paths are instructions
// executed per syscall with all arguments 0, summed over a stack's
// filters, over every named syscall of ABIs, the action cache ignored.
type Cost struct {
	// ABIs are the ABIs whose named syscalls the paths and cache counts
	// cover: those of --arch's kernel (x86_64, i386, x32 on x86_64).
	ABIs    []string  `json:"abis"`
	Stacked StackCost `json:"stacked"`
	// Intersected is nil (null) when the stack could not be merged;
	// IntersectError says why.
	Intersected    *StackCost `json:"intersected"`
	IntersectError string     `json:"intersect_error,omitempty"`
	// Profile is the syscall profile (--profile) the weighted paths and
	// PerSyscall come from, "" without one.
	Profile string `json:"profile,omitempty"`
	// PerSyscall has one row per syscall of the profile ([] without one).
	PerSyscall []SyscallCostRow `json:"per_syscall"`
}

// StackCost is the static cost of one way of enforcing a result.
type StackCost struct {
	// Filters is the number of filters, Instructions their summed length
	// in classic BPF instructions.
	Filters      int `json:"filters"`
	Instructions int `json:"instructions"`
	// MeanPath is the mean number of instructions executed per syscall.
	MeanPath float64 `json:"mean_path"`
	// WeightedPath is MeanPath weighted by the profile's call counts, in
	// instructions; nil without --profile.
	WeightedPath *float64 `json:"weighted_path"`
	// Syscalls is the number of named syscalls of Cost.ABIs;
	// Cached how many of them the action cache allows without running a
	// filter (analysis.PredictCache; Linux 5.11 and later).
	Syscalls int `json:"syscalls"`
	Cached   int `json:"cached"`
}

// SyscallCostRow is one profiled syscall's cost, stacked and intersected.
type SyscallCostRow struct {
	Arch  string `json:"arch"`
	Name  string `json:"name"`
	Calls int64  `json:"calls"`
	// Stacked and Intersected are the instructions the kernel executes
	// per call (0 when the action cache decides); Intersected is nil when
	// the stack could not be merged.
	Stacked     int  `json:"stacked"`
	Intersected *int `json:"intersected"`
	// StackedCached and IntersectedCached report the action cache.
	StackedCached     bool `json:"stacked_cached"`
	IntersectedCached bool `json:"intersected_cached"`
}

func findingsOf(fs []subset.Finding) []SubsetFinding {
	out := make([]SubsetFinding, 0, len(fs))
	for _, f := range fs {
		out = append(out, SubsetFinding{EquivCounterexample: EquivCounterexample{Arch: f.Arch, AuditArch: f.Witness.Arch, Nr: f.Nr, Name: f.Name,
			Args: f.Witness.Args, InstructionPointer: f.Witness.InstructionPointer, A: f.Profile.String(), B: f.Baseline.String()},
			Relation: f.Relation.String(), Classes: f.Classes})
	}
	return out
}

// NewSubsetDoc builds subset's JSON document; cost may be nil.
func NewSubsetDoc(profile, baseline EquivSide, res subset.Result, classOnly bool, cost *Cost) SubsetDoc {
	doc := SubsetDoc{SchemaVersion: ContractVersion, Kind: KindSubset, Profile: profile, Baseline: baseline, Subset: res.Subset,
		ClassOnly: classOnly, InputClasses: res.Paths, Findings: findingsOf(res.Findings), Unnamed: findingsOf(res.Unnamed),
		DataNotes: findingsOf(res.Notes), Cost: cost}
	for _, f := range append(slices.Clone(res.Findings), res.Unnamed...) {
		if f.Relation == subset.Looser {
			doc.Looser++
		} else {
			doc.DataDiffers++
		}
	}
	return doc
}

// MarkENOSYSStubs sets the ENOSYS-stub flags of doc's findings and notes,
// built by NewSubsetDoc from res: the profile's from profile, the
// baseline's from baseline (scmp.FromENOSYSStub on each witness). Invalid
// filters give an error wrapping filters.ErrInvalidProgram.
func MarkENOSYSStubs(doc *SubsetDoc, res subset.Result, profile, baseline filters.Stack) error {
	for _, l := range []struct {
		out []SubsetFinding
		in  []subset.Finding
	}{{doc.Findings, res.Findings}, {doc.Unnamed, res.Unnamed}, {doc.DataNotes, res.Notes}} {
		for i := range l.out {
			var err error
			if l.out[i].ProfileENOSYSStub, err = scmp.FromENOSYSStub(profile, l.in[i].Witness); err != nil {
				return err
			}
			if l.out[i].BaselineENOSYSStub, err = scmp.FromENOSYSStub(baseline, l.in[i].Witness); err != nil {
				return err
			}
		}
	}
	return nil
}

// WriteSubsetJSON writes doc, indented.
func WriteSubsetJSON(w io.Writer, doc SubsetDoc) error {
	return writeIndented(w, doc, "write subset json")
}

// WriteSubsetText writes the verdict, every violating syscall with its
// witness and both outcomes, a per-ABI summary of the syscall names, and
// the cost.
func WriteSubsetText(w io.Writer, doc SubsetDoc) error {
	var b strings.Builder
	if doc.Subset {
		fmt.Fprintf(&b, "subset: %s (%d filter(s)) is at least as restrictive as %s (%d filter(s)) on every input (%d input classes)\n",
			doc.Profile.Spec, doc.Profile.Filters, doc.Baseline.Spec, doc.Baseline.Filters, doc.InputClasses)
	} else {
		fmt.Fprintf(&b, "not a subset: %s is looser than %s on %d syscall(s) and returns other data on %d (%d input classes)\n",
			doc.Profile.Spec, doc.Baseline.Spec, doc.Looser, doc.DataDiffers, doc.InputClasses)
		for _, f := range doc.Findings {
			writeFinding(&b, f)
		}
		for _, f := range doc.Unnamed {
			writeUnnamed(&b, f)
		}
		writeSubsetSummary(&b, doc.Findings)
	}
	if n := len(doc.DataNotes); n > 0 {
		fmt.Fprintf(&b, "note: same action, other data (errno, trap data) on %d syscall(s) or input class(es), not counted (--strict-errno counts them); the first:\n", n)
		writeFinding(&b, doc.DataNotes[0])
	}
	writeCost(&b, doc.Cost)
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write subset: %w", err)
	}
	return nil
}

func writeFinding(b *strings.Builder, f SubsetFinding) {
	who := fmt.Sprintf("arch %#x nr %d", f.AuditArch, f.Nr)
	switch {
	case x86_64Numbered(f):
		who = fmt.Sprintf("x32 nr %d (x86_64 %s; not an x32 call)", f.Nr, f.Name)
	case f.Name != "":
		who = fmt.Sprintf("%s %s (nr %d)", f.Arch, f.Name, f.Nr)
	case f.Arch != "":
		who = fmt.Sprintf("%s nr %d (no syscall of that number)", f.Arch, f.Nr)
	}
	a := f.Args
	fmt.Fprintf(b, "  %-12s %s: profile %s, baseline %s; e.g. args [%#x %#x %#x %#x %#x %#x]; %d input class(es)%s\n",
		f.Relation, who, f.A, f.B, a[0], a[1], a[2], a[3], a[4], a[5], f.Classes, uprobeNote(f)+stubNote(f))
}

// stubNote says which side's ERRNO(38) is runc's ENOSYS stub rather than
// a rule; "" when neither is.
func stubNote(f SubsetFinding) string {
	var sides []string
	if f.ProfileENOSYSStub {
		sides = append(sides, "profile's")
	}
	if f.BaselineENOSYSStub {
		sides = append(sides, "baseline's")
	}
	if len(sides) == 0 {
		return ""
	}
	return "; the " + strings.Join(sides, " and the ") + " ERRNO(38) is runc's ENOSYS stub (a number above every syscall it names), not a rule"
}

// uprobeNote qualifies a finding on x86_64's uretprobe or uprobe, which
// the kernel lets through without running the filters where it has the
// exception (kernel/seccomp.c: seccomp_uprobe_exception; uretprobe since
// the 2025 fix, uprobe since it was added in Linux 6.18): there the two
// verdicts differ on paper only. "" for any other finding.
func uprobeNote(f SubsetFinding) string {
	if f.Arch != filters.ArchX86_64.Name || (f.Name != "uretprobe" && f.Name != "uprobe") {
		return ""
	}
	return "; no effect where the kernel passes " + f.Name + " without filtering (seccomp_uprobe_exception: uprobe on every kernel that has it, Linux 6.18+; uretprobe since the 2025 fix)"
}

// x86_64Numbered reports an x32 finding at the x86_64 number of a
// 64-bit-only entry (nr 13, x86_64's rt_sigaction, where x32's is 512):
// the kernel's x32 table has sys_ni_syscall there (filters.ArchX32).
func x86_64Numbered(f SubsetFinding) bool {
	if f.Arch != filters.ArchX32.Name || f.Name == "" {
		return false
	}
	n, ok := filters.ArchX32.Lookup(f.Name)
	return ok && n != f.Nr
}

// writeUnnamed writes one ABI's inputs outside the x86 syscall tables:
// its witness stands for every such class of the ABI.
func writeUnnamed(b *strings.Builder, f SubsetFinding) {
	who := fmt.Sprintf("arch %#x", f.AuditArch)
	if f.Arch != "" {
		who = fmt.Sprintf("%s (arch %#x)", f.Arch, f.AuditArch)
	}
	what := fmt.Sprintf("nr %d", f.Nr)
	if f.Name != "" {
		what = fmt.Sprintf("%s (nr %d)", f.Name, f.Nr)
	}
	a := f.Args
	fmt.Fprintf(b, "  %-12s %s inputs outside the x86 syscall tables, %d input class(es); e.g. %s args [%#x %#x %#x %#x %#x %#x]: profile %s, baseline %s\n",
		f.Relation, who, f.Classes, what, a[0], a[1], a[2], a[3], a[4], a[5], f.A, f.B)
}

// writeSubsetSummary lists the violating syscall names per ABI and
// relation.
func writeSubsetSummary(b *strings.Builder, fs []SubsetFinding) {
	type group struct{ arch, rel string }
	var order []group
	names := map[group][]string{}
	for _, f := range fs {
		g := group{f.Arch, f.Relation}
		if _, ok := names[g]; !ok {
			order = append(order, g)
		}
		name := f.Name
		if x86_64Numbered(f) {
			name = fmt.Sprintf("nr%d(x86_64:%s)", f.Nr, f.Name)
		}
		names[g] = append(names[g], name)
	}
	if len(order) > 0 {
		b.WriteString("summary:\n")
	}
	for _, g := range order {
		fmt.Fprintf(b, "  %s %s (%d): %s\n", g.arch, g.rel, len(names[g]), strings.Join(names[g], " "))
	}
}

// writeCost writes c, if any, as one line per way of enforcing.
func writeCost(b *strings.Builder, c *Cost) {
	if c == nil {
		return
	}
	abis := "x86_64/i386/x32"
	if len(c.ABIs) > 0 {
		abis = strings.Join(c.ABIs, "/")
	}
	fmt.Fprintf(b, "cost (instructions executed per syscall, mean over every %s syscall, arguments 0):\n", abis)
	line := func(what string, s *StackCost) {
		fmt.Fprintf(b, "  %-12s %d filter(s), %d instructions: %.2f per syscall", what, s.Filters, s.Instructions, s.MeanPath)
		if s.WeightedPath != nil {
			fmt.Fprintf(b, ", %.2f weighted by %s", *s.WeightedPath, c.Profile)
		}
		fmt.Fprintf(b, "; %d of %d syscalls cached\n", s.Cached, s.Syscalls)
	}
	line("stacked", &c.Stacked)
	if c.Intersected != nil {
		line("intersected", c.Intersected)
	} else {
		fmt.Fprintf(b, "  %-12s not built: %s\n", "intersected", c.IntersectError)
	}
	for _, r := range c.PerSyscall {
		in := "-"
		if r.Intersected != nil {
			in = fmt.Sprintf("%d%s", *r.Intersected, cachedMark(r.IntersectedCached))
		}
		fmt.Fprintf(b, "  %s %s (%d calls): stacked %d%s, intersected %s\n", r.Arch, r.Name, r.Calls, r.Stacked, cachedMark(r.StackedCached), in)
	}
}

func cachedMark(cached bool) string {
	if cached {
		return " (cached)"
	}
	return ""
}

// WriteCostText writes c as WriteSubsetText does (nothing for nil).
func WriteCostText(w io.Writer, c *Cost) error {
	var b strings.Builder
	writeCost(&b, c)
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write cost: %w", err)
	}
	return nil
}

// OCIIntersection is what intersect --oci wrote and proved.
type OCIIntersection struct {
	// File is the profile written.
	File string `json:"file"`
	// Equivalent reports that the written profile, compiled back, gives
	// every input the stack's outcome (equiv); AtLeastAsRestrictive that
	// it is never looser than the stack (subset), true when Equivalent.
	Equivalent           bool `json:"equivalent"`
	AtLeastAsRestrictive bool `json:"at_least_as_restrictive"`
	// Inexpressible are the syscalls OCI rules could not state exactly
	// ([] when none), each written with its strictest outcome.
	Inexpressible []OCIInexpressible `json:"inexpressible"`
	// Stricter are the syscalls ("ABI name") on which the written profile
	// is more restrictive than the stack ([] when Equivalent).
	Stricter []string `json:"stricter"`
}

// OCIInexpressible is one syscall intersect could not write exactly.
type OCIInexpressible struct {
	Syscall string `json:"syscall"`
	Reason  string `json:"reason"`
	Written string `json:"written"`
}

// WriteOCIIntersectionText says what --oci wrote and what was proven.
func WriteOCIIntersectionText(w io.Writer, o *OCIIntersection) error {
	if o == nil {
		return nil
	}
	var b strings.Builder
	switch {
	case o.Equivalent:
		fmt.Fprintf(&b, "OCI profile %s: proven equivalent to the stack (compiled back and checked)\n", o.File)
	default:
		fmt.Fprintf(&b, "OCI profile %s: proven at least as restrictive as the stack, stricter on %d syscall(s): %s\n",
			o.File, len(o.Stricter), strings.Join(o.Stricter, ", "))
	}
	for _, x := range o.Inexpressible {
		fmt.Fprintf(&b, "  not expressible in OCI: %s (written as %s): %s\n", x.Syscall, x.Written, x.Reason)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write oci summary: %w", err)
	}
	return nil
}
