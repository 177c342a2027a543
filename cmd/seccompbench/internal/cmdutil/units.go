package cmdutil

import (
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/analysis"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/filters/systemd"
)

// LoneUnit returns the systemd unit's modeled stack when it is the only
// source l holds (a unit given as POLICY), else nil.
func LoneUnit(l *Loaded) *filters.Source {
	if l == nil || len(l.Sources) != 1 {
		return nil
	}
	if src := l.Sources[0]; src.Stacked && src.Format == string(formats.SystemdUnit) && len(src.Parts) > 0 {
		return src
	}
	return nil
}

// UnitFindings are lint's per-directive findings for the lone systemd
// unit l holds (analysis.PartFindings, with each directive's effects
// outside seccomp from systemd.OtherEffects); nil for anything else. The
// model is x86_64's, so the syscall lists are too.
func UnitFindings(l *Loaded) []analysis.Finding {
	src := LoneUnit(l)
	if src == nil {
		return nil
	}
	r, err := analysis.PartCosts(src, filters.ArchX86_64)
	if err != nil {
		// An invalid filter, which Lint reports on its own.
		return nil
	}
	return analysis.PartFindings(r, systemd.OtherEffects)
}
