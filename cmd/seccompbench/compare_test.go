package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/results"
	"github.com/seccompbench/seccompbench/report"
	"github.com/seccompbench/seccompbench/report/document"
)

// writeDoc writes a minimal result with one variant: 0 filters at 100 ns
// and 8 filters at 100+extra ns (5 children each, ±1 ns), for workload and
// kernel.
func writeDoc(t *testing.T, path string, extra float64, workload, kernel string) {
	t.Helper()
	d := &document.Document{SchemaVersion: document.SchemaVersion, Tool: document.Tool{Name: "seccompbench", Version: "test"}}
	d.Environment.Kernel = kernel
	d.Environment.CPUModel = "Test CPU"
	d.Config = document.Config{Workload: workload, Confidence: 0.95, Variants: []string{"defeat"}, FilterCounts: []int{0, 8}}
	for _, n := range []int{0, 8} {
		base := 100.0
		if n > 0 {
			base += extra
		}
		s := []float64{base - 1, base, base + 1, base - 0.5, base + 0.5}
		d.Results = append(d.Results, document.CellResult{Variant: "defeat", Filters: n, N: len(s), MeanNs: base, SamplesNs: s})
	}
	var b bytes.Buffer
	if err := report.WriteJSON(&b, d); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestNewCmdCompareFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		check   func(*testing.T, *CompareOptions)
		wantErr string
	}{
		{name: "defaults", args: []string{"a.json", "b.json"}, check: func(t *testing.T, o *CompareOptions) {
			if !slices.Equal(o.Files, []string{"a.json", "b.json"}) || o.Out.Format != "table" || o.Confidence != 0.95 || o.Force || len(o.Out.Outputs) != 0 {
				t.Errorf("got %+v", o)
			}
		}},
		{name: "all flags", args: []string{"a.json", "b.json", "c.json", "--format", "markdown", "--confidence", "0.9", "--force", "-o", "x.md"},
			check: func(t *testing.T, o *CompareOptions) {
				if len(o.Files) != 3 || o.Out.Format != "markdown" || o.Confidence != 0.9 || !o.Force || !slices.Equal(o.Out.Outputs, []string{"x.md"}) {
					t.Errorf("got %+v", o)
				}
			}},
		{name: "one file", args: []string{"a.json"}, wantErr: "at least two"},
		{name: "bad format", args: []string{"a.json", "b.json", "--format", "csv"}, wantErr: "--format"},
		{name: "bad confidence", args: []string{"a.json", "b.json", "--confidence", "95"}, wantErr: "--confidence"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseFlags(t, NewCmdCompare, tt.args, usageErrContaining(tt.wantErr))
			if got == nil {
				return
			}
			tt.check(t, got)
		})
	}
}

func TestCompareCommand(t *testing.T) {
	dir := t.TempDir()
	a, b, same, other, kern := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json"), filepath.Join(dir, "same.json"), filepath.Join(dir, "other.json"), filepath.Join(dir, "kern.json")
	writeDoc(t, a, 50, "mix", "6.18")
	writeDoc(t, b, 30, "mix", "6.18")
	writeDoc(t, same, 50, "mix", "6.18")
	writeDoc(t, other, 50, "getpid", "6.18")
	writeDoc(t, kern, 50, "mix", "6.1")
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantOut    []string
		notOut     []string
		wantStderr string
	}{
		{name: "known difference", args: []string{"compare", a, b}, wantOut: []string{"compared: base a.json", "-13.3%", "verdict: "}},
		{name: "explain", args: []string{"compare", "--explain", a, b}, wantOut: []string{"compared: base a.json", "Welch"}},
		{name: "identical is ~", args: []string{"compare", a, same}, wantOut: []string{" ~ "}, notOut: []string{"%  "}},
		{name: "different workloads refused", args: []string{"compare", a, other}, wantCode: 2, wantStderr: "--force"},
		{name: "different workloads forced", args: []string{"compare", "--force", a, other}, wantOut: []string{"forced comparison"}},
		{name: "different kernels warn", args: []string{"compare", a, kern}, wantOut: []string{"different kernels"}},
		{name: "markdown", args: []string{"compare", "--format", "markdown", a, b}, wantOut: []string{"# seccompbench comparison", "**-13.3%**"}},
		{name: "html without fits has no plot", args: []string{"compare", "--format", "html", a, b}, wantOut: []string{"<!DOCTYPE html>", "<strong>-13.3%</strong>"}, notOut: []string{"<svg"}},
		{name: "html", args: []string{"compare", "--format", "html", "../../docs/examples/run.json", "../../docs/examples/minimal.json"},
			wantOut: []string{"<h2>run.json vs minimal.json, workload mix</h2>", "<svg", "Per-filter cost in ns per op across 2 results"}},
		{name: "missing file", args: []string{"compare", a, filepath.Join(dir, "nope.json")}, wantCode: 1, wantStderr: "nope.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(tt.args, strings.NewReader(""), &out, &errb)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tt.wantCode, errb.String())
			}
			for _, w := range tt.wantOut {
				if !strings.Contains(out.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, out.String())
				}
			}
			for _, w := range tt.notOut {
				if strings.Contains(out.String(), w) {
					t.Errorf("stdout has %q:\n%s", w, out.String())
				}
			}
			if !strings.Contains(errb.String(), tt.wantStderr) {
				t.Errorf("stderr lacks %q: %s", tt.wantStderr, errb.String())
			}
		})
	}

	t.Run("json to file", func(t *testing.T) {
		outPath := filepath.Join(dir, "cmp.json")
		var out, errb bytes.Buffer
		if code := run([]string{"compare", "--format", "json", "-o", outPath, a, b}, strings.NewReader(""), &out, &errb); code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		var c document.Comparison
		raw, _ := os.ReadFile(outPath)
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatal(err)
		}
		if len(c.Cells) != 2 || !c.Cells[1].Significant || c.Cells[1].DeltaNs != -20 || c.Cells[0].Significant {
			t.Errorf("cells = %+v, want 8 filters significant at -20 ns and 0 filters not", c.Cells)
		}
	})
}

func TestDisplayNames(t *testing.T) {
	got := results.DisplayNames([]string{"h1/result.json", "h2/result.json", "base.json"})
	want := []string{"h1/result.json", "h2/result.json", "base.json"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got := results.DisplayNames([]string{"/x/a.json", "/y/b.json"}); !slices.Equal(got, []string{"a.json", "b.json"}) {
		t.Errorf("got %v", got)
	}
}
