package importcheck

import (
	"strings"
	"testing"
)

// recorder is a testing.TB that records Errorf calls instead of failing.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, format)
}

// TestCheck runs Check on this package's own file, which imports go/parser.
func TestCheck(t *testing.T) {
	tests := []struct {
		name     string
		bad      string
		wantErrs int
	}{
		{"allowed", "github.com/seccompbench/seccompbench/report", 0},
		{"forbidden", "go/parser", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &recorder{TB: t}
			Check(r, "importcheck", func(path string) bool { return path == tt.bad })
			if len(r.errs) != tt.wantErrs {
				t.Errorf("got %d errors %v, want %d", len(r.errs), strings.Join(r.errs, "; "), tt.wantErrs)
			}
		})
	}
}
