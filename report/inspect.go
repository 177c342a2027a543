package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/report/internal/text"
	"github.com/seccompbench/seccompbench/runner/result"
)

// JITLine describes e for people, e.g. "16,320 bytes of JIT
// memory (model, pack allocator; 16,320 per filter); bpf_jit_limit
// 528,482,304 bytes".
func JITLine(e *document.JITEstimate) string {
	s := fmt.Sprintf("%s bytes of JIT memory (%s, %s allocator; %s per filter)", text.GroupDigits(e.StackBytes), e.Source, e.Allocator, text.GroupDigits(int64(e.PerFilterBytes+0.5)))
	if e.Limit > 0 {
		s += fmt.Sprintf("; bpf_jit_limit %s bytes", text.GroupDigits(e.Limit))
	}
	return s
}

// WriteInspectJSON writes the processes as an indented InspectDoc;
// skipped counts the processes --all left out.
func WriteInspectJSON(w io.Writer, ps []*document.InspectProcess, skipped int) error {
	if ps == nil {
		ps = []*document.InspectProcess{}
	}
	return document.WriteIndentedJSON(w, document.InspectDoc{SchemaVersion: document.ContractVersion, Kind: document.KindInspect, Processes: ps, Skipped: skipped})
}

// WriteInspectText writes one process for people: its seccomp state, the
// groups of identical filters, the action cache per ABI and the chosen
// syscalls' cost; with disasm, every group's disassembly.
func WriteInspectText(w io.Writer, j *document.InspectProcess, disasm bool) {
	cmdline := strings.Join(j.Cmdline, " ")
	if cmdline == "" && j.Name != "" {
		cmdline = "[" + j.Name + "]"
	}
	fmt.Fprintf(w, "%s\n", strings.TrimSpace(fmt.Sprintf("pid %d  %s", j.Pid, cmdline)))
	if j.SeccompMode < 0 && j.Error != "" {
		fmt.Fprintf(w, "  error     %s\n", j.Error)
		return
	}
	fmt.Fprintf(w, "  seccomp   %s mode (%d), no_new_privs %d, %s (Seccomp_filters)\n", seccompModeName(j.SeccompMode), j.SeccompMode, j.NoNewPrivs, text.Plural(j.SeccompFilters, "filter"))
	if j.Error != "" {
		fmt.Fprintf(w, "  error     %s\n", j.Error)
		return
	}
	if len(j.Filters) == 0 {
		return
	}
	fmt.Fprintf(w, "  stack     %d filters, %d distinct, path length %d of %d instructions (index 0 = oldest, installed first)\n",
		len(j.Filters), len(j.Groups), j.Analysis.PathLength, filters.MaxInsnsPerPath)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  GROUP\tCOUNT\tINSNS\tSHA256\tINDEXES")
	for g, gr := range j.Groups {
		fmt.Fprintf(tw, "  %d\t%d\t%d\t%s\t%s\n", g, gr.Count, gr.Instructions, gr.SHA256[:16], text.IndexRanges(gr.Indexes))
	}
	tw.Flush()
	a := j.Analysis
	var parts []string
	for _, c := range a.Cache {
		parts = append(parts, fmt.Sprintf("%s %d/%d", c.Arch, c.Cached, c.Total))
	}
	fmt.Fprintf(w, "  cached    %s syscalls served by the action cache (no filter runs)\n", strings.Join(parts, ", "))
	if j.JIT != nil {
		fmt.Fprintf(w, "  jit       %s\n", JITLine(j.JIT))
	}
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  SYSCALL\tVERDICT\tCACHED\tINSNS")
	for _, s := range a.Syscalls {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\n", s.Name, s.Action, text.YesNo(s.Cached), s.Instructions)
	}
	tw.Flush()
	if a.MaxUncached != nil {
		fmt.Fprintf(w, "  longest   uncached allowed x86_64 syscall: %s, %d instructions over the stack\n", a.MaxUncached.Name, a.MaxUncached.Instructions)
	}
	fmt.Fprintln(w, "  (INSNS: instructions the filters execute when they run, all arguments 0; a cached syscall runs none)")
	if disasm {
		for g, gr := range j.Groups {
			fmt.Fprintf(w, "\n  group %d (filters %s), sha256 %s:\n", g, text.IndexRanges(gr.Indexes), gr.SHA256)
			for _, line := range strings.Split(strings.TrimRight(gr.Disasm, "\n"), "\n") {
				fmt.Fprintf(w, "    %s\n", line)
			}
		}
	}
}

// seccompModeName names a Seccomp: value of /proc/PID/status.
func seccompModeName(m int) string {
	switch m {
	case result.SeccompModeDisabled:
		return "disabled"
	case result.SeccompModeStrict:
		return "strict"
	case result.SeccompModeFilter:
		return "filter"
	}
	return "unknown"
}
