package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/internal/prose"
)

// TestCommandSentenceLength (issue #46): the commands that render the
// committed fixtures (docs/examples' results, this package's testdata,
// the policy corpus) print no sentence longer than prose.MaxSentence
// characters, in their default output, with --explain where they have
// it, as Markdown and HTML where they write them, and the warnings they
// print on standard error beside JSON. Exit status 3 (lint findings) is
// output too.
func TestCommandSentenceLength(t *testing.T) {
	ex := filepath.Join("..", "..", "docs", "examples")
	fleet, err := filepath.Glob(filepath.Join(ex, "fleet", "*.json"))
	if err != nil || len(fleet) == 0 {
		t.Fatalf("no fleet fixtures: %v", err)
	}
	runs := []string{filepath.Join(ex, "run.json"), filepath.Join(ex, "minimal.json"), filepath.Join(ex, "getpid.json")}
	lintDir := filepath.Join("testdata", "lint")
	unit := filepath.Join("testdata", "units", "systemd-timesyncd.service")
	fc := filepath.Join("testdata", "inputs", "aarch64-unknown-linux-musl.json")
	type line struct {
		args []string
		f    prose.Format
		// json: stdout is JSON, only the warnings on stderr are prose.
		json bool
	}
	var lines []line
	add := func(f prose.Format, args ...string) { lines = append(lines, line{args: args, f: f}) }
	for _, pair := range [][]string{runs[:2], fleet[:2]} {
		base := append([]string{"compare"}, pair...)
		add(prose.Text, base...)
		add(prose.Text, append(base, "--explain")...)
		add(prose.Markdown, append(base, "--format", "markdown")...)
		add(prose.HTML, append(base, "--format", "html")...)
		lines = append(lines, line{args: append(base, "--format", "json"), json: true})
	}
	rep := append(append([]string{"report"}, fleet...), runs...)
	add(prose.Text, rep...)
	add(prose.Text, append(rep, "--explain")...)
	add(prose.Markdown, append(rep, "--format", "markdown")...)
	add(prose.HTML, append(rep, "--format", "html")...)
	lines = append(lines, line{args: append(rep, "--format", "json"), json: true})
	for _, p := range []string{filepath.Join(lintDir, "dead.yaml"), filepath.Join(lintDir, "no-seccomp.json"), filepath.Join(policiesDir, "denylist.yaml"), filepath.Join(policiesDir, "docker-default.json")} {
		add(prose.Text, "lint", p)
		add(prose.Text, "compile", p)
	}
	add(prose.Text, "lint", filepath.Join(lintDir, "typos.service"))
	add(prose.Text, "lint", filepath.Join(lintDir, "typo-allow.service"))
	add(prose.Text, "lint", unit)
	add(prose.Text, "lint", fc, "--arch", "aarch64")
	for _, l := range lines {
		code, out, errOut := runCmd(t, "", l.args...)
		name := strings.Join(l.args, " ")
		if code != 0 && code != 3 {
			t.Errorf("$ seccompbench %s: exit %d\n%s", name, code, errOut)
			continue
		}
		if l.json {
			if !strings.Contains(errOut, "warning: ") {
				t.Errorf("$ seccompbench %s: no warnings on stderr", name)
			}
			out = ""
		} else if len(prose.Sentences(out, l.f)) == 0 {
			t.Errorf("$ seccompbench %s: no sentence found in\n%s", name, out)
		}
		for _, s := range prose.Long(out, l.f) {
			t.Errorf("$ seccompbench %s: sentence of %d characters (at most %d):\n%s", name, len([]rune(s)), prose.MaxSentence, s)
		}
		for _, s := range prose.Long(errOut, prose.Text) {
			t.Errorf("$ seccompbench %s (stderr): sentence of %d characters (at most %d):\n%s", name, len([]rune(s)), prose.MaxSentence, s)
		}
	}
}
