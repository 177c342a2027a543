package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"github.com/seccompbench/seccompbench/filters/subset"
	"github.com/seccompbench/seccompbench/report/document"
)

func findingsOf(fs []subset.Finding) []document.SubsetFinding {
	out := make([]document.SubsetFinding, 0, len(fs))
	for _, f := range fs {
		out = append(out, document.SubsetFinding{EquivCounterexample: document.EquivCounterexample{Arch: f.Arch, AuditArch: f.Witness.Arch, Nr: f.Nr, Name: f.Name,
			Args: f.Witness.Args, InstructionPointer: f.Witness.InstructionPointer, A: f.Profile.String(), B: f.Baseline.String()},
			Relation: f.Relation.String(), Classes: f.Classes})
	}
	return out
}

// NewSubsetDoc builds subset's JSON document; cost may be nil.
func NewSubsetDoc(profile, baseline document.EquivSide, res subset.Result, classOnly bool, cost *document.Cost) document.SubsetDoc {
	doc := document.SubsetDoc{SchemaVersion: document.ContractVersion, Kind: document.KindSubset, Profile: profile, Baseline: baseline, Subset: res.Subset,
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
func MarkENOSYSStubs(doc *document.SubsetDoc, res subset.Result, profile, baseline filters.Stack) error {
	for _, l := range []struct {
		out []document.SubsetFinding
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
func WriteSubsetJSON(w io.Writer, doc document.SubsetDoc) error {
	return document.WriteIndented(w, doc, "write subset json")
}

// WriteSubsetText writes the verdict, every violating syscall with its
// witness and both outcomes, a per-ABI summary of the syscall names, and
// the cost.
func WriteSubsetText(w io.Writer, doc document.SubsetDoc) error {
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

func writeFinding(b *strings.Builder, f document.SubsetFinding) {
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
func stubNote(f document.SubsetFinding) string {
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
func uprobeNote(f document.SubsetFinding) string {
	if f.Arch != filters.ArchX86_64.Name || (f.Name != "uretprobe" && f.Name != "uprobe") {
		return ""
	}
	return "; no effect where the kernel passes " + f.Name + " without filtering (seccomp_uprobe_exception: uprobe on every kernel that has it, Linux 6.18+; uretprobe since the 2025 fix)"
}

// x86_64Numbered reports an x32 finding at the x86_64 number of a
// 64-bit-only entry (nr 13, x86_64's rt_sigaction, where x32's is 512):
// the kernel's x32 table has sys_ni_syscall there (filters.ArchX32).
func x86_64Numbered(f document.SubsetFinding) bool {
	if f.Arch != filters.ArchX32.Name || f.Name == "" {
		return false
	}
	n, ok := filters.ArchX32.Lookup(f.Name)
	return ok && n != f.Nr
}

// writeUnnamed writes one ABI's inputs outside the x86 syscall tables:
// its witness stands for every such class of the ABI.
func writeUnnamed(b *strings.Builder, f document.SubsetFinding) {
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
func writeSubsetSummary(b *strings.Builder, fs []document.SubsetFinding) {
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
func writeCost(b *strings.Builder, c *document.Cost) {
	if c == nil {
		return
	}
	abis := "x86_64/i386/x32"
	if len(c.ABIs) > 0 {
		abis = strings.Join(c.ABIs, "/")
	}
	fmt.Fprintf(b, "cost (instructions executed per syscall, mean over every %s syscall, arguments 0):\n", abis)
	line := func(what string, s *document.StackCost) {
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
func WriteCostText(w io.Writer, c *document.Cost) error {
	var b strings.Builder
	writeCost(&b, c)
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write cost: %w", err)
	}
	return nil
}

// WriteOCIIntersectionText says what --oci wrote and what was proven.
func WriteOCIIntersectionText(w io.Writer, o *document.OCIIntersection) error {
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
