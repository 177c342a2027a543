package optimize

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/filters"
	"github.com/seccompbench/seccompbench/filters/formats"
	"github.com/seccompbench/seccompbench/filters/scmp"
	"github.com/seccompbench/seccompbench/report/document"
)

const (
	hardenedUnit = "../../../../testdata/policies/hardened.service"
	denylist     = "../../../../testdata/policies/denylist.yaml"
)

func mustOpen(t *testing.T, spec string) *filters.Program {
	t.Helper()
	p, err := formats.Open(spec)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// savedDir writes s as inspect --save does, as filter-NN.bpf files, with a
// manifest listing them in the given index order when manifest is true.
func savedDir(t *testing.T, s filters.Stack, manifest bool) string {
	t.Helper()
	dir := t.TempDir()
	var m document.InspectManifest
	for i, p := range s {
		name := "filter-0" + string(rune('0'+i)) + ".bpf"
		if err := os.WriteFile(filepath.Join(dir, name), p.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		// Listed newest first: OpenDir must sort by index.
		m.Filters = append([]document.InspectSavedFilter{{Index: i, File: name}}, m.Filters...)
	}
	if manifest {
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "manifest.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestOpenStack(t *testing.T) {
	def, deny := mustOpen(t, "default"), mustOpen(t, denylist)
	pair := filters.Stack{def, deny}
	tests := []struct {
		name       string
		specs      []string
		directives string
		wantLen    int
		wantFirst  string // SHA-256 of the oldest filter, "" to skip
		wantDesc   string
	}{
		{"policies in order", []string{"default", denylist}, "", 2, def.SHA256(), "default " + denylist},
		{"systemd unit", []string{hardenedUnit}, "", 35, "", hardenedUnit},
		{"unit then policy on top", []string{hardenedUnit, "default"}, "", 36, "", hardenedUnit + " default"},
		{"--systemd directives", nil, "SystemCallFilter=@system-service", 3, "", "--systemd"},
		{"saved directory with manifest", []string{savedDir(t, pair, true)}, "", 2, def.SHA256(), ""},
		{"saved directory without manifest", []string{savedDir(t, pair, false)}, "", 2, def.SHA256(), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var warn bytes.Buffer
			s, desc, err := OpenStack(tt.specs, tt.directives, scmp.CompilerNative, &warn)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(s); got != tt.wantLen {
				t.Errorf("len(stack) = %d, want %d", got, tt.wantLen)
			}
			if tt.wantFirst != "" && s[0].SHA256() != tt.wantFirst {
				t.Errorf("oldest filter sha256 = %.16s, want %.16s", s[0].SHA256(), tt.wantFirst)
			}
			if tt.wantDesc != "" && desc != tt.wantDesc {
				t.Errorf("desc = %q, want %q", desc, tt.wantDesc)
			}
		})
	}
}

func TestOpenStackErrors(t *testing.T) {
	empty := t.TempDir()
	listsNone := t.TempDir()
	if err := os.WriteFile(filepath.Join(listsNone, "manifest.json"), []byte(`{"filters":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		specs      []string
		directives string
		wantIs     error  // nil to skip
		wantUsage  bool   // a *cmdutil.FlagError
		wantText   string // in the message
	}{
		{"missing file", []string{"no-such.yaml"}, "", os.ErrNotExist, false, "inspect --save"},
		{"unknown embedded name", []string{"embedded:nope"}, "", formats.ErrUnsupportedFormat, true, "embedded"},
		{"empty directory", []string{empty}, "", ErrEmptyStack, false, "filter-*.bpf"},
		{"manifest lists nothing", []string{listsNone}, "", ErrEmptyStack, false, "lists no filter"},
		{"directives without seccomp", nil, "ProtectHome=yes", ErrEmptyStack, false, "--systemd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := OpenStack(tt.specs, tt.directives, scmp.CompilerNative, &bytes.Buffer{})
			if err == nil {
				t.Fatal("OpenStack() error = nil, want one")
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("error %v is not %v", err, tt.wantIs)
			}
			if got := cmdutil.IsFlagError(err); got != tt.wantUsage {
				t.Errorf("IsFlagError = %v, want %v (%v)", got, tt.wantUsage, err)
			}
			if !strings.Contains(err.Error(), tt.wantText) {
				t.Errorf("error %q lacks %q", err, tt.wantText)
			}
		})
	}
}

func TestMergeSummary(t *testing.T) {
	s, desc, err := OpenStack([]string{"default", denylist}, "", scmp.CompilerNative, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	p, sum, err := Merge(s, desc)
	if err != nil {
		t.Fatal(err)
	}
	before := s[0].Len() + s[1].Len()
	if p.Name != "merged" || p.Source != desc {
		t.Errorf("program name, source = %q, %q; want merged, %q", p.Name, p.Source, desc)
	}
	if sum.Command != "merge" || sum.Filters != 2 || sum.InstructionsBefore != before || sum.Instructions != p.Len() || !sum.Equivalent {
		t.Errorf("summary = %+v", sum)
	}
	if sum.CacheLost == nil || sum.CacheGained == nil {
		t.Errorf("cache lists are nil, want [] in JSON: %+v", sum)
	}
	want, err := MeanPath(filters.Stack{p})
	if err != nil {
		t.Fatal(err)
	}
	if sum.MeanPathAfter != want || sum.MeanPathBefore <= 0 {
		t.Errorf("mean paths %v -> %v, want after %v", sum.MeanPathBefore, sum.MeanPathAfter, want)
	}
}

func TestOptimizeProfile(t *testing.T) {
	tests := []struct {
		name, profile string
		wantWeighted  bool
		wantErr       string
	}{
		{"balanced", "", false, ""},
		{"strace profile", "../../../../filters/optimize/testdata/strace-f-git-status.txt", true, ""},
		{"missing profile", "no-such.txt", false, "read profile"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, sum, err := Optimize(filters.Stack{mustOpen(t, "docker-default")}, "docker-default", tt.profile, &bytes.Buffer{})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Optimize() error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Source != "docker-default" || sum.Command != "optimize" || !sum.Equivalent {
				t.Errorf("source %q, summary %+v", p.Source, sum)
			}
			if got := sum.Profile != "" && sum.WeightedPathBefore > 0 && sum.WeightedPathAfter > 0; got != tt.wantWeighted {
				t.Errorf("weighted paths present = %v, want %v (%+v)", got, tt.wantWeighted, sum)
			}
		})
	}
}
