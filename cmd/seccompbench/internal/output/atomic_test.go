package output

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/report/document"
)

// A failing -o write keeps the previous file and leaves no temporary file;
// a device is written directly and its write error reported; a symbolic
// link is followed and stays a link.
func TestWriteFileAtomicFailures(t *testing.T) {
	dir := t.TempDir()
	prev := filepath.Join(dir, "r.json")
	if err := os.WriteFile(prev, []byte("previous"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink("r.json", link); err != nil {
		t.Fatal(err)
	}
	errDiskFull := errors.New("no space left on device")
	tests := []struct {
		name     string
		path     string
		render   func(io.Writer) error
		wantErr  string
		wantPrev string // content of r.json afterwards
	}{
		{"render fails half way", prev, func(w io.Writer) error {
			io.WriteString(w, `{"partial`)
			return errDiskFull
		}, "no space left on device (any previous " + prev + " is untouched)", "previous"},
		{"device full", "/dev/full", func(w io.Writer) error {
			_, err := io.WriteString(w, "result")
			return err
		}, "write /dev/full: no space left on device", "previous"},
		{"directory", dir, func(w io.Writer) error { return nil }, "is a directory", "previous"},
		{"through a symlink", link, func(w io.Writer) error {
			_, err := io.WriteString(w, "new")
			return err
		}, "", "new"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := WriteFileAtomic(tt.path, tt.render)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			if b, _ := os.ReadFile(prev); string(b) != tt.wantPrev {
				t.Errorf("r.json holds %q, want %q", b, tt.wantPrev)
			}
			if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("link.json is no longer a symlink: %v", err)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) != 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
	if fi, err := os.Stat("/dev/full"); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Errorf("/dev/full is no longer a character device: %v", err)
	}
}

// failWriter fails every write, like stdout on a full disk or closed pipe.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

// A write error on stdout is a failure (exit 1), reported with its cause,
// for every text format.
func TestRunStdoutWriteError(t *testing.T) {
	doc := &document.Document{}
	for _, f := range []string{"table", "json", "markdown", "csv", "benchstat"} {
		t.Run(f, func(t *testing.T) {
			err := WriteResult([]Spec{{Format: f}}, failWriter{}, io.Discard, doc)
			if err == nil || !strings.Contains(err.Error(), "broken pipe") {
				t.Errorf("err = %v, want the write error", err)
			}
		})
	}
}
