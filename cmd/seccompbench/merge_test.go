package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/optimize"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/equiv"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/report/document"
)

const hardenedUnit = "../../testdata/policies/hardened.service"

func TestNewCmdMergeFlags(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		want       execWant
		wantFormat string
	}{
		{"raw with -o", []string{hardenedUnit, "-o", "m.bpf"}, errContaining(""), "raw"},
		{"text without -o", []string{"default", "testdata/x.yaml"}, errContaining(""), "text"},
		{"json", []string{"default", "--format", "json"}, errContaining(""), "json"},
		{"bad format", []string{"default", "--format", "xml"}, usageErrContaining("--format"), ""},
		{"nothing to merge", nil, usageErrContaining("need STACK"), ""},
		{"both sources", []string{"default", "--systemd", "SystemCallFilter=@system-service"}, usageErrContaining("not both"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseFlags(t, NewCmdMerge, tt.args, tt.want)
			if got != nil && output.Or(got.Outs, got.Out.Format)[0].Format != tt.wantFormat {
				t.Errorf("Format = %q, want %q", output.Or(got.Outs, got.Out.Format)[0].Format, tt.wantFormat)
			}
		})
	}
}

func TestNewCmdOptimizeEquivFlags(t *testing.T) {
	if got := parseFlags(t, NewCmdOptimize, []string{"docker-default", "--profile", "p.txt", "-o", "o.bpf"}, errContaining("")); got != nil {
		if got.Profile != "p.txt" || !slices.Equal(got.Out.Outputs, []string{"o.bpf"}) || got.Specs[0].Format != "raw" {
			t.Errorf("options = %+v", got)
		}
	}
	parseFlags(t, NewCmdOptimize, []string{"a", "b"}, errContaining("accepts 1 arg"))
	if got := parseFlags(t, NewCmdEquiv, []string{"a.bpf", "b.bpf"}, errContaining("")); got != nil && (got.A != "a.bpf" || got.B != "b.bpf") {
		t.Errorf("options = %+v", got)
	}
	parseFlags(t, NewCmdEquiv, []string{"a.bpf"}, errContaining("accepts 2 arg"))
}

// TestMergeThenEquiv is the acceptance path: merge the hardened
// unit, then equiv says the file and the unit's stack are equivalent.
func TestMergeThenEquiv(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "m.bpf")
	ios, _, _, errOut := cmdutil.TestIOStreams()
	if err := mergeRun(&MergeOptions{IO: ios, MergeOptions: optimize.MergeOptions{Specs: []string{hardenedUnit}, Outs: []output.Spec{{Path: out, Format: "raw"}}}}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"35 filter(s)", "proven equivalent", "action cache lost (cached before, not after): none"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, errOut)
		}
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := filters.ParseRaw(out, data); err != nil {
		t.Fatalf("merged file does not load: %v", err)
	}
	ios, _, stdout, _ := cmdutil.TestIOStreams()
	if err := equivRun(&EquivOptions{IO: ios, EquivOptions: optimize.EquivOptions{A: out, B: hardenedUnit}}); err != nil {
		t.Fatalf("equiv: %v", err)
	}
	if !strings.HasPrefix(stdout.String(), "equivalent:") {
		t.Errorf("equiv printed %q", stdout)
	}
	// A different stack: exit status 1 (cmdutil.ErrFindings) and a counterexample.
	ios, _, stdout, _ = cmdutil.TestIOStreams()
	err = equivRun(&EquivOptions{IO: ios, EquivOptions: optimize.EquivOptions{A: out, B: "docker-default"}})
	if !errors.Is(err, cmdutil.ErrFindings) {
		t.Fatalf("equiv of different stacks = %v, want cmdutil.ErrFindings", err)
	}
	if !strings.HasPrefix(stdout.String(), "different: ") || !strings.Contains(stdout.String(), "A gives") {
		t.Errorf("equiv printed %q", stdout)
	}
}

func TestMergeDirectoryAndJSON(t *testing.T) {
	// A directory as inspect --save writes it, without manifest.json:
	// filter-*.bpf in name order, oldest first.
	dir := t.TempDir()
	s := filters.Stack{mustOpenCmd(t, "default"), mustOpenCmd(t, "../../testdata/policies/denylist.yaml")}
	for i, p := range s {
		if err := os.WriteFile(filepath.Join(dir, "filter-0"+string(rune('0'+i))+".bpf"), p.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ios, _, stdout, _ := cmdutil.TestIOStreams()
	if err := mergeRun(&MergeOptions{IO: ios, MergeOptions: optimize.MergeOptions{Specs: []string{dir}, Out: output.Flags{Format: "json"}}}); err != nil {
		t.Fatal(err)
	}
	var doc document.BuildSummary
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatalf("json: %v\n%s", err, stdout)
	}
	if doc.Filters != 2 || !doc.Equivalent || len(doc.Program) != doc.Instructions {
		t.Errorf("summary = %+v", doc)
	}
	merged := make([]byte, 0, 8*len(doc.Program))
	for _, in := range doc.Program {
		merged = append(merged, byte(in.Op), byte(in.Op>>8), in.Jt, in.Jf, byte(in.K), byte(in.K>>8), byte(in.K>>16), byte(in.K>>24))
	}
	p, err := filters.ParseRaw("json", merged)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := equiv.Stacks(s, filters.Stack{p}); err != nil || !r.Equivalent {
		t.Errorf("json program vs stack: %+v %v", r, err)
	}
}

func TestOptimizeRunProfile(t *testing.T) {
	ios, _, stdout, errOut := cmdutil.TestIOStreams()
	err := optimizeRun(&OptimizeOptions{IO: ios, OptimizeOptions: optimize.OptimizeOptions{Policy: "docker-default",
		Profile: "../../filters/optimize/testdata/strace-f-git-status.txt", Out: output.Flags{Format: "text"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "ld [arch]") {
		t.Errorf("text output lacks a disassembly")
	}
	if !strings.Contains(errOut.String(), "profile-weighted mean path") {
		t.Errorf("summary lacks the weighted path:\n%s", errOut)
	}
}

func mustOpenCmd(t *testing.T, spec string) *filters.Program {
	t.Helper()
	p, err := formats.Open(spec)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestOptimizeUnitWholeStack: optimize of a systemd unit (35 filters)
// lays out one filter equivalent to the whole stack and says so, where it
// used to optimize filter 0 alone without a word.
func TestOptimizeUnitWholeStack(t *testing.T) {
	out := filepath.Join(t.TempDir(), "o.bpf")
	ios, _, _, errOut := cmdutil.TestIOStreams()
	err := optimizeRun(&OptimizeOptions{IO: ios, OptimizeOptions: optimize.OptimizeOptions{Policy: hardenedUnit,
		Profile: "../../filters/optimize/testdata/strace-f-git-status.txt", Specs: []output.Spec{{Path: out, Format: "raw"}}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"note: " + hardenedUnit + " installs a stack of 35 filters; optimize lays out one filter equivalent to the whole stack",
		"35 filter(s)", "proven equivalent"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	p, err := filters.ParseRaw(out, data)
	if err != nil {
		t.Fatal(err)
	}
	src, err := formats.Load(hardenedUnit, formats.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := equiv.Stacks(filters.Stack(src.Filters), filters.Stack{p}); err != nil || !r.Equivalent {
		t.Errorf("optimized filter vs the unit's stack: %+v %v", r, err)
	}
}
