package input

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/filters"
)

// TestRead: a file at the limit is read whole, one byte over is refused
// by its size before reading, a missing file keeps its *fs.PathError.
func TestRead(t *testing.T) {
	dir := t.TempDir()
	sized := func(name string, size int64) string {
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(size); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name    string
		path    string
		wantLen int
		wantErr error
	}{
		{"small", sized("small", 3), 3, nil},
		{"at the limit", sized("limit", filters.MaxInputSize), filters.MaxInputSize, nil},
		{"one byte over", sized("over", filters.MaxInputSize+1), 0, filters.ErrInputTooLarge},
		{"missing", filepath.Join(dir, "missing"), 0, fs.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Read(tt.path)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil || len(got) != tt.wantLen {
				t.Errorf("Read = %d bytes, %v; want %d bytes", len(got), err, tt.wantLen)
			}
		})
	}
	var pe *fs.PathError
	if _, err := Read(filepath.Join(dir, "missing")); !errors.As(err, &pe) {
		t.Errorf("err = %v, want a *fs.PathError naming the path", err)
	}
}

// TestReadFromLimit: standard input of exactly the limit is read whole;
// one byte more is refused with ErrInputTooLarge, saying "more than" the
// limit (only limit+1 bytes were read, whatever the input's size).
func TestReadFromLimit(t *testing.T) {
	data, err := ReadFrom("standard input", strings.NewReader(strings.Repeat("a", filters.MaxInputSize)))
	if err != nil || len(data) != filters.MaxInputSize {
		t.Fatalf("at the limit: %d bytes, %v", len(data), err)
	}
	_, err = ReadFrom("standard input", strings.NewReader(strings.Repeat("a", 3*filters.MaxInputSize)))
	if !errors.Is(err, filters.ErrInputTooLarge) || !strings.Contains(err.Error(), "read standard input: input too large: more than 16777216 bytes") {
		t.Errorf("over the limit: %v", err)
	}
}
