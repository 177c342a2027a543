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

	"github.com/seccompbench/seccompbench/report"
)

func TestResolveOutputs(t *testing.T) {
	tests := []struct {
		name      string
		format    string
		formatSet bool
		paths     []string
		want      []outputSpec
		wantErr   string
	}{
		{name: "stdout default", format: "table", want: []outputSpec{{Format: "table"}}},
		{name: "stdout markdown", format: "markdown", formatSet: true, want: []outputSpec{{Format: "markdown"}}},
		{name: "stdout png refused", format: "png", formatSet: true, wantErr: "binary"},
		{name: "bad format", format: "xml", formatSet: true, wantErr: "not one of"},
		{name: "one -o with --format keeps working", format: "json", formatSet: true, paths: []string{"x.out"}, want: []outputSpec{{"x.out", "json"}}},
		{name: "explicit --format beats the extension for one file", format: "json", formatSet: true, paths: []string{"x.md"}, want: []outputSpec{{"x.md", "json"}}},
		{name: "one -o by extension", format: "table", paths: []string{"r.json"}, want: []outputSpec{{"r.json", "json"}}},
		{name: "one -o unknown extension falls back", format: "table", paths: []string{"r.out"}, want: []outputSpec{{"r.out", "table"}}},
		{name: "several by extension", format: "table", paths: []string{"a.json", "b.md", "c.CSV", "d.bench", "e.svg", "f.png", "g.txt"},
			want: []outputSpec{{"a.json", "json"}, {"b.md", "markdown"}, {"c.CSV", "csv"}, {"d.bench", "benchstat"}, {"e.svg", "svg"}, {"f.png", "png"}, {"g.txt", "table"}}},
		{name: "several, unknown extension", format: "table", paths: []string{"a.json", "b.out"}, wantErr: "extension"},
		{name: "several, unknown extension with --format", format: "benchstat", formatSet: true, paths: []string{"a.json", "b.out"},
			want: []outputSpec{{"a.json", "json"}, {"b.out", "benchstat"}}},
		{name: "same file twice", format: "table", paths: []string{"a.json", "./a.json"}, wantErr: "twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := resolveOutputs(tt.format, tt.formatSet, tt.paths)
			if tt.wantErr != "" {
				var fe *FlagError
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !asFlagError(err, &fe) {
					t.Fatalf("err = %v, want a *FlagError containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func TestNewCmdRunOutputs(t *testing.T) {
	tests := []struct {
		name        string
		args        []string
		wantOutputs []outputSpec
		wantOutput  string
		wantErr     bool
	}{
		{name: "repeated -o", args: []string{"-o", "report.md", "-o", "plot.svg", "--output", "r.json"},
			wantOutputs: []outputSpec{{"report.md", "markdown"}, {"plot.svg", "svg"}, {"r.json", "json"}}, wantOutput: "report.md"},
		{name: "single -o and --format", args: []string{"--format", "json", "-o", "x.json"}, wantOutputs: []outputSpec{{"x.json", "json"}}, wantOutput: "x.json"},
		{name: "new formats on stdout", args: []string{"--format", "benchstat"}, wantOutputs: []outputSpec{{Format: "benchstat"}}},
		{name: "png needs a file", args: []string{"--format", "png"}, wantErr: true},
		{name: "unknown extension among several", args: []string{"-o", "a.md", "-o", "b.dat"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseFlags(t, NewCmdRun, tt.args, execWant{Err: tt.wantErr, Usage: true})
			if got == nil {
				return
			}
			if !slices.Equal(got.outputs, tt.wantOutputs) || got.Output != tt.wantOutput {
				t.Errorf("outputs = %v, Output = %q; want %v, %q", got.outputs, got.Output, tt.wantOutputs, tt.wantOutput)
			}
		})
	}
}

// TestRunWritesEveryFormat makes a tiny real run with one -o per format and
// checks each file parses as its format.
func TestRunWritesEveryFormat(t *testing.T) {
	dir := t.TempDir()
	names := []string{"r.json", "r.md", "r.csv", "r.bench", "r.svg", "r.png", "r.txt"}
	args := []string{"run", "--filters", "0,1,2", "--trials", "2", "--iterations", "200", "--samples", "2", "--cache", "defeat", "--workload", "getpid", "-q"}
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
	if txt := string(read("r.txt")); !strings.Contains(txt, "variant") {
		t.Errorf("r.txt is not the table:\n%s", txt)
	}
	for _, n := range names {
		if !strings.Contains(errb.String(), "wrote "+filepath.Join(dir, n)) {
			t.Errorf("stderr does not announce %s: %s", n, errb.String())
		}
	}
}

func TestOnceLineWriter(t *testing.T) {
	var b bytes.Buffer
	w := newOnceLineWriter(&b)
	w.Write([]byte("warning: a\nwarn"))
	w.Write([]byte("ing: b\nwarning: a\n"))
	w.Write([]byte("warning: b\nwarning: c\n"))
	if got, want := b.String(), "warning: a\nwarning: b\nwarning: c\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestWriteOutputsFallsBackToStdout: when one -o file cannot be written
// (here: its "directory" is a plain file, as when a disk fills between the
// preflight check and the write), the other files are still written and
// the whole result goes to stdout as JSON, so nothing measured is lost.
func TestWriteOutputsFallsBackToStdout(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "examples", "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := report.ReadJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	good, bad := filepath.Join(dir, "r.md"), filepath.Join(plain, "r.json")
	var out, errb bytes.Buffer
	err = writeOutputs([]outputSpec{{Path: bad, Format: "json"}, {Path: good, Format: "markdown"}}, &out, &errb, doc)
	if err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "on stdout as JSON") {
		t.Errorf("error = %v; want it to name %s and say the result is on stdout", err, bad)
	}
	if _, err := os.Stat(good); err != nil {
		t.Errorf("the writable output was not written: %v", err)
	}
	back, err := report.ReadJSON(&out)
	if err != nil {
		t.Fatalf("stdout is not the JSON result: %v", err)
	}
	if len(back.Children) != len(doc.Children) {
		t.Errorf("stdout has %d children, want %d", len(back.Children), len(doc.Children))
	}
}
