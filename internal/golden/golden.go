// Package golden compares test output with files under testdata/golden, the
// way the filters and report packages check their renderers. It is for
// tests only.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// update is the -update test flag: rewrite golden files instead of comparing.
var update = flag.Bool("update", false, "rewrite testdata/golden files with the current output")

// Check compares got with testdata/golden/name (relative to the test's
// package directory) and reports a difference with t.Errorf, or rewrites the
// file when the test binary runs with -update (go test ./PKG -update). A
// missing golden file fails the test with a hint to create it.
func Check(t testing.TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run go test with -update to create it): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it if the change is intended)\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}
