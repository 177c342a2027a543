// Package jitcost gives commands the JIT memory of a filter stack: the
// allocator model of internal/jitmem on this kernel, or a measurement by
// jit.MeasureJITCharge (root), in the shapes run, compile, inspect and
// budget report.
package jitcost

import (
	"context"
	"runtime"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/internal/jitmem"
	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/runner/jit"
)

// Figures is the JIT memory of a stack: per filter (oldest first), the
// total and the mean per filter, in bytes, with the source ("model" or
// "measured") and the modelled allocator.
type Figures struct {
	PerFilter []int64
	Stack     int64
	Mean      float64
	Source    string
	Allocator jitmem.Allocator
}

// Model models the JIT charge of each filter of stack from its eBPF
// length on this kernel's allocator (internal/jitmem).
func Model(stack []*filters.Program, kernel string) Figures {
	alloc, _ := jitmem.AllocatorFor(kernel, runtime.GOARCH)
	var lens []int
	for _, p := range stack {
		lens = append(lens, p.EBPFLen())
	}
	per, total, mean := jitmem.DefaultImageModel.StackModel(lens, alloc)
	f := Figures{Stack: total, Mean: mean, Source: "model", Allocator: alloc}
	for _, c := range per {
		f.PerFilter = append(f.PerFilter, int64(c))
	}
	return f
}

// Measure measures the JIT charge of stack by probe loads under a
// lowered bpf_jit_limit (root only; jit.MeasureJITCharge), holding at
// most what one probe fill can (jit.MaxMeasuredStack) and scaling to
// the whole stack by the model's proportions. It returns the figures and
// the measured current charge.
func Measure(ctx context.Context, stack []*filters.Program, model Figures) (Figures, int64, error) {
	n := len(stack)
	var modelPrefix int64
	for i, c := range model.PerFilter {
		if modelPrefix+c > jit.MaxMeasuredStack && i > 0 {
			n = i
			break
		}
		modelPrefix += c
	}
	var raw [][]byte
	for _, p := range stack[:n] {
		raw = append(raw, p.Bytes())
	}
	m, err := jit.MeasureJITCharge(ctx, raw, modelPrefix)
	if err != nil {
		return model, -1, err
	}
	f := Figures{Source: "measured", Allocator: model.Allocator}
	scale := float64(m.StackBytes) / float64(modelPrefix)
	for _, c := range model.PerFilter {
		f.PerFilter = append(f.PerFilter, int64(float64(c)*scale+0.5))
	}
	f.Stack = int64(float64(model.Stack)*scale + 0.5)
	if len(stack) > 0 {
		f.Mean = float64(f.Stack) / float64(len(stack))
	}
	return f, m.Current, nil
}

// SetSetup adds the JIT figures of the n-filter deepest stack to a run's
// setup section (creating it when the run had no install timings).
func SetSetup(st *document.Setup, f Figures, n int) *document.Setup {
	if st == nil {
		st = &document.Setup{StackFilter: n}
	}
	st.JITBytesPerFilter, st.JITBytesStack, st.JITSource, st.JITAllocator = f.Mean, f.Stack, f.Source, f.Allocator.String()
	return st
}

// Estimate returns f as the report's JIT estimate with the host's
// bpf_jit_limit (0 when unreadable).
func Estimate(f Figures, limit int64) *document.JITEstimate {
	return &document.JITEstimate{StackBytes: f.Stack, PerFilterBytes: f.Mean, Source: f.Source,
		Allocator: f.Allocator.String(), Limit: max(limit, 0)}
}
