package runjob

import (
	"fmt"
	"strings"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/runner/command"
	"github.com/seccompbench/seccompbench/runner/result"
	"github.com/seccompbench/seccompbench/stats"
)

// resultWarnings are what the measured children and their analysis say
// about the run: a noisy machine, an unpinned thread, an unverified filter
// count, a --target-ci not reached.
func resultWarnings(j *Job, samples []result.Sample, res stats.Result, info result.RunInfo) []string {
	var warnings []string
	if out, n := res.OutlierCount(); n > 0 && float64(out) > 0.05*float64(n) {
		advice := "means and t CIs suffer first: quiet the machine, add --trials, or use --robust (medians, bootstrap CIs)"
		if j.Robust {
			advice = "quiet the machine or add --trials"
		}
		w := fmt.Sprintf("the machine looks noisy: %d of %d children are outliers by the median/MAD rule (kept in every estimate); %s", out, n, advice)
		if !j.PadSet {
			w += "; the placement SD counts such noise in deep stacks as placement, so it is too large too"
		}
		warnings = append(warnings, w)
	}
	for _, s := range samples {
		if s.PinErr != "" {
			warnings = append(warnings, "the measuring thread ran unpinned: "+s.PinErr+"; results are noisier (choose an allowed CPU with --cpu)")
			break
		}
	}
	if f := info.ForeignLoad; f != nil && f.Large() {
		// The command's runs are not pinned (the duet's are): --cpu
		// cannot move them off a busy CPU.
		cs := j.Workload.Command
		warnings = append(warnings, ForeignLoadWarning(*f, cs == nil || cs.Design == command.DesignDuet))
	}
	if len(samples) > 0 && samples[0].FiltersSeen < 0 && j.Workload.Container == nil {
		warnings = append(warnings, "this kernel does not report Seccomp_filters in /proc (before Linux 5.9): the installed filter count could not be verified")
	}
	if j.TargetCI > 0 && (info.StopReason == result.StopMaxTime || info.StopReason == result.StopMaxTrials) {
		for _, f := range res.Fits {
			if j.target().MetBy(f) {
				continue
			}
			raise := "--max-time"
			if info.StopReason == result.StopMaxTrials {
				raise = "--max-trials"
			}
			warnings = append(warnings, fmt.Sprintf("variant %q: --target-ci %s not reached (per-filter CI half-width %.2f ns after %d blocks, stopped by %s): the machine is too noisy for this precision in this budget; raise %s or quiet the machine",
				f.Variant, j.targetString(), f.PerFilterHalfWidth(), info.Blocks, info.StopReason, raise))
		}
	}
	return warnings
}

func (j *Job) targetString() string {
	if j.TargetCIRel {
		return fmt.Sprintf("%g%%", j.TargetCI*100)
	}
	return fmt.Sprintf("%g ns", j.TargetCI)
}

func (j *Job) targetNs() float64 {
	if j.TargetCIRel {
		return 0
	}
	return j.TargetCI
}

func (j *Job) targetRel() float64 {
	if j.TargetCIRel {
		return j.TargetCI
	}
	return 0
}

// setupOf is stats.SetupCost for the report; nil without enough installs.
func setupOf(obs []stats.Observation, conf float64) *document.Setup {
	s, ok := stats.SetupCost(obs, conf)
	if !ok {
		return nil
	}
	return &document.Setup{PerFilterNs: s.PerFilterNs, PerFilterCILowNs: s.PerFilterCILowNs, PerFilterCIHiNs: s.PerFilterCIHiNs,
		StackNs: s.StackNs, StackFilter: s.StackFilter}
}

// controlOf is stats.ControlSlowdown for the report.
func controlOf(obs []stats.Observation, variants []string, conf float64) []document.Control {
	var out []document.Control
	for _, c := range stats.ControlSlowdown(obs, variants, conf) {
		out = append(out, document.Control{Variant: c.Variant, BeforeNs: c.BeforeNs, AfterNs: c.AfterNs,
			SlowdownPct: c.SlowdownPct, SlowdownPctLow: c.SlowdownPctLow, SlowdownPctHigh: c.SlowdownPctHigh})
	}
	return out
}

// driftOf is stats.DriftByVariant for the report.
func driftOf(obs []stats.Observation, variants []string, conf float64) []document.Drift {
	var out []document.Drift
	for _, tr := range stats.DriftByVariant(obs, variants, conf) {
		out = append(out, document.Drift{Variant: tr.Variant, SlopeNsPerChild: tr.Slope, SlopeCILow: tr.SlopeLo, SlopeCIHigh: tr.SlopeHi,
			OverRunNs: tr.OverRun(), P: tr.P})
	}
	return out
}

// linearityIfHomogeneous runs the depth check (stats.DepthLinearity) only
// when every filter of the stack is the same program: in a stack of
// different filters (a systemd unit's, or several policies cycled) a slope
// between two counts also depends on which filters those counts add.
func linearityIfHomogeneous(progs []*filters.Program, res stats.Result, variants []string, conf float64) []document.Linearity {
	for _, p := range progs[1:] {
		if p.SHA256() != progs[0].SHA256() {
			return nil
		}
	}
	var out []document.Linearity
	for _, l := range stats.DepthLinearity(res, variants, conf) {
		out = append(out, document.Linearity(l))
	}
	return out
}

// ForeignLoadWarning says how much of the measuring CPUs' time other
// processes took while the children ran, and what to do about it:
// pinned says the runs were pinned to their CPUs, so choosing an idle
// one with --cpu helps; unpinned runs (the command workload's) had every
// allowed CPU watched.
func ForeignLoadWarning(f result.ForeignLoad, pinned bool) string {
	cpus := make([]string, len(f.CPUs))
	for i, c := range f.CPUs {
		cpus[i] = fmt.Sprint(c)
	}
	which := "CPU " + strings.Join(cpus, ", ")
	if len(cpus) > 1 {
		which = "CPUs " + strings.Join(cpus, ", ")
	}
	advice := "stop them (top -1 shows the load per CPU) or choose an idle CPU with --cpu"
	if !pinned {
		advice = "stop them (top -1 shows the load per CPU) (the command's runs are not pinned: every CPU was watched)"
	}
	return fmt.Sprintf("other processes took at least %.0f %% of measuring %s while the children ran (busy %.2f s, the children's own %.2f s, of %.2f s)%s: they slowed the timed loops and widen or shift every interval; %s",
		100*f.Share, which, float64(f.BusyNs)/1e9, float64(f.OwnNs)/1e9, float64(f.WindowNs)/1e9, f.OtherRunsText(), advice)
}
