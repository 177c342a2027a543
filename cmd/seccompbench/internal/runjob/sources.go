package runjob

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/inspect"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/filters/systemd"
	"github.com/seccompbench/seccompbench/report"
)

// openSources opens what the job measures: its policies, or the stack of
// process j.Pid, with a systemd unit's stack first; then pads every
// program. Without --filters, a process's or unit's stack picks the
// counts. Loader warnings go to ios.ErrOut.
func openSources(ios *cmdutil.IOStreams, j *Job) ([]*filters.Program, []report.Policy, error) {
	progs, pols, err := cmdutil.OpenPolicies(j.Policies, formats.OpenOptions{Format: j.FormatIn, OCI: j.OCI, Compiler: j.Compiler})
	cmdutil.PrintWarnings(ios.ErrOut, progs)
	if err != nil {
		return nil, nil, err
	}
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
		for _, w := range unit.Warnings {
			fmt.Fprintf(ios.ErrOut, "warning: %s\n", w)
		}
		// The unit's filters go first, in the order systemd installs them;
		// policies given as arguments go on top. Counts up to the unit's
		// depth are its prefixes.
		progs = append(append([]*filters.Program(nil), unit.Programs...), progs...)
		pols = append([]report.Policy{upol}, pols...)
		if !j.CountsSet {
			counts := append([]int{0}, unit.Prefixes()...)
			if len(progs) > len(unit.Programs) {
				counts = append(counts, len(progs))
			}
			slices.Sort(counts)
			j.Counts = slices.Compact(counts)
		}
	}
	// Padding comes after every source is in (policies, a unit's stack, a
	// process's filters); the report's policy lengths stay unpadded and
	// its header names the padding.
	for i, p := range progs {
		progs[i] = p.Padded(j.Pad)
	}
	return progs, pols, nil
}

// openSystemd models the unit's filter stack and describes it for the
// report as one policy entry (instructions summed over its filters).
func openSystemd(j *Job) (*systemd.Stack, report.Policy, error) {
	t0 := time.Now()
	var unit *systemd.Stack
	var err error
	var sum [32]byte
	if j.SystemdUnit != "" {
		data, rerr := os.ReadFile(j.SystemdUnit)
		if rerr != nil {
			return nil, report.Policy{}, fmt.Errorf("read systemd unit: %w", rerr)
		}
		sum = sha256.Sum256(data)
		unit, err = systemd.ParseUnit(j.SystemdUnit, data, systemd.Options{Compiler: j.Compiler})
	} else {
		sum = sha256.Sum256([]byte(j.SystemdDirectives))
		unit, err = systemd.ParseDirectives("--systemd", j.SystemdDirectives, systemd.Options{Compiler: j.Compiler})
	}
	if err != nil {
		return nil, report.Policy{}, fmt.Errorf("model systemd stack: %w", err)
	}
	if len(unit.Programs) == 0 {
		return nil, report.Policy{}, fmt.Errorf("model systemd stack: %s installs no seccomp filter (no SystemCallFilter= or hardening directive that uses seccomp)", unit.Unit)
	}
	n := 0
	for _, p := range unit.Programs {
		n += p.Len()
	}
	src := j.SystemdUnit
	if src == "" {
		src = "--systemd " + j.SystemdDirectives
	}
	return unit, report.Policy{Path: fmt.Sprintf("%s (systemd stack of %d filters)", src, len(unit.Programs)), SHA256: hex.EncodeToString(sum[:]),
		Instructions: n, CompileUs: float64(time.Since(t0).Nanoseconds()) / 1e3}, nil
}
