package boundary

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"
)

// recorder captures Errorf calls.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, format)
}

func TestForbidImports(t *testing.T) {
	src := `package p
import (
	"os"
	"os/exec"
	"strings"
	"example.com/m/cmd/x"
)`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		forbidden []string
		want      int
	}{
		{"exact", []string{"os"}, 1},
		{"substring", []string{"/cmd/"}, 1},
		{"exact does not match longer paths", []string{"exec"}, 0},
		{"several", []string{"os", "os/exec", "/cmd/", "syscall"}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &recorder{TB: t}
			ForbidImports(r, "p", map[string]*ast.File{"p.go": f}, tt.forbidden)
			if len(r.errs) != tt.want {
				t.Errorf("%d errors, want %d", len(r.errs), tt.want)
			}
		})
	}
}
