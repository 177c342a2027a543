package document

import (
	"go/ast"
	"go/token"
	"strconv"
	"strings"
	"testing"

	"github.com/seccompbench/seccompbench/internal/boundary"
)

// TestImports enforces the document package's boundary
// (docs/architecture.md): it holds the JSON document types and nothing
// else, so it imports nothing of filters/ (a document carries its own
// copies of the few filter facts it needs), nothing of report's
// renderers, no command and nothing kernel-side; from the runner only
// runner/result.
func TestImports(t *testing.T) {
	files := boundary.Sources(t)
	boundary.ForbidImports(t, "report/document", files,
		[]string{"/cmd/", "/filters", "/report", "/internal/", "golang.org/x/sys", "os/exec", "os", "syscall", "unsafe"})
	for name, f := range files {
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); strings.Contains(p, "/runner") && !strings.HasSuffix(p, "/runner/result") {
				t.Errorf("%s imports %s; report/document may import only runner/result of the runner", name, p)
			}
		}
	}
}

// TestNoEnglish checks that the package words nothing: a string literal
// of four words or more (the rule of internal/jsoncontract's Sentences)
// may appear only as an error's text (errors.New, fmt.Errorf, an Error
// method and the describe helper it calls). The English of a document
// (clauses, headlines, verdicts) is report's.
func TestNoEnglish(t *testing.T) {
	for name, f := range boundary.Sources(t) {
		allowed := map[ast.Node]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if n.Name.Name == "Error" || n.Name.Name == "describe" {
					allowed[n] = true
					return false
				}
			case *ast.CallExpr:
				if s, ok := n.Fun.(*ast.SelectorExpr); ok {
					if x, ok := s.X.(*ast.Ident); ok && (x.Name == "errors" && s.Sel.Name == "New" || x.Name == "fmt" && s.Sel.Name == "Errorf") {
						return false
					}
				}
			case *ast.Field:
				if n.Tag != nil {
					allowed[n.Tag] = true
				}
			case *ast.BasicLit:
				if n.Kind != token.STRING || allowed[n] {
					return true
				}
				s, err := strconv.Unquote(n.Value)
				if err == nil && len(strings.Fields(s)) >= 4 {
					t.Errorf("%s: string %q reads as English; wording belongs in report, not in report/document", name, s)
				}
			}
			return true
		})
	}
}
