package cmdutil

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/filters/formats"
)

func TestIsFlagError(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"flag error", FlagErrorf("--x: bad"), true},
		{"wrapped", fmt.Errorf("run: %w", FlagErrorf("--x: bad")), true},
		{"plain", errors.New("bad"), false},
		{"nil", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsFlagError(tt.err); got != tt.want {
				t.Errorf("IsFlagError(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}

// TestOpenPolicies: the error for a missing file or a directory says what
// POLICY may be; a policy that opens is described for the report.
func TestOpenPolicies(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		spec    string
		wantErr string
	}{
		{"default", "default", ""},
		{"missing", dir + "/nosuch.yaml", `POLICY is a file, "default", "docker-default" or "-"`},
		{"directory", dir, "is a directory without manifest.json or filter-*.bpf files"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			progs, pols, err := OpenPolicies([]string{tt.spec}, formats.OpenOptions{})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || len(progs) != 1 || len(pols) != 1 || pols[0].Instructions != progs[0].Len() || pols[0].SHA256 == "" {
				t.Errorf("got %d programs, policies %+v, err %v", len(progs), pols, err)
			}
		})
	}
}

// TestOpenPoliciesMissingNamedFile: a missing file that the policy names
// (an nsjail config's seccomp_policy_file) is reported at the config's
// line with the missing path, without the hint about what POLICY may be:
// POLICY itself exists.
func TestOpenPoliciesMissingNamedFile(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "jail.cfg")
	if err := os.WriteFile(cfg, []byte("name: \"x\"\nseccomp_policy_file: \"nope.kafel\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := OpenPolicies([]string{cfg}, formats.OpenOptions{})
	want := cfg + `:2: seccomp_policy_file "nope.kafel": open ` + filepath.Join(filepath.Dir(cfg), "nope.kafel") + ": no such file or directory"
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "POLICY is a file") {
		t.Errorf("err = %v, want one containing %q and no POLICY hint", err, want)
	}
}
