package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/analysis"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/report/internal/text"
)

// NewSimulateDoc describes the stack s and each cost. sr, when not nil, is
// the emulation of the single syscall of costs, whose arguments and paths
// are then included.
func NewSimulateDoc(s filters.Stack, costs []analysis.SyscallCost, sr *filters.StackResult) document.SimulateDoc {
	doc := document.SimulateDoc{Stack: StackEntries(s), Syscalls: make([]document.SimulateSyscall, 0, len(costs))}
	for _, c := range costs {
		j := simulateSyscall(c, sr)
		j.ENOSYSStub = sr != nil && fromStub(s, c, *sr)
		doc.Syscalls = append(doc.Syscalls, j)
	}
	return doc
}

func simulateSyscall(c analysis.SyscallCost, sr *filters.StackResult) document.SimulateSyscall {
	j := document.SimulateSyscall{Name: c.Name, Nr: c.Nr, Arch: c.Arch, Action: c.Action.String(), Ret: filters.RetText(c.Ret),
		Decider: c.Decider, Cached: c.Cached, CacheCause: c.CacheCause, CacheReason: c.CacheReason,
		Instructions: c.Executed, Effective: c.EffectiveInstructions, PerFilter: c.PerFilter}
	res := filters.StackResult{Action: c.Action, Data: c.Data}
	if e, ok := res.Errno(); ok {
		j.Errno = &e
	}
	if sr != nil {
		j.Args = c.Args[:]
		for _, r := range sr.PerFilter {
			j.Paths = append(j.Paths, r.Path)
		}
	}
	return j
}

// fromStub reports that c's verdict is runc's ENOSYS stub in front of the
// deciding filter, by the path sr recorded.
func fromStub(s filters.Stack, c analysis.SyscallCost, sr filters.StackResult) bool {
	return c.Decider >= 0 && c.Decider < len(sr.PerFilter) && c.Ret == scmp.RetENOSYS && scmp.ENOSYSStubPath(s[c.Decider].Insns, sr.PerFilter[c.Decider].Path)
}

// StackEntries describes each filter of s.
func StackEntries(s filters.Stack) []document.StackEntry {
	out := make([]document.StackEntry, len(s))
	for i, p := range s {
		out[i] = document.StackEntry{Index: i, Name: p.Name, Instructions: p.Len(), SHA256: p.SHA256(), ABIs: p.ABIs()}
	}
	return out
}

// ABIText says which ABIs the filters of s are written for
// (filters.StackABIs), e.g. "i386 (the filters have rules for these
// ABIs; ...)".
func ABIText(s filters.Stack) string {
	abis := filters.StackABIs(s)
	if len(abis) == 0 {
		return "any (no filter checks seccomp_data.arch)"
	}
	return strings.Join(abis, ", ") + " (the filters have rules for these ABIs; see lint for what the others get)"
}

// WriteSimulateSyscallText writes one simulated syscall for people: the
// verdict and which filter decided it, the cache's decision, the cost and
// each filter's path (newest first, as the kernel runs them).
func WriteSimulateSyscallText(w io.Writer, s filters.Stack, c analysis.SyscallCost, sr filters.StackResult) error {
	var b strings.Builder
	name := c.Name
	if name == "" {
		name = "(unnamed)"
	}
	fmt.Fprintf(&b, "abi       %s\n", ABIText(s))
	fmt.Fprintf(&b, "syscall   %s (%s nr %d)  args %s\n", name, c.Arch, c.Nr, joinUints(c.Args[:]))
	verdict := filters.VerdictText(c.Ret)
	if c.Decider >= 0 {
		verdict += fmt.Sprintf(" from filter %d (%s)", c.Decider, s[c.Decider].Name)
	} else if len(s) > 0 && !c.Cached {
		verdict += " (every filter allows)"
	}
	if filters.ErrnoCapped(c.Ret) {
		verdict += fmt.Sprintf("; the filter returns %s, which the kernel caps at errno %d (MAX_ERRNO)", filters.RetText(c.Ret), filters.MaxErrno)
	}
	if fromStub(s, c, sr) {
		verdict += "; runc's ENOSYS stub: the number is above every syscall the filter names, no rule decided"
	}
	fmt.Fprintf(&b, "verdict   %s\n", verdict)
	if c.Cached {
		fmt.Fprintf(&b, "cache     cached (%s): the kernel runs no filter for this syscall\n", c.CacheCause)
	} else {
		fmt.Fprintf(&b, "cache     not cached: %s\n", c.CacheReason)
	}
	fmt.Fprintf(&b, "cost      %d instructions run; the filters execute %d when they run (%s)\n", c.EffectiveInstructions, c.Executed, StackText(s))
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FILTER\tNAME\tRETURNS\tINSNS\tREAD\tPATH (lines)")
	for i := len(s) - 1; i >= 0; i-- {
		r := sr.PerFilter[i]
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%s\t%s\n", i, s[i].Name, filters.RetText(r.Ret), r.Executed, r.Read, text.IndexRanges(r.Path))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(s) > 1 {
		b.WriteString("filters run newest first; the lowest action wins, ties go to the newer filter\n")
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write simulation: %w", err)
	}
	return nil
}

// WriteSimulateAllText writes the `simulate --all` table: the stack, the
// cached count per ABI, and one row per syscall in the order of costs.
func WriteSimulateAllText(w io.Writer, s filters.Stack, arches []*filters.Arch, costs []analysis.SyscallCost) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# stack: %s\n", StackText(s))
	for _, a := range arches {
		cached, total := 0, 0
		for _, c := range costs {
			if c.Arch == a.Name {
				total++
				if c.Cached {
					cached++
				}
			}
		}
		fmt.Fprintf(&b, "# %s: %d of %d syscalls cached\n", a.Name, cached, total)
	}
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ARCH\tNR\tNAME\tVERDICT\tCACHED\tINSNS\tEFFECTIVE\tPER-FILTER")
	for _, c := range costs {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%d\t%d\t%s\n", c.Arch, c.Nr, c.Name, filters.VerdictText(c.Ret), text.YesNo(c.Cached), c.Executed, c.EffectiveInstructions, perFilterText(c.PerFilter))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write simulation: %w", err)
	}
	return nil
}

// StackText describes a stack: "1 filter: default", "32 filters: default
// repeated", "5 filters: a, b cycled (a installed first)".
func StackText(s filters.Stack) string {
	if len(s) == 0 {
		return "no filters"
	}
	var names []string
	seen := map[*filters.Program]bool{}
	for _, p := range s {
		if !seen[p] {
			seen[p] = true
			names = append(names, p.Name)
		}
	}
	switch {
	case len(s) == 1:
		return "1 filter: " + names[0]
	case len(names) == 1:
		return fmt.Sprintf("%s: %s repeated", text.Plural(len(s), "filter"), names[0])
	case len(names) == len(s):
		return fmt.Sprintf("%s, oldest first: %s", text.Plural(len(s), "filter"), strings.Join(names, ", "))
	}
	return fmt.Sprintf("%s: %s cycled, %s installed first", text.Plural(len(s), "filter"), strings.Join(names, ", "), names[0])
}

// perFilterText lists per-filter counts in stack order (oldest first),
// shortening "7,7,7,7" to "7 x4".
func perFilterText(n []int) string {
	if len(n) > 1 {
		same := true
		for _, v := range n {
			same = same && v == n[0]
		}
		if same {
			return fmt.Sprintf("%d x%d", n[0], len(n))
		}
	}
	return text.JoinInts(n, ",")
}

// joinUints joins syscall arguments with commas, in hex above 0xffff.
func joinUints(v []uint64) string {
	s := make([]string, len(v))
	for i, x := range v {
		if x > 0xffff {
			s[i] = fmt.Sprintf("%#x", x)
		} else {
			s[i] = strconv.FormatUint(x, 10)
		}
	}
	return strings.Join(s, ",")
}

// WriteSimulateAltHeader writes, before the i-th stack's text, a blank line
// between alternatives, the alternative's name, and (first) what resolved
// the OCI-based sources.
func WriteSimulateAltHeader(w io.Writer, i int, name string, res *document.OCIResolution) error {
	var b strings.Builder
	if i > 0 {
		b.WriteString("\n")
	}
	if i == 0 && res != nil {
		fmt.Fprintf(&b, "oci       conditions resolved with %s\n", res.Text)
	}
	if name != "" {
		fmt.Fprintf(&b, "== %s ==\n", name)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteSimulateDocs writes the SimulateOutput of docs (nothing for none):
// one stack's keys at the top, or several under "alternatives".
func WriteSimulateDocs(w io.Writer, docs []document.SimulateDoc) error {
	out := document.SimulateOutput{SchemaVersion: document.ContractVersion, Kind: document.KindSimulate}
	switch len(docs) {
	case 0:
		return nil
	case 1:
		d := docs[0]
		out.Alternative, out.Stack, out.Syscalls, out.OCI = d.Alternative, d.Stack, d.Syscalls, d.OCI
		if out.Syscalls == nil {
			out.Syscalls = []document.SimulateSyscall{}
		}
	default:
		out.Alternatives = docs
	}
	return document.WriteIndentedJSON(w, out)
}
