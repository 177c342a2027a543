package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/report/internal/text"
)

// currentBasisWords words b.CurrentBasis for people.
func currentBasisWords(b *document.Budget) string {
	switch b.CurrentBasis {
	case document.BasisVmalloc:
		return fmt.Sprintf("vmallocinfo upper bound: bpf_prog_pack areas: %d; the fit is a lower bound", b.PackAreas)
	case document.BasisUnknown:
		return "unknown, assumed 0 (/proc/vmallocinfo unreadable: run as root, or --measure); the fit is an upper bound"
	}
	return b.CurrentBasis
}

// WriteBudgetJSON writes b as indented JSON, kind "budget".
func WriteBudgetJSON(w io.Writer, b *document.Budget) error {
	b.SchemaVersion, b.Kind = document.BudgetVersion, document.KindBudget
	if b.Notes == nil {
		b.Notes = []string{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(b)
}

// WriteBudgetText writes b for people: the stack's charge and its basis,
// the limit and the current charge with theirs, the fit with the formula
// filled in, the plan and the validation when present.
func WriteBudgetText(w io.Writer, b *document.Budget) error {
	ew := &errWriter{w: w}
	ew.printf("stack: %s, %s, %s bytes of JIT memory (%s; %s allocator)\n",
		strings.Join(budgetSources(b), " "), text.Plural(b.StackFilters, "filter"), text.GroupDigits(b.StackBytes), b.StackBasis, b.Allocator)
	if b.StackBasis == "measured" && b.ModelStackBytes > 0 {
		ew.printf("  model: %s bytes\n", text.GroupDigits(b.ModelStackBytes))
	}
	ew.printf("bpf_jit_limit: %s bytes; current charge: %s bytes (%s)\n", text.GroupDigits(b.Limit), text.GroupDigits(b.Current), currentBasisWords(b))
	ew.printf("fit: %s processes can each load this stack without CAP_BPF or CAP_SYS_ADMIN; process %s fails with errno 524 (ENOTSUPP)\n",
		text.GroupDigits(b.Fit), text.GroupDigits(b.FirstFailure))
	ew.printf("basis: floor((%d - %d) / %d) = %d\n", b.Limit, b.Current, b.StackBytes, b.Fit)
	if b.PerNode > 0 {
		verdict := "fits"
		if !b.PlannedFits {
			verdict = "does NOT fit"
		}
		procs := ""
		if b.Processes > 1 {
			procs = fmt.Sprintf(" (%s processes in all: forked processes share their parent's filters and add no charge)", text.GroupDigits(b.TotalProcesses))
		}
		ew.printf("plan: %s loads%s charge %s bytes: %s, %s bytes left\n", text.GroupDigits(b.PerNode), procs, text.GroupDigits(b.PlannedCharge), verdict, text.GroupDigits(b.HeadroomAfter))
	}
	if v := b.Validation; v != nil {
		ew.printf("validation: bpf_jit_limit lowered to %d (charge %d before, %d after), stacks loaded without capabilities (CapEff %s) until errno 524:\n",
			v.TestLimit, v.Current, v.CurrentAfter, v.CapEff)
		ew.printf("  predicted %d (model stack %d bytes), %d (measured stack %d bytes); measured %d, the next failed at filter %d\n",
			v.Predicted, b.ModelStackBytes, v.PredictedMeasured, v.MeasuredStack, v.Loaded, v.FailedAtFilter)
		ew.printf("  %d probe children; the limit was lowered for %d ms in all and restored\n", v.Probes, v.LoweredMs)
	}
	if b.Harden != "" && b.Harden != "0" {
		ew.printf("note: bpf_jit_harden is %s: constant blinding makes images bigger than the model says\n", b.Harden)
	}
	for _, n := range b.Notes {
		ew.printf("note: %s\n", n)
	}
	return ew.err
}

// budgetSources names b's sources for people, the systemd unit first.
func budgetSources(b *document.Budget) []string {
	if b.SystemdUnit == "" {
		return b.Policies
	}
	unit := fmt.Sprintf("%s (systemd stack of %s)", b.SystemdUnit, text.Plural(b.SystemdFilters, "filter"))
	return append([]string{unit}, b.Policies...)
}
