package runjob

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/cmdutil"
	"github.com/seccompbench/seccompbench/cmd/seccompbench/internal/output"
	"github.com/seccompbench/seccompbench/report/document"
)

// TestWriteWarningsToStderr: with every result in files, the report's
// warnings are repeated on stderr; with the report on stdout they are
// not (the report carries them).
func TestWriteWarningsToStderr(t *testing.T) {
	doc := &document.Document{SchemaVersion: document.SchemaVersion, Warnings: []string{"other processes took 50 % of measuring CPU 1"}}
	for _, tt := range []struct {
		name string
		spec output.Spec
		want bool
	}{
		{"file", output.Spec{Path: filepath.Join(t.TempDir(), "r.json"), Format: "json"}, true},
		{"stdout", output.Spec{Format: "json"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, _, errOut := cmdutil.TestIOStreams()
			j := &Job{Specs: []output.Spec{tt.spec}}
			if err := j.write(ios, doc); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(errOut.String(), "warning: other processes took 50 %"); got != tt.want {
				t.Errorf("stderr %q: warning shown %v, want %v", errOut, got, tt.want)
			}
		})
	}
}
