package main

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
	"github.com/seccompbench/seccompbench/report"
)

func TestNewCmdRunOutputs(t *testing.T) {
	tests := []struct {
		name        string
		args        []string
		wantOutputs []output.Spec
		wantOutput  string
		wantErr     bool
	}{
		{name: "repeated -o", args: []string{"-o", "report.md", "-o", "plot.svg", "--output", "r.json"},
			wantOutputs: []output.Spec{{Path: "report.md", Format: "markdown"}, {Path: "plot.svg", Format: "svg"}, {Path: "r.json", Format: "json"}}, wantOutput: "report.md"},
		{name: "single -o and --format", args: []string{"--format", "json", "-o", "x.json"}, wantOutputs: []output.Spec{{Path: "x.json", Format: "json"}}, wantOutput: "x.json"},
		{name: "new formats on stdout", args: []string{"--format", "benchstat"}, wantOutputs: []output.Spec{{Format: "benchstat"}}},
		{name: "png needs a file", args: []string{"--format", "png"}, wantErr: true},
		{name: "unknown extension among several", args: []string{"-o", "a.md", "-o", "b.dat"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseFlags(t, NewCmdRun, tt.args, execWant{Err: tt.wantErr, Usage: true})
			if got == nil {
				return
			}
			if !slices.Equal(got.Specs, tt.wantOutputs) || got.Output != tt.wantOutput {
				t.Errorf("outputs = %v, Output = %q; want %v, %q", got.Specs, got.Output, tt.wantOutputs, tt.wantOutput)
			}
		})
	}
}

// TestRunWritesEveryFormat makes a tiny real run with one -o per format and
// checks each file parses as its format.
func TestRunWritesEveryFormat(t *testing.T) {
	dir := t.TempDir()
	names := []string{"r.json", "r.md", "r.csv", "r.bench", "r.svg", "r.png", "r.txt", "r.html"}
	args := []string{"run", "--filters", "0,1,2", "--trials", "2", "--iterations", "200", "--samples", "2", "--cache", "defeat", "--workload", "getpid"}
	for _, n := range names {
		args = append(args, "-o", filepath.Join(dir, n))
	}
	var out, errb bytes.Buffer
	if code := run(args, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if out.Len() != 0 {
		t.Errorf("stdout not empty with -o: %q", out.String())
	}
	read := func(n string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	d, err := report.ReadJSON(bytes.NewReader(read("r.json")))
	if err != nil {
		t.Fatalf("r.json: %v", err)
	}
	if got, want := len(d.Children), 6; got != want {
		t.Errorf("children = %d, want %d (3 counts x 2 trials)", got, want)
	}
	if md := string(read("r.md")); !strings.Contains(md, "# seccompbench:") || !strings.Contains(md, "## Reproduce") {
		t.Errorf("r.md is not the Markdown report:\n%s", md)
	}
	if lines := strings.Count(string(read("r.csv")), "\n"); lines != 7 {
		t.Errorf("r.csv has %d lines, want header + 6 children", lines)
	}
	br := benchfmt.NewReader(bytes.NewReader(read("r.bench")), "r.bench")
	nres := 0
	for br.Scan() {
		if _, ok := br.Result().(*benchfmt.Result); ok {
			nres++
		}
	}
	if nres != 6 {
		t.Errorf("r.bench has %d results, want 6", nres)
	}
	if err := xml.Unmarshal(read("r.svg"), new(struct{})); err != nil {
		t.Errorf("r.svg is not XML: %v", err)
	}
	if _, err := png.Decode(bytes.NewReader(read("r.png"))); err != nil {
		t.Errorf("r.png: %v", err)
	}
	if page := string(read("r.html")); !strings.Contains(page, "<!DOCTYPE html>") || !strings.Contains(page, `<section id="results">`) || !strings.Contains(page, "<svg") {
		t.Errorf("r.html is not the HTML report with its plot:\n%.500s", page)
	}
	if txt := string(read("r.txt")); !strings.Contains(txt, "variant") {
		t.Errorf("r.txt is not the table:\n%s", txt)
	}
	for _, n := range names {
		if !strings.Contains(errb.String(), "wrote "+filepath.Join(dir, n)) {
			t.Errorf("stderr does not announce %s: %s", n, errb.String())
		}
	}
}

// TestOutputFlagsEveryCommand: -o with a known extension writes the file
// and says so on stderr, -q keeps stderr empty, an extension that names no
// format is a usage error unless --format names one, and a reader given
// another kind of JSON refuses it by name (issue 26).
func TestOutputFlagsEveryCommand(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	for _, tt := range []struct {
		name    string
		args    []string
		code    int
		stderr  string // "" = must be empty
		file    string // must exist afterwards ("" = none)
		noFile  string // must not exist afterwards
		content string
	}{
		{"simulate -o", []string{"simulate", "default", "--syscall", "getpid", "-o", p("s.json")}, 0, "wrote " + p("s.json"), p("s.json"), "", `"kind": "simulate"`},
		{"simulate -o -q", []string{"simulate", "default", "--syscall", "getpid", "-o", p("q.json"), "-q"}, 0, "", p("q.json"), "", `"kind": "simulate"`},
		{"compile -o .bpf", []string{"compile", "default", "-o", p("f.bpf"), "-q"}, 0, "", p("f.bpf"), "", ""},
		{"lint -o .txt", []string{"lint", "default", "-o", p("l.txt"), "-q"}, 0, "", p("l.txt"), "", "0 errors"},
		{"equiv -o .json", []string{"equiv", "default", "default", "-o", p("e.json"), "-q"}, 0, "", p("e.json"), "", `"equivalent": true`},
		{"compile -o x.weird", []string{"compile", "default", "-o", p("x.weird")}, 2, `cannot tell the format from the extension ".weird"`, "", p("x.weird"), ""},
		{"lint -o x.md", []string{"lint", "default", "-o", p("x.md")}, 2, "this command writes text, json, not markdown", "", p("x.md"), ""},
		{"compile -o x.weird --format json", []string{"compile", "default", "-o", p("y.weird"), "--format", "json", "-q"}, 0, "", p("y.weird"), "", `"kind": "compile"`},
		{"report of an equiv document", []string{"report", p("e.json")}, 2, "report: e.json is an equiv document, want a run result", "", "", ""},
		{"compare of an old comparison", []string{"compare", "../../docs/examples/compare.json", "../../docs/examples/run.json"}, 2, "is a compare document, want a run result", "", "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if got := run(tt.args, strings.NewReader(""), &out, &errb); got != tt.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", got, tt.code, errb.String())
			}
			if tt.stderr == "" && errb.Len() != 0 {
				t.Errorf("stderr not empty:\n%s", errb.String())
			}
			if tt.stderr != "" && !strings.Contains(errb.String(), tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, errb.String())
			}
			if tt.file != "" {
				b, err := os.ReadFile(tt.file)
				if err != nil || !strings.Contains(string(b), tt.content) {
					t.Errorf("%s: %v; want it to contain %q:\n%s", tt.file, err, tt.content, b)
				}
				if out.Len() != 0 {
					t.Errorf("stdout not empty with -o: %q", out.String())
				}
			}
			if tt.noFile != "" {
				if _, err := os.Stat(tt.noFile); err == nil {
					t.Errorf("%s was written", tt.noFile)
				}
			}
		})
	}
}
