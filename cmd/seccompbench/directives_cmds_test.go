package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/filters/analysis"
	"github.com/seccompbench/seccompbench/filters/systemd"
)

// hardenedParts is analysis.PartCosts of testdata's hardened unit, the
// answer run and lint must carry.
func hardenedParts(t *testing.T) (*systemd.Stack, *analysis.PartsReport) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(policiesDir, "hardened.service"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := systemd.ParseUnit("hardened.service", data, systemd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := analysis.PartCosts(st.Source(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return st, r
}

// TestRunUnitDirectives: run on a unit given as POLICY (not only with
// --systemd-unit) names each filter and carries each directive's filters,
// uncached syscalls and redundancy, in the JSON and under the table.
func TestRunUnitDirectives(t *testing.T) {
	st, want := hardenedParts(t)
	unit := filepath.Join(policiesDir, "hardened.service")
	quick := []string{"--filters", "0,1", "--trials", "2", "--iterations", "100", "--samples", "2", "-q"}
	code, out, errOut := runCmd(t, "", append([]string{"run", unit, "--format", "json"}, quick...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Config struct {
			FilterNames []string `json:"filter_names"`
			Directives  struct {
				ABI      string   `json:"abi"`
				Uncached []string `json:"uncached_syscalls"`
				List     []struct {
					Name         string   `json:"name"`
					Filters      []string `json:"filters"`
					Uncached     []string `json:"uncached_syscalls"`
					OnlyThis     []string `json:"cached_without"`
					Redundant    string   `json:"redundant"`
					OtherEffects string   `json:"other_effects"`
				} `json:"list"`
			} `json:"directives"`
		} `json:"config"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(doc.Config.FilterNames) != len(st.Programs) {
		t.Errorf("filter_names has %d names, the unit %d filters", len(doc.Config.FilterNames), len(st.Programs))
	}
	got := doc.Config.Directives
	if got.ABI != "x86_64" || !slices.Equal(got.Uncached, want.Uncached) || len(got.List) != len(want.Parts) {
		t.Fatalf("directives %+v, want %d directives with uncached %v", got, len(want.Parts), want.Uncached)
	}
	for i, d := range got.List {
		w := want.Parts[i]
		if d.Name != w.Name || len(d.Filters) != len(w.Filters) || !slices.Equal(d.Uncached, w.Uncached) || d.Redundant != w.Redundant ||
			d.OtherEffects != systemd.OtherEffects(w.Name) {
			t.Errorf("directive %d = %+v, want %+v", i, d, w)
		}
		if d.Name == "MemoryDenyWriteExecute" && (!slices.Contains(d.Uncached, "mmap") || !slices.Contains(d.OnlyThis, "mprotect")) {
			t.Errorf("MemoryDenyWriteExecute does not make mmap and mprotect uncached: %+v", d)
		}
	}
	code, out, errOut = runCmd(t, "", append([]string{"run", "--systemd-unit", unit}, quick...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	flat := strings.Join(strings.Fields(out), " ")
	for _, s := range []string{"what each directive costs", "MemoryDenyWriteExecute: 3 filters", "Uncached: mmap, mprotect"} {
		if !strings.Contains(flat, s) {
			t.Errorf("run --systemd-unit text lacks %q:\n%s", s, out)
		}
	}
	for _, p := range want.Parts {
		if p.Redundant == analysis.RedundantYes && systemd.OtherEffects(p.Name) != "" &&
			!strings.Contains(flat, strings.Join(strings.Fields(systemd.OtherEffects(p.Name)), " ")) {
			t.Errorf("redundant %s: its effects outside seccomp are not named:\n%s", p.Name, out)
		}
	}
}

// TestLintUnitDirectives: lint on a unit names each directive's filters
// and the syscalls it makes uncached, and a redundant directive with
// what it does outside seccomp.
func TestLintUnitDirectives(t *testing.T) {
	_, want := hardenedParts(t)
	code, out, errOut := runCmd(t, "", "lint", filepath.Join(policiesDir, "hardened.service"), "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Findings []struct {
			Code, Message string
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	cost, redundant := map[string]string{}, map[string]string{}
	for _, f := range doc.Findings {
		name, _, _ := strings.Cut(f.Message, "=")
		switch f.Code {
		case analysis.LintDirectiveCost:
			cost[name] = f.Message
		case analysis.LintRedundantDirective:
			redundant[name] = f.Message
		}
	}
	for _, p := range want.Parts {
		m, ok := cost[p.Name]
		if !ok {
			t.Errorf("no %s finding for %s", analysis.LintDirectiveCost, p.Name)
			continue
		}
		if !strings.Contains(m, analysis.PartFiltersText(p)) {
			t.Errorf("%s: %q does not name its filters %q", p.Name, m, analysis.PartFiltersText(p))
		}
		// The message lists up to 8 names, then "(+N more)".
		for _, s := range p.Uncached[:min(8, len(p.Uncached))] {
			if !strings.Contains(m, s) {
				t.Errorf("%s: %q does not name uncached %s", p.Name, m, s)
			}
		}
		r, ok := redundant[p.Name]
		if ok != (p.Redundant == analysis.RedundantYes) {
			t.Errorf("%s: redundant finding %v, analysis says %q", p.Name, ok, p.Redundant)
		}
		if e := systemd.OtherEffects(p.Name); ok && e != "" && !strings.Contains(r, e) {
			t.Errorf("%s: redundant finding %q does not say what it does outside seccomp (%s)", p.Name, r, e)
		}
	}
	if !strings.Contains(cost["MemoryDenyWriteExecute"], "mmap, mprotect") {
		t.Errorf("MemoryDenyWriteExecute finding lacks mmap, mprotect: %q", cost["MemoryDenyWriteExecute"])
	}
}

// TestEquivUnitsOutsideSeccomp: equiv on two units notes the settings
// outside seccomp in which they differ; on a unit and itself, none.
func TestEquivUnitsOutsideSeccomp(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.service")
	b := filepath.Join(dir, "b.service")
	os.WriteFile(a, []byte("[Service]\nExecStart=/bin/true\nSystemCallFilter=~@mount\nProtectSystem=strict\nPrivateDevices=yes\n"), 0o644)
	os.WriteFile(b, []byte("[Service]\nExecStart=/bin/true\nSystemCallFilter=~@mount\nPrivateDevices=no\n"), 0o644)
	code, out, errOut := runCmd(t, "", "equiv", a, b)
	if code != 3 {
		t.Fatalf("exit %d, want 3 (PrivateDevices= adds a filter): %s %s", code, out, errOut)
	}
	flat := strings.Join(strings.Fields(out), " ")
	for _, s := range []string{"differ outside seccomp", "ProtectSystem: A strict, B unset", "PrivateDevices: A yes, B no", "CAP_MKNOD"} {
		if !strings.Contains(flat, s) {
			t.Errorf("equiv text lacks %q:\n%s", s, out)
		}
	}
	if strings.Contains(flat, "SystemCallFilter:") || strings.Contains(flat, "ExecStart:") {
		t.Errorf("equiv notes settings that do not differ:\n%s", out)
	}
	code, out, _ = runCmd(t, "", "equiv", a, a, "--format", "json")
	if code != 0 || strings.Contains(out, "outside_seccomp") {
		t.Errorf("equiv of a unit with itself: exit %d, notes:\n%s", code, out)
	}
}
