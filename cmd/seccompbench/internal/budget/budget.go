// Package budget is the pipeline of `seccompbench budget`: it opens the
// stack (a systemd unit's, then the policies), models or measures its JIT
// charge, reads or measures the node's current charge, does the budget
// arithmetic of internal/jitmem, optionally runs the errno-524 validation,
// and renders document.Budget.
package budget

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/jitcost"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"github.com/seccompbench/seccompbench/filters/systemd"
	"github.com/seccompbench/seccompbench/internal/jitmem"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/runner/jit"
)

// Job is what `budget` computes, as parsed from the command line.
type Job struct {
	Policies []string
	// SystemdUnit is a unit file whose modelled filter stack goes first.
	SystemdUnit string
	// PerNode is the planned number of separate loads of the stack on the
	// node (containers, services); Processes the processes sharing each
	// load (forked: no extra charge).
	PerNode, Processes int64
	// Measure measures the current charge and the stack's charge (root).
	Measure bool
	// Validate runs the errno-524 experiment with ValidateCount stacks
	// predicted (root).
	Validate      bool
	ValidateCount int
	Compiler      scmp.Compiler
	// Open are the policy load options (--format-in, --arch, --caps and
	// the rest, cmdutil.LoadFlags.Options); Compiler overrides its
	// Compiler.
	Open formats.OpenOptions
	// Specs are where to write the budget, in which format (text or json).
	Specs []output.Spec
}

// ErrNoJIT is returned when bpf_jit_limit cannot be read.
var ErrNoJIT = errors.New("bpf_jit_limit is not readable")

// Formats are the output formats of `budget`.
var Formats = []string{"text", "json"}

// Run computes the budget of j and writes it to each of j.Specs (stdout
// in text without any).
func Run(ctx context.Context, ios *cmdutil.IOStreams, j *Job) error {
	if err := output.Check(j.Specs); err != nil {
		return err
	}
	stack, unitFilters, err := openStack(j)
	if err != nil {
		return err
	}
	ji := jit.ReadJITInfo()
	if ji.Limit <= 0 {
		return fmt.Errorf("budget: %w: /proc/sys/net/core/bpf_jit_limit (a kernel without CONFIG_BPF_JIT?)", ErrNoJIT)
	}
	model := jitcost.Model(stack, ji.Kernel)
	b := &document.Budget{Tool: document.Tool{Name: "seccompbench", Version: cmdutil.Version()},
		Kernel: ji.Kernel, Policies: j.Policies, StackFilters: len(stack), StackBytes: model.Stack, PerFilterBytes: model.PerFilter,
		StackBasis: "model", ModelStackBytes: model.Stack, Allocator: ji.Allocator.String(), Limit: ji.Limit, Harden: ji.Harden}
	switch {
	case j.Validate:
		if err := validate(ctx, j, stack, model, b); err != nil {
			return err
		}
	case j.Measure:
		mf, charge, err := jitcost.Measure(ctx, stack, model)
		if err != nil {
			return fmt.Errorf("budget --measure: %w", err)
		}
		b.StackBytes, b.PerFilterBytes, b.StackBasis = mf.Stack, mf.PerFilter, "measured"
		b.Current, b.CurrentBasis = charge, document.BasisMeasured
	case ji.VmallocErr == "":
		b.Current = ji.Vmalloc.JITUpperBound()
		b.CurrentBasis, b.PackAreas = document.BasisVmalloc, ji.Vmalloc.Packs
	default:
		b.CurrentBasis = document.BasisUnknown
	}
	if j.SystemdUnit != "" {
		b.SystemdUnit, b.SystemdFilters = j.SystemdUnit, unitFilters
	}
	bud := jitmem.Budget{Limit: b.Limit, Current: b.Current, StackBytes: b.StackBytes}
	if b.Fit, err = bud.Fit(); err != nil && !errors.Is(err, jitmem.ErrNoRoom) {
		return fmt.Errorf("budget: %w", err)
	}
	b.FirstFailure = b.Fit + 1
	if j.PerNode > 0 {
		p, err := bud.Plan(j.PerNode)
		if err != nil {
			return fmt.Errorf("budget: %w", err)
		}
		b.PerNode, b.Processes, b.TotalProcesses = j.PerNode, j.Processes, j.PerNode*max(j.Processes, 1)
		b.PlannedCharge, b.PlannedFits, b.HeadroomAfter = p.Charge, p.Fits, p.HeadroomAfter
	}
	return output.WriteEach(output.Or(j.Specs, "text"), ios.Out, ios.ErrOut, func(format string, w io.Writer) error {
		if format == "json" {
			return report.WriteBudgetJSON(w, b)
		}
		return report.WriteBudgetText(w, b)
	})
}

// validate runs jit.ValidateBudget on the stack and takes the stack's
// and the node's charge from its measurement.
func validate(ctx context.Context, j *Job, stack []*filters.Program, model jitcost.Figures, b *document.Budget) error {
	var raw [][]byte
	for _, p := range stack {
		raw = append(raw, p.Bytes())
	}
	v, err := jit.ValidateBudget(ctx, raw, model.Stack, j.ValidateCount)
	if err != nil {
		return fmt.Errorf("budget --validate: %w", err)
	}
	scale := float64(v.StackBytes) / float64(model.Stack)
	b.PerFilterBytes = nil
	for _, c := range model.PerFilter {
		b.PerFilterBytes = append(b.PerFilterBytes, int64(float64(c)*scale+0.5))
	}
	b.StackBytes, b.StackBasis = v.StackBytes, "measured"
	b.Current, b.CurrentBasis = v.Current, document.BasisMeasured
	b.Validation = &document.BudgetValidation{TestLimit: v.TestLimit, Current: v.Current, CurrentAfter: v.CurrentAfter,
		ProbeBytes: v.ProbeBytes, MeasuredStack: v.StackBytes, Predicted: v.Predicted, PredictedMeasured: v.PredictedMeasured,
		Loaded: v.Loaded, FailedAtFilter: v.FailedAt, CapEff: v.CapEff, Probes: v.Probes, LoweredMs: v.Lowered.Milliseconds()}
	b.Notes = append(b.Notes, v.Notes...)
	return nil
}

// openStack opens the unit's stack (first) and the policies, one filter
// each, and returns the stack and how many filters the unit installs.
func openStack(j *Job) ([]*filters.Program, int, error) {
	var stack []*filters.Program
	unitFilters := 0
	if j.SystemdUnit != "" {
		data, err := formats.ReadInput(j.SystemdUnit)
		if err != nil {
			return nil, 0, fmt.Errorf("read systemd unit: %w", err)
		}
		unit, err := systemd.ParseUnit(j.SystemdUnit, data, systemd.Options{Compiler: j.Compiler})
		if err != nil {
			return nil, 0, fmt.Errorf("model systemd stack: %w", err)
		}
		if len(unit.Programs) == 0 {
			return nil, 0, fmt.Errorf("model systemd stack: %s installs no seccomp filter", j.SystemdUnit)
		}
		stack = append(stack, unit.Programs...)
		unitFilters = len(unit.Programs)
	}
	if len(j.Policies) > 0 {
		o := j.Open
		o.Compiler = j.Compiler
		progs, _, err := cmdutil.OpenPolicies(j.Policies, o)
		if err != nil {
			return nil, 0, err
		}
		stack = append(stack, progs...)
	}
	return stack, unitFilters, nil
}
