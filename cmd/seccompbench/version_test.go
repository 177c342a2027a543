package main

import (
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
)

func TestNewCmdVersionFlags(t *testing.T) {
	tests := []struct {
		name        string
		args        []string
		wantVerbose bool
		want        execWant
	}{
		{"plain", nil, false, errContaining("")},
		{"verbose", []string{"-v"}, true, errContaining("")},
		{"no arguments", []string{"x"}, false, errContaining("unknown command")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseFlags(t, NewCmdVersion, tt.args, tt.want)
			if got != nil && got.Verbose != tt.wantVerbose {
				t.Errorf("Verbose = %v, want %v", got.Verbose, tt.wantVerbose)
			}
		})
	}
}

func TestVersionRun(t *testing.T) {
	ios, _, out, _ := cmdutil.TestIOStreams()
	if err := versionRun(&VersionOptions{IO: ios, Verbose: true}); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.HasPrefix(got, "seccompbench ") || !strings.Contains(got, "dep\tgithub.com/spf13/cobra") {
		t.Errorf("version --verbose printed %q, want the version line and the dependencies", got)
	}
}
