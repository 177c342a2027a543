package top

import (
	"fmt"
	"math"
	"strings"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/analysis"
	filteropt "github.com/seccompbench/seccompbench/filters/optimize"
	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/stats"
)

// ReferenceModel is the shape of the per-syscall cost the predictions
// scale: entry + per_filter·n + per_insn·E for an uncached syscall that
// runs n filters executing E instructions in all, entry alone for a
// cached one (the action cache skips the filters, not seccomp's entry
// and the cache check: kernel/seccomp.c, seccomp_cache_check_allow runs
// inside __seccomp_filter; `top` measured 38–91 ns of seccomp per call
// for fully cached syscalls of redis-server, docs/top.md). It
// is the quick calibration of docs/estimate.md (AMD EPYC, Linux 6.18:
// entry 30.9 ns, per_filter 20.4 ns, per_insn 0.115 ns). Only its ratios
// matter here: each syscall's prediction is its measured seccomp time
// times model(after) / model(before), so a host twice as slow scales both.
var ReferenceModel = stats.CostModel{
	Entry:     stats.Estimate{Center: 30.9},
	PerFilter: stats.Estimate{Center: 20.4},
	PerInsn:   stats.Estimate{Center: 0.115},
}

// filters fills the process's filter count and hashes, and the
// prediction, from /proc/PID/status and a dump of its stack (dumped again
// only when the count changes).
func (w *Watcher) filters(p *document.TopProcess) {
	st, err := w.opts.Status(p.Pid)
	if err != nil {
		p.FiltersError = err.Error()
		return
	}
	if st.SeccompFilters >= 0 {
		n := st.SeccompFilters
		p.Filters = &n
	}
	if st.SeccompMode != result.SeccompModeFilter {
		return
	}
	d, ok := w.stacks[p.Pid]
	if !ok || len(d.stack) != st.SeccompFilters {
		raw, err := w.opts.Dump(p.Pid)
		d = dumped{err: err}
		if err == nil {
			for i, b := range raw {
				prog, perr := filters.ParseRaw(fmt.Sprintf("pid %d filter %d", p.Pid, i), b)
				if perr != nil {
					d = dumped{err: perr}
					break
				}
				d.stack = append(d.stack, prog)
			}
		}
		w.stacks[p.Pid] = d
	}
	if d.err != nil {
		p.FiltersError = d.err.Error()
		return
	}
	for i, prog := range d.stack {
		p.FilterHashes = append(p.FilterHashes, document.TopFilter{Index: i, Instructions: prog.Len(), SHA256: prog.SHA256()})
	}
	if w.opts.Predict && len(d.stack) > 0 && p.SeccompSamples > 0 {
		pr, err := predict(d.stack, p, w.mergedFor(d.stack))
		if err != nil {
			p.Warnings = append(p.Warnings, fmt.Sprintf("no prediction: %v", err))
			return
		}
		p.Prediction = pr
	}
}

// predict predicts the seccomp time of the process's measured syscall mix
// under a merged stack (filters/optimize.Merge: one filter equivalent to
// the stack) and a merged stack laid out for the mix (Merge weighted by
// the calls, or by seccomp samples where no call was counted). Each
// sampled syscall's measured seccomp time is scaled by ReferenceModel's
// after/before ratio, from the emulator's path through each stack
// (arguments 0; analysis.AnalyzeSyscall). Syscalls whose arguments steer
// the path are predicted for arguments 0 only.
//
// merged is Merge of the stack without weights (it does not depend on the
// mix: Watcher.mergedFor keeps one per stack across windows), or nil to
// compute it here.
func predict(stack filters.Stack, p *document.TopProcess, merged *filteropt.Result) (*document.TopPrediction, error) {
	arch := filters.ArchX86_64
	w := filteropt.Weights{Calls: map[[2]uint32]float64{}}
	for _, s := range p.Syscalls {
		if s.Nr < 0 || s.Nr&0x40000000 != 0 {
			continue
		}
		v := float64(s.Samples)
		if s.Calls != nil {
			v = *s.Calls
		}
		w.Calls[[2]uint32{arch.AuditArch, uint32(s.Nr)}] += v
	}
	if merged == nil {
		var err error
		if merged, err = filteropt.Merge(stack, filteropt.Weights{}); err != nil {
			return nil, fmt.Errorf("merge the stack: %w", err)
		}
	}
	tuned, err := filteropt.Merge(stack, w)
	if err != nil {
		return nil, fmt.Errorf("merge the stack for the measured mix: %w", err)
	}
	pr := &document.TopPrediction{Model: document.TopModel{Method: document.TopModelScaled,
		EntryNs: ReferenceModel.Entry.Center, PerFilterNs: ReferenceModel.PerFilter.Center, PerInstructionNs: ReferenceModel.PerInsn.Center}}
	for _, alt := range []struct {
		name string
		prog *filters.Program
	}{{"merge", merged.Program}, {"merge+optimize", tuned.Program}} {
		after := filters.Stack{alt.prog}
		var measured, predicted float64
		for _, s := range p.Syscalls {
			if s.Nr < 0 || s.Nr&0x40000000 != 0 {
				continue
			}
			b, err := analysis.AnalyzeSyscall(stack, arch, s.Nr)
			if err != nil {
				return nil, err
			}
			a, err := analysis.AnalyzeSyscall(after, arch, s.Nr)
			if err != nil {
				return nil, err
			}
			mb, ma := modelNs(b, len(stack)), modelNs(a, 1)
			measured += s.SeccompNs
			if mb > 0 {
				predicted += s.SeccompNs * ma / mb
			} else {
				predicted += s.SeccompNs
			}
		}
		row := document.TopPredictionRow{Name: alt.name, Instructions: alt.prog.Len(), SeccompNs: predicted, SavedNs: measured - predicted}
		if p.CPUNs > 0 {
			row.SavedShare = row.SavedNs / p.CPUNs
		}
		if math.IsNaN(row.SavedShare) {
			row.SavedShare = 0
		}
		pr.Rows = append(pr.Rows, row)
	}
	return pr, nil
}

// mergedFor returns the unweighted Merge of stack, computed once per
// stack (keyed by its filters' SHA-256) for the Watcher's life; nil when
// it fails (predict then merges again and reports the error).
func (w *Watcher) mergedFor(stack filters.Stack) *filteropt.Result {
	var key strings.Builder
	for _, p := range stack {
		key.WriteString(p.SHA256())
	}
	if m, ok := w.merged[key.String()]; ok {
		return m
	}
	m, err := filteropt.Merge(stack, filteropt.Weights{})
	if err != nil {
		return nil
	}
	if w.merged == nil {
		w.merged = map[string]*filteropt.Result{}
	}
	w.merged[key.String()] = m
	return m
}

// modelNs is ReferenceModel's cost of one call of c through a stack of n
// filters, in ns.
func modelNs(c analysis.SyscallCost, n int) float64 {
	m := ReferenceModel
	if c.Cached {
		return m.Entry.Center
	}
	return m.Entry.Center + m.PerFilter.Center*float64(n) + m.PerInsn.Center*float64(c.Executed)
}
