package inspect

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/report/document"
	"github.com/seccompbench/seccompbench/runner"
	"github.com/seccompbench/seccompbench/runner/inspect"
	"github.com/seccompbench/seccompbench/runner/result"
)

// Save writes each filter of p as DIR/filter-NN.bpf (raw struct
// sock_filter, little-endian, zero-padded so that a shell glob sorts them
// oldest first) and DIR/manifest.json, stamped with now.
func Save(dir string, p Process, now time.Time) error {
	j := p.Report
	m := document.InspectManifest{Pid: j.Pid, Name: j.Name, Cmdline: j.Cmdline, SeccompMode: j.SeccompMode, NoNewPrivs: j.NoNewPrivs,
		SeccompFilters: j.SeccompFilters, Captured: now.UTC().Format(time.RFC3339), Kernel: runner.CaptureEnvironment().Kernel}
	return SaveStack(dir, m, p.Stack, nil)
}

// SaveStack writes stack in Save's layout with manifest m, whose Filters
// it fills; describe, if not nil, adds to each filter's entry (e.g. the
// systemd directive and arch of a modeled stack).
func SaveStack(dir string, m document.InspectManifest, stack []*filters.Program, describe func(i int, f *document.InspectSavedFilter)) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("save filters: %w", err)
	}
	width := max(2, len(strconv.Itoa(len(stack)-1)))
	m.SchemaVersion, m.Kind, m.Filters = document.ManifestVersion, document.KindManifest, nil
	for i, prog := range stack {
		name := fmt.Sprintf("filter-%0*d.bpf", width, i)
		if err := os.WriteFile(filepath.Join(dir, name), prog.Bytes(), 0o644); err != nil {
			return fmt.Errorf("save filters: %w", err)
		}
		f := document.InspectSavedFilter{Index: i, File: name, Instructions: prog.Len(), SHA256: prog.SHA256()}
		if describe != nil {
			describe(i, &f)
		}
		m.Filters = append(m.Filters, f)
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("save manifest: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("save manifest: %w", err)
	}
	return nil
}

// PidPolicies dumps the filters of process pid for `run --pid`: the stack
// exactly as installed, oldest first, each filter named after the process
// and its index, and described for the report. A process not in filter
// mode gives an error wrapping inspect.ErrNoFilterMode.
func PidPolicies(pid int) ([]*filters.Program, []document.Policy, error) {
	pf, err := inspect.InspectProcess(pid)
	if err != nil {
		return nil, nil, fmt.Errorf("inspect pid %d: %w", pid, err)
	}
	if pf.SeccompMode != result.SeccompModeFilter {
		return nil, nil, fmt.Errorf("inspect pid %d: %w (Seccomp is %d)", pid, inspect.ErrNoFilterMode, pf.SeccompMode)
	}
	if pf.DumpErr != nil {
		return nil, nil, pf.DumpErr
	}
	s, err := DumpedStack(pf)
	if err != nil {
		return nil, nil, err
	}
	var pols []document.Policy
	for i, p := range s {
		pols = append(pols, document.Policy{Path: fmt.Sprintf("pid %d (%s) filter %d of %d", pid, pf.Name, i, len(s)), SHA256: p.SHA256(), Instructions: p.Len()})
	}
	return s, pols, nil
}
