package runjob

import (
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/analysis"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/report/document"
)

// directives is the per-directive answer for the job's unit (the unit's
// own stack, without policies stacked on it), nil when the policy is no
// unit. The model is x86_64's, so the syscall lists are too.
func (j *Job) directives() *document.UnitDirectives {
	if j.unit == nil {
		return nil
	}
	r, err := analysis.PartCosts(j.unit, filters.ArchX86_64)
	if err != nil {
		// An invalid filter: run has refused the stack before this.
		return nil
	}
	return report.UnitDirectivesOf(r)
}
