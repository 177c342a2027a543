package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/report/internal/text"
)

// TopModelWords returns m for people, e.g. "each sampled syscall's measured
// seccomp time × model(after)/model(before), model = 30.9 ns + …".
func TopModelWords(m document.TopModel) string {
	if m.Method != document.TopModelScaled {
		return m.Method
	}
	return fmt.Sprintf("each sampled syscall's measured seccomp time × model(after)/model(before), model = %.3g ns + %.3g ns per filter + %.3g ns per instruction when uncached, %.3g ns (entry and cache check) when cached (docs/top.md)",
		m.EntryNs, m.PerFilterNs, m.PerInstructionNs, m.EntryNs)
}

// WriteTopJSON writes t as indented JSON.
func WriteTopJSON(w io.Writer, t *document.Top) error {
	return document.WriteIndented(w, t, "write top json")
}

// WriteTopTable writes t for people without --explain (WriteTopText).
func WriteTopTable(w io.Writer, t *document.Top, maxSyscalls int) {
	WriteTopText(w, t, maxSyscalls, TextOptions{})
}

// WriteTopText writes t for people: the headline, with opts.Explain a
// header with the method and its cost, then one block per process with
// the share, the top syscalls (at most maxSyscalls) and the prediction.
func WriteTopText(w io.Writer, t *document.Top, maxSyscalls int, opts TextOptions) {
	m := t.Method
	writeHeadlineText(&errWriter{w: w}, TopHeadline(t))
	if opts.Explain {
		topMethod(w, t)
	}
	if !topSampled(t) {
		fmt.Fprintln(w, "\nno samples of the selected processes in the window")
	}
	for _, p := range t.Processes {
		topProcess(w, p, m, maxSyscalls)
	}
	for _, warn := range t.Warnings {
		fmt.Fprint(w, text.Wrap("warning: "+warn, TextWidth))
	}
}

// topMethod writes how the window was sampled and what that cost.
func topMethod(w io.Writer, t *document.Top) {
	m := t.Method
	fmt.Fprintf(w, "\nseccompbench top — %s, window %s, cpu-clock %d Hz on %d CPUs, counter attached %.0f%% of the window\n",
		t.Start, fmtDurNs(float64(t.WindowNs)), m.SamplingHz, m.CPUs, m.CountDuty*100)
	if m.CounterOverhead != nil {
		fmt.Fprintf(w, "counter cost: %.2f%% of the sampled CPU time while attached, %.2f%% over the window", *m.CounterShare*100, *m.CounterOverhead*100)
		if m.LostSamples > 0 {
			fmt.Fprintf(w, "; %d samples lost", m.LostSamples)
		}
		fmt.Fprintln(w)
	}
	for _, p := range t.Processes {
		if p.Prediction != nil {
			fmt.Fprint(w, text.Wrap("prediction model: "+TopModelWords(p.Prediction.Model), TextWidth))
			break
		}
	}
}

// topProcess writes one process's block.
func topProcess(w io.Writer, p document.TopProcess, m document.TopMethod, maxSyscalls int) {
	{
		fmt.Fprintln(w)
		filters := "?"
		if p.Filters != nil {
			filters = fmt.Sprint(*p.Filters)
		}
		// the filter count goes with the stack line, keeping this one within TextWidth
		share := fmtShare(p.SeccompShare, p.SeccompShareCILow, p.SeccompShareCIHigh, m.Confidence)
		switch {
		case p.Exited:
			share += " (exited)"
		case p.Idle:
			share += " (idle)"
		}
		fmt.Fprintf(w, "%-7d %-16s cpu %9s  seccomp %9s  share %s\n",
			p.Pid, p.Comm, fmtDurNs(p.CPUNs), fmtDurNs(p.SeccompNs), share)
		if p.Child {
			of := "a --pid target (which one is unknown: a process between them has ended)"
			if p.ChildOf != nil {
				of = fmt.Sprintf("--pid %d", *p.ChildOf)
			}
			fmt.Fprintf(w, "        child of %s\n", of)
		}
		if p.SeccompSamples > 0 {
			// The same wording as estimate --command's split: what
			// samples see is the direct part only.
			fmt.Fprint(w, text.Wrap(fmt.Sprintf("        direct: %d of %d samples in seccomp (%d in filter images, %d of those by address alone); the indirect part (the process's own code slowed by what the filters evict) does not show in samples: estimate --command measures it\n",
				p.SeccompSamples, p.Samples, p.FilterSamples, p.InferredSamples), TextWidth))
		}
		var b strings.Builder
		if groups := groupHashes(p.FilterHashes); groups != "" {
			fmt.Fprintf(&b, "        filters %s, stack: %s\n", filters, groups)
		} else if p.FiltersError != "" {
			fmt.Fprintf(&b, "        filters %s, stack not dumped: %s\n", filters, p.FiltersError)
		} else {
			fmt.Fprintf(&b, "        filters %s\n", filters)
		}
		fmt.Fprint(w, text.Wrap(b.String(), TextWidth))
		if len(p.Syscalls) > 0 {
			fmt.Fprintf(w, "        %-16s %10s %10s %8s  %s\n", "syscall", "calls", "seccomp", "samples", fmt.Sprintf("seccomp/call [%.0f%% CI]", m.Confidence*100))
			unresolved := 0
			for i, s := range p.Syscalls {
				if i == maxSyscalls {
					fmt.Fprintf(w, "        (%d more)\n", len(p.Syscalls)-i)
					break
				}
				calls := "-"
				if s.Calls != nil {
					calls = fmt.Sprintf("%.0f", *s.Calls)
				}
				if s.Unresolved != "" {
					unresolved++
				}
				fmt.Fprintf(w, "        %-16s %10s %10s %8d  %s\n", s.Name, calls, fmtDurNs(s.SeccompNs), s.Samples, topPerCall(s, m))
			}
			if unresolved > 0 {
				fmt.Fprint(w, text.Wrap(fmt.Sprintf("        unresolved: a per-call cost needs %d seccomp samples and %d counted calls; figures from fewer are mostly noise and, since only syscalls with a sample are listed, high on average: sample longer or at a higher --frequency\n",
					m.MinSyscallSamples, m.MinCountedCalls), TextWidth))
			}
		}
		if pr := p.Prediction; pr != nil {
			for _, r := range pr.Rows {
				fmt.Fprintf(w, "        prediction (model): %s would save %s (%.1f%% of its CPU) with %d instructions\n", r.Name, fmtDurNs(r.SavedNs), r.SavedShare*100, r.Instructions)
			}
		}
		for _, warn := range p.Warnings {
			fmt.Fprintf(w, "        warning: %s\n", warn)
		}
	}
}

// topPerCall writes a syscall row's per-call cost with its interval,
// or why it is not resolved (with the interval, when there is one).
func topPerCall(s document.TopSyscall, m document.TopMethod) string {
	ci := ""
	if s.SeccompNsPerCallCIHigh != nil {
		lo := "0"
		if s.SeccompNsPerCallCILow != nil {
			lo = fmtPerCall(*s.SeccompNsPerCallCILow)
		}
		ci = fmt.Sprintf(" [%s, %s]", lo, fmtPerCall(*s.SeccompNsPerCallCIHigh))
	}
	switch s.Unresolved {
	case "":
		if s.SeccompNsPerCall != nil {
			return fmtPerCall(*s.SeccompNsPerCall) + ci
		}
		return "-"
	case document.TopFewSamples:
		return fmt.Sprintf("unresolved (%d samples)%s", s.Samples, ci)
	case document.TopFewCalls:
		return fmt.Sprintf("unresolved (%d calls counted)%s", s.CountedCalls, ci)
	case document.TopNotCounted:
		return "unresolved (not counted)"
	}
	return "unresolved"
}

// fmtPerCall writes a per-call cost: to 0.1 ns below 1 µs, else as
// fmtDurNs.
func fmtPerCall(ns float64) string {
	if ns < 1e3 {
		return fmt.Sprintf("%.1f ns", ns)
	}
	return fmtDurNs(ns)
}

// topSampled reports whether any process of t has samples.
func topSampled(t *document.Top) bool {
	for _, p := range t.Processes {
		if p.Samples > 0 {
			return true
		}
	}
	return false
}

// fmtShare writes a share and its interval in percent, "-" without one.
func fmtShare(c, lo, hi *float64, conf float64) string {
	if c == nil {
		return "-"
	}
	s := fmt.Sprintf("%.2f%%", *c*100)
	if lo != nil && hi != nil {
		s += fmt.Sprintf(" [%.2f, %.2f] (%.0f%% CI)", *lo*100, *hi*100, conf*100)
	}
	return s
}

// fmtDurNs writes ns in a readable unit.
func fmtDurNs(ns float64) string {
	switch {
	case ns >= 1e9:
		return fmt.Sprintf("%.2f s", ns/1e9)
	case ns >= 1e6:
		return fmt.Sprintf("%.1f ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.1f µs", ns/1e3)
	}
	return fmt.Sprintf("%.0f ns", ns)
}

// groupHashes summarizes a stack as "N × sha256[:12] (I insns), ...", runs
// of identical filters grouped in install order.
func groupHashes(fs []document.TopFilter) string {
	var parts []string
	for i := 0; i < len(fs); {
		j := i
		for j < len(fs) && fs[j].SHA256 == fs[i].SHA256 {
			j++
		}
		h := fs[i].SHA256
		if len(h) > 12 {
			h = h[:12]
		}
		parts = append(parts, fmt.Sprintf("%d × %s (%d insns)", j-i, h, fs[i].Instructions))
		i = j
	}
	return strings.Join(parts, ", ")
}
