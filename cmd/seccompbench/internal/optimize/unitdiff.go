package optimize

import (
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/filters/systemd"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/report/document"
)

// UnitSettingDiffs is equiv's note for two systemd units: the exec
// settings outside seccomp in which they differ (systemd.SettingsDiff),
// each unit read with its drop-ins as systemd merges them. Nil unless
// both specs are unit files that parse.
func UnitSettingDiffs(a, b string, oa, ob formats.OpenOptions) []document.SettingDiff {
	ua, ok := unitOf(a, oa)
	if !ok {
		return nil
	}
	ub, ok := unitOf(b, ob)
	if !ok {
		return nil
	}
	return report.SettingDiffsOf(systemd.SettingsDiff(ua, ub))
}

// unitOf models spec as a unit when it is a unit file ("-" and other
// formats: false).
func unitOf(spec string, o formats.OpenOptions) (*systemd.Stack, bool) {
	if spec == "-" {
		return nil, false
	}
	name, data, dropIns, err := formats.ReadUnit(spec, "")
	if err != nil || !systemd.Detect(data) {
		return nil, false
	}
	st, err := systemd.ParseUnit(name, data, systemd.Options{Compiler: o.Compiler, DropIns: dropIns, SystemdVersion: o.Systemd.SystemdVersion})
	if err != nil {
		return nil, false
	}
	return st, true
}
