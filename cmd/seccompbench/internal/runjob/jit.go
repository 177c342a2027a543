package runjob

import (
	"context"
	"fmt"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/jitcost"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/runner"
	"github.com/seccompbench/seccompbench/runner/result"
)

// jitSetup adds the JIT memory of the deepest stack (maxN filters of
// variant v) to setup: modelled, or measured with --jit-measure, which also
// records the measured charge in env. A failed measurement falls back to
// the model and says so in the returned warning.
func (j *Job) jitSetup(ctx context.Context, progs []*filters.Program, v result.Variant, maxN int, setup *document.Setup, env *result.Environment) (*document.Setup, string) {
	if maxN == 0 {
		return setup, ""
	}
	deepest, err := runner.StackFor(progs, result.Cell{Variant: v, Filters: maxN})
	if err != nil {
		return setup, ""
	}
	f := jitcost.Model(deepest, env.Kernel)
	var warn string
	if j.JITMeasure {
		mf, charge, err := jitcost.Measure(ctx, deepest, f)
		if err != nil {
			warn = fmt.Sprintf("--jit-measure: %v; the JIT figures are the model's", err)
		} else {
			f, env.BPFJitCharge = mf, charge
		}
	}
	return jitcost.SetSetup(setup, f, maxN), warn
}
