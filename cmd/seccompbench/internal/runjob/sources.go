package runjob

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"time"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/inspect"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/filters/systemd"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/runner/result"
)

// openSources opens what the job measures: its policies, or the stack of
// process j.Pid, with a systemd unit's stack first (whose loader, unless
// --loader was given, becomes the job's). Without --filters, a process's or unit's stack picks the
// counts. Loader warnings go to ios.ErrOut.
func openSources(ios *cmdutil.IOStreams, j *Job) ([]*filters.Program, []document.Policy, error) {
	o := j.Open
	o.Format, o.OCI, o.Compiler, o.Stdin = j.FormatIn, j.OCI, j.Compiler, ios.In
	l, err := cmdutil.LoadPolicies(j.Policies, o)
	if err != nil {
		return nil, nil, err
	}
	l.PrintWarnings(ios.ErrOut)
	if _, err := cmdutil.OneStack(l); err != nil {
		return nil, nil, err
	}
	progs, pols := l.Progs, l.Pols
	if len(l.Sources) == 1 && l.Sources[0].Stacked && !j.CountsSet {
		// A unit given as POLICY is measured as --systemd-unit measures
		// it: counts 0, each directive's prefix and the full stack.
		j.Counts = slices.Compact(append([]int{0}, l.Sources[0].Prefixes()...))
	}
	j.unit = cmdutil.LoneUnit(l)
	if j.Pid > 0 {
		if progs, pols, err = inspect.PidPolicies(j.Pid); err != nil {
			return nil, nil, err
		}
		if !j.CountsSet {
			j.Counts = []int{0, len(progs)}
		}
	}
	if j.SystemdUnit != "" || j.SystemdDirectives != "" {
		unit, upol, err := openSystemd(j)
		if err != nil {
			return nil, nil, err
		}
		j.unit = unit.Source()
		for _, w := range unit.Warnings {
			fmt.Fprintf(ios.ErrOut, "warning: %s\n", w)
		}
		// The modeled stack is loaded as systemd loads it, unless --loader
		// says otherwise.
		if !j.LoaderSet {
			j.Loaders = []result.Loader{result.LoaderUnprivileged}
			if unit.Privileged {
				j.Loaders = []result.Loader{result.LoaderPrivileged}
			}
			j.LoaderReason = "loader follows the unit: " + unit.LoaderReason
		} else {
			j.LoaderReason = "--loader given; systemd would load this unit's filters " + map[bool]string{true: "with", false: "without"}[unit.Privileged] + " CAP_SYS_ADMIN: " + unit.LoaderReason
		}
		// The unit's filters go first, in the order systemd installs them;
		// policies given as arguments go on top. Counts up to the unit's
		// depth are its prefixes.
		progs = append(append([]*filters.Program(nil), unit.Programs...), progs...)
		pols = append([]document.Policy{upol}, pols...)
		if !j.CountsSet {
			counts := append([]int{0}, unit.Prefixes()...)
			if len(progs) > len(unit.Programs) {
				counts = append(counts, len(progs))
			}
			slices.Sort(counts)
			j.Counts = slices.Compact(counts)
		}
	}
	// Padding is the runner's, per child (Job.placement): the programs
	// and the report's policy lengths stay unpadded.
	return progs, pols, nil
}

// openSystemd models the unit's filter stack and describes it for the
// report as one policy entry (instructions summed over its filters).
func openSystemd(j *Job) (*systemd.Stack, document.Policy, error) {
	t0 := time.Now()
	var unit *systemd.Stack
	var err error
	var sum [32]byte
	if j.SystemdUnit != "" {
		// The unit with its drop-ins, as systemd merges them.
		name, data, dropIns, rerr := formats.ReadUnit(j.SystemdUnit, "")
		if rerr != nil {
			return nil, document.Policy{}, fmt.Errorf("read systemd unit: %w", rerr)
		}
		sum = sha256.Sum256(data)
		unit, err = systemd.ParseUnit(name, data, systemd.Options{Compiler: j.Compiler, DropIns: dropIns, SystemdVersion: j.Open.Systemd.SystemdVersion, VersionNote: j.Open.Systemd.VersionNote})
	} else {
		sum = sha256.Sum256([]byte(j.SystemdDirectives))
		unit, err = systemd.ParseDirectives("--systemd", j.SystemdDirectives, systemd.Options{Compiler: j.Compiler, SystemdVersion: j.Open.Systemd.SystemdVersion, VersionNote: j.Open.Systemd.VersionNote})
	}
	if err != nil {
		return nil, document.Policy{}, fmt.Errorf("model systemd stack: %w", err)
	}
	if len(unit.Programs) == 0 {
		return nil, document.Policy{}, fmt.Errorf("model systemd stack: %s installs no seccomp filter (no SystemCallFilter= or hardening directive that uses seccomp)", unit.Unit)
	}
	n := 0
	for _, p := range unit.Programs {
		n += p.Len()
	}
	src := j.SystemdUnit
	if src == "" {
		src = "--systemd " + j.SystemdDirectives
	}
	return unit, document.Policy{Path: fmt.Sprintf("%s (systemd stack of %s)", src, report.Plural(len(unit.Programs), "filter")), SHA256: hex.EncodeToString(sum[:]),
		Instructions: n, CompileUs: float64(time.Since(t0).Nanoseconds()) / 1e3}, nil
}
