package kstack

import (
	"sort"
	"strings"
)

// Interval is a span of CLOCK_MONOTONIC time [Start, End), in ns.
type Interval struct{ Start, End uint64 }

// Tally is what a window's samples say about one thread group.
type Tally struct {
	Tgid uint32
	// Comm is the comm of the thread-group's last sample that had one.
	Comm string
	// Samples counts every sample of the thread group; Seccomp those in
	// seccomp, Filter those in a filter image (a subset of Seccomp),
	// Inferred those recognized by an unnamed image alone (a subset of
	// Filter), User those in user mode, NoStack kernel samples without a
	// callchain.
	Samples, Seccomp, Filter, Inferred, User, NoStack int
	// SeccompByNr counts seccomp samples per syscall number (Sample.Nr).
	SeccompByNr map[int64]int
	// Batches are per-batch counts for the share interval: Hits are
	// seccomp samples.
	Batches []BatchCount
	// CountedSamples counts the samples taken while the syscall counter
	// was attached, and CounterSamples those of them inside the counter
	// itself (its BPF program or the sys_exit tracepoint glue).
	CountedSamples, CounterSamples int
}

// BatchCount is one batch of a Tally.
type BatchCount struct{ Hits, Total int }

// CounterProgram is the name suffix of the call-counting BPF program's
// kallsyms entry ("bpf_prog_<tag>_<name>"); runner/live names its program
// so.
const CounterProgram = "_sb_count"

// TallyOptions say how to cut a window into batches and which times the
// counter was attached.
type TallyOptions struct {
	// Start and End bound the window (CLOCK_MONOTONIC ns); samples outside
	// are ignored.
	Start, End uint64
	// BatchNs is the batch length, in ns.
	BatchNs uint64
	// CounterOn are the intervals the syscall counter was attached.
	CounterOn []Interval
}

// TallySamples classifies the samples and counts them per thread group,
// sorted by thread-group ID.
func TallySamples(c *Classifier, samples []Sample, o TallyOptions) []*Tally {
	nb := 1
	if o.BatchNs > 0 && o.End > o.Start {
		nb = int((o.End - o.Start + o.BatchNs - 1) / o.BatchNs)
	}
	byTgid := map[uint32]*Tally{}
	for i := range samples {
		s := &samples[i]
		if s.Time < o.Start || s.Time >= o.End {
			continue
		}
		t := byTgid[s.Tgid]
		if t == nil {
			t = &Tally{Tgid: s.Tgid, SeccompByNr: map[int64]int{}, Batches: make([]BatchCount, nb)}
			byTgid[s.Tgid] = t
		}
		b := 0
		if o.BatchNs > 0 {
			b = min(int((s.Time-o.Start)/o.BatchNs), nb-1)
		}
		t.Samples++
		t.Batches[b].Total++
		if s.Comm != "" {
			t.Comm = s.Comm
		}
		v := c.Classify(s)
		switch v.Class {
		case ClassUser:
			t.User++
		case ClassNoStack:
			t.NoStack++
		case ClassSeccomp:
			t.Seccomp++
			t.Batches[b].Hits++
			t.SeccompByNr[s.Nr]++
			if v.Part == PartFilter {
				t.Filter++
			}
			if v.Inferred {
				t.Inferred++
			}
		}
		if inAny(s.Time, o.CounterOn) {
			t.CountedSamples++
			if c.inCounter(s) {
				t.CounterSamples++
			}
		}
	}
	out := make([]*Tally, 0, len(byTgid))
	for _, t := range byTgid {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Tgid < out[j].Tgid })
	return out
}

func inAny(t uint64, ivs []Interval) bool {
	for _, iv := range ivs {
		if t >= iv.Start && t < iv.End {
			return true
		}
	}
	return false
}

// inCounter reports whether a kernel sample is inside the call counter:
// its BPF program (named in kallsyms when net.core.bpf_jit_kallsyms is on)
// or the sys_exit raw tracepoint's glue (__bpf_trace_sys_exit,
// kernel/trace/bpf_trace.c).
func (c *Classifier) inCounter(s *Sample) bool {
	if s.User {
		return false
	}
	for i, a := range s.Stack {
		sym, ok := c.frame(i, a)
		if !ok {
			continue
		}
		if strings.HasSuffix(sym.Name, CounterProgram) || baseName(sym.Name) == "__bpf_trace_sys_exit" {
			return true
		}
	}
	return false
}
