package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/simulate"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"github.com/seccompbench/seccompbench/report/chart"
)

// TestSimulateOutputFlags checks how -o and --format combine for simulate.
func TestSimulateOutputFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    []output.Spec
		wantErr string
	}{
		{"stdout table", []string{"default", "--all"}, []output.Spec{{Format: "table"}}, ""},
		{"svg to stdout", []string{"default", "--all", "--format", "svg"}, []output.Spec{{Format: "svg"}}, ""},
		{"files by extension", []string{"default", "--all", "-o", "p.svg", "-o", "p.png", "-o", "t.txt", "-o", "t.json"},
			[]output.Spec{{Path: "p.svg", Format: "svg"}, {Path: "p.png", Format: "png"}, {Path: "t.txt", Format: "table"}, {Path: "t.json", Format: "json"}}, ""},
		{"one syscall to json file", []string{"default", "--syscall", "getpid", "-o", "g.json"}, []output.Spec{{Path: "g.json", Format: "json"}}, ""},
		{"plot needs --all", []string{"default", "--syscall", "getpid", "-o", "p.svg"}, nil, "add --all"},
		{"png needs a file", []string{"default", "--all", "--format", "png"}, nil, "-o plot.png"},
		{"csv is not a simulate format", []string{"default", "--all", "-o", "t.csv"}, nil, "this command writes table, json, svg, png, not csv"},
		{"bad format", []string{"default", "--all", "--format", "markdown"}, nil, "--format"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseFlags(t, NewCmdSimulate, tt.args, usageErrContaining(tt.wantErr))
			if got == nil {
				return
			}
			outs, err := got.Specs()
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(outs, tt.want) {
				t.Errorf("outputs = %v, want %v", outs, tt.want)
			}
		})
	}
}

// TestSimulatePlotData checks what the command hands the renderer: one
// ABI, in the --sort order, with the emulator's counts.
func TestSimulatePlotData(t *testing.T) {
	tests := []struct {
		name, arch, sort string
		defeat           bool
		wantArch         string
		wantBars         int
	}{
		{"native by number", "", "nr", false, "x86_64", 383},
		{"i386 by cost", "i386", "cost", false, "i386", 459},
		{"defeated", "", "nr", true, "x86_64", 383},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := simulate.Stack([]string{"default"}, 0, tt.defeat, scmp.CompilerNative, nil, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			var captured *chart.SimulatePlot
			_, costs, err := simulate.Costs(s, tt.arch, tt.sort)
			if err != nil {
				t.Fatal(err)
			}
			captured = simulate.Plot(s, costs, tt.arch, tt.sort, tt.defeat)
			if captured.Arch != tt.wantArch || len(captured.Bars) != tt.wantBars || captured.Order != tt.sort || captured.CacheDefeated != tt.defeat {
				t.Fatalf("plot = arch %s, %d bars, order %s, defeated %v; want %s, %d, %s, %v",
					captured.Arch, len(captured.Bars), captured.Order, captured.CacheDefeated, tt.wantArch, tt.wantBars, tt.sort, tt.defeat)
			}
			cached := 0
			for i, b := range captured.Bars {
				if b.Arch != tt.wantArch {
					t.Fatalf("bar %d is %s", i, b.Arch)
				}
				if b.Cached {
					cached++
				}
				if i > 0 && tt.sort == "nr" && b.Nr <= captured.Bars[i-1].Nr {
					t.Fatalf("bars not in number order at %d", i)
				}
				want := 129
				if tt.defeat {
					want++ // the prepended ld [instruction_pointer]
				}
				if b.Name == "kill" && tt.wantArch == "x86_64" && (b.Cached || !b.Allowed || b.Instructions != want) {
					t.Errorf("kill = %+v, want allowed, uncached, %d instructions", b, want)
				}
			}
			if tt.defeat && cached != 2 { // uretprobe and uprobe pass anyway
				t.Errorf("%d cached with the cache defeated, want 2", cached)
			}
			if !tt.defeat && tt.wantArch == "x86_64" && cached != 119 {
				t.Errorf("%d cached, want 119", cached)
			}
		})
	}
}

// TestSimulateWritesPlotFile runs the command line end to end.
func TestSimulateWritesPlotFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.svg")
	var out, errb bytes.Buffer
	if code := run([]string{"simulate", "default", "--all", "-o", p}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("exit %d; stderr: %s", code, errb.String())
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte("<svg")) || !bytes.Contains(b, []byte("stack: 1 filter: default")) {
		t.Errorf("%s is not the plot: %.200s", p, b)
	}
	if out.Len() != 0 {
		t.Errorf("stdout = %q, want nothing", out.String())
	}
}
