package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// lintDir holds the units and policies of lint's finding tests.
var lintDir = filepath.Join("testdata", "lint")

// TestLintUnitWarnings: what a unit's loader warns about and ignores is a
// counted finding with file and line, in text and JSON. A misspelt entry
// of a "~" line (the stack then lets through what it was to deny) is an
// error, exit 3; a misspelt allow-list entry a warning with "did you
// mean", exit 0.
func TestLintUnitWarnings(t *testing.T) {
	unit := filepath.Join(lintDir, "typos.service")
	code, out, errOut := runCmd(t, "", "lint", unit)
	if code != 3 {
		t.Fatalf("exit %d, want 3 (an ignored deny entry); stderr: %s", code, errOut)
	}
	for _, want := range []string{
		"error: stack [ignored-deny]: " + unit + `:4: SystemCallFilter: unknown system call group "@bogus-group", ignoring (unknown to systemd 252). The stack lets through what the entry was to deny.`,
		"error: stack [ignored-deny]: " + unit + `:4: SystemCallFilter: unknown system call "ptrce", ignoring; the stack lets through what the entry was to deny; did you mean "ptrace"?`,
		"warning: stack [source-warning]: " + unit + `:3: SystemCallFilter: unknown system call "reed", ignoring; did you mean "read"?`,
		"2 errors, 1 warning, ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if errOut != "" {
		t.Errorf("the warnings are findings, not stderr lines; stderr:\n%s", errOut)
	}

	code, out, errOut = runCmd(t, "", "lint", unit, "--format", "json")
	if code != 3 {
		t.Fatalf("--format json: exit %d, want 3; stderr: %s", code, errOut)
	}
	var doc struct {
		Findings []struct{ Code, Message string }
		Errors   int
		Warnings int
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	codes := map[string]int{}
	for _, f := range doc.Findings {
		codes[f.Code]++
		if (f.Code == "ignored-deny" || f.Code == "source-warning") && !strings.HasPrefix(f.Message, unit+":") {
			t.Errorf("finding %s does not start with the unit's file:line: %q", f.Code, f.Message)
		}
	}
	if codes["ignored-deny"] != 2 || codes["source-warning"] != 1 || doc.Errors != 2 || doc.Warnings != 1 {
		t.Errorf("JSON codes %v, errors %d, warnings %d; want 2 ignored-deny, 1 source-warning, 2 errors, 1 warning", codes, doc.Errors, doc.Warnings)
	}

	// An allow-list typo only: counted as a warning, exit 0.
	allow := filepath.Join(lintDir, "typo-allow.service")
	code, out, errOut = runCmd(t, "", "lint", allow)
	if code != 0 {
		t.Fatalf("lint %s: exit %d, want 0; stderr: %s", allow, code, errOut)
	}
	if !strings.Contains(out, "0 errors, 1 warning, ") || !strings.Contains(out, allow+`:3: SystemCallFilter: unknown system call "reed"`) {
		t.Errorf("lint %s: the typo is not one counted warning:\n%s", allow, out)
	}
}

// TestLintInstallDenied: a profile that returns ERRNO(1) for seccomp(2)
// breaks run at any depth over 1 filter, so lint reports it, naming the
// syscall and the filter: an error at --filters N, a warning at run's
// default depth; at --filters 1 nothing is installed over it.
func TestLintInstallDenied(t *testing.T) {
	prof := filepath.Join(lintDir, "no-seccomp.json")
	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     string
	}{
		{"--filters 32", []string{"--filters", "32"}, 3, "error: filter 0 (no-seccomp) [install-denied]: filter 0 (no-seccomp) returns SECCOMP_RET_ERRNO(1) for seccomp(2); installing filter 2 of 32 would fail"},
		{"run's default depth", nil, 0, "warning: filter 0 (no-seccomp) [install-denied]: filter 0 (no-seccomp) returns SECCOMP_RET_ERRNO(1) for seccomp(2). Installing filter 2 of 32 (run without --filters goes up to 32) would fail"},
		{"--filters 1", []string{"--filters", "1"}, 0, "0 errors"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCmd(t, "", append([]string{"lint", prof}, tt.args...)...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stderr: %s\n%s", code, tt.wantCode, errOut, out)
			}
			if !strings.Contains(out, tt.want) {
				t.Errorf("stdout lacks %q:\n%s", tt.want, out)
			}
			if tt.args != nil && tt.wantCode == 0 && strings.Contains(out, "[install-denied]") {
				t.Errorf("install-denied at --filters 1:\n%s", out)
			}
		})
	}
}

// TestLintDeadRulePlace: a dead rule of a Beats policy is placed at the
// policy's line and column, the BPF instruction named as compile's
// listing's, never as a "line".
func TestLintDeadRulePlace(t *testing.T) {
	pol := filepath.Join(lintDir, "dead.yaml")
	code, out, errOut := runCmd(t, "", "lint", pol)
	if code != 0 {
		t.Fatalf("exit %d, want 0; stderr: %s", code, errOut)
	}
	want := "[dead-rule]: " + pol + ":7:15 (instruction 5 of filter 0 (dead) in compile's listing): the rule for ptrace returns ERRNO(1)"
	if !strings.Contains(out, want) {
		t.Errorf("stdout lacks %q:\n%s", want, out)
	}
}

// TestLintSystemdLogindCount: lint counts the stack run installs for
// systemd-logind.service (systemd 252): compile --systemd-stack lists 29
// filters, 11 for x86_64, 8 for x86, 9 for x32 and the one
// SystemCallArchitectures filter for all ABIs.
func TestLintSystemdLogindCount(t *testing.T) {
	unit := filepath.Join("testdata", "units", "systemd-logind.service")
	code, out, errOut := runCmd(t, "", "lint", unit, "--arch", "x86_64")
	if code != 0 {
		t.Fatalf("exit %d, want 0; stderr: %s", code, errOut)
	}
	want := "11 filters for x86_64, 8 filters for i386, 9 filters for x32, 1 filter for all ABIs"
	if !strings.Contains(out, want) {
		t.Errorf("stdout lacks %q:\n%s", want, out)
	}
	code, out, errOut = runCmd(t, "", "compile", "--systemd-stack", unit)
	if code != 0 {
		t.Fatalf("compile --systemd-stack: exit %d; stderr: %s", code, errOut)
	}
	if !strings.HasSuffix(strings.TrimSpace(out), "\n29 filters") {
		t.Errorf("compile --systemd-stack does not end in 29 filters:\n%s", out)
	}
}
