package input

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
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
