package boundary

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Limits of the main package (issue #46): cmd/seccompbench holds each
// command's options, flags and wiring, and its pipeline lives under
// cmd/seccompbench/internal/.
const (
	maxCommandFileLines = 200
	maxMainLines        = 2500
)

// TestThinMain fails when a non-test Go file of cmd/seccompbench is over
// maxCommandFileLines lines, or all of them together over maxMainLines:
// the logic that grew there belongs in a package under
// cmd/seccompbench/internal/ (docs/architecture.md, "Where things go").
func TestThinMain(t *testing.T) {
	dir := filepath.Join("..", "..", "cmd", "seccompbench")
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	total, n := 0, 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.Count(b, []byte("\n"))
		if len(b) > 0 && b[len(b)-1] != '\n' {
			lines++
		}
		if lines > maxCommandFileLines {
			t.Errorf("cmd/seccompbench/%s is %d lines, more than %d: move its logic under cmd/seccompbench/internal/", filepath.Base(f), lines, maxCommandFileLines)
		}
		total += lines
		n++
	}
	if n == 0 {
		t.Fatalf("no Go files in %s", dir)
	}
	if total > maxMainLines {
		t.Errorf("cmd/seccompbench has %d lines of non-test Go in %d files, more than %d: move logic under cmd/seccompbench/internal/", total, n, maxMainLines)
	}
}
