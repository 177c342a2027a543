package boundary

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is the longest a function may be, in lines from its "func"
// to its closing brace, comments included.
const maxFuncLines = 80

// longFuncExempt names the functions allowed to be longer, as
// "dir.Receiver.Name" or "dir.Name" with dir relative to the module root.
// Only the BPF interpreter is: the symbolic machine's opcode switch reads
// best as one loop over the instruction classes of
// include/uapi/linux/filter.h, as gVisor's pkg/bpf interpreter does.
var longFuncExempt = map[string]bool{
	"filters/internal/sym.Thread.Run": true,
}

// TestFunctionLength fails for a function of more than maxFuncLines lines
// in any non-test Go file of the repository that is not generated (a
// "Code generated ... DO NOT EDIT." header), generators included, unless
// longFuncExempt names it. Function literals count on their own.
func TestFunctionLength(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		dir := filepath.ToSlash(filepath.Dir(rel))
		for _, fn := range longFunctions(fset, f) {
			key := dir + "." + fn.name
			seen[key] = true
			if !longFuncExempt[key] {
				t.Errorf("%s:%d: %s is %d lines, more than %d; split it (or, for the BPF interpreter only, list it in longFuncExempt)",
					filepath.ToSlash(rel), fn.line, fn.name, fn.lines, maxFuncLines)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for k := range longFuncExempt {
		if !seen[k] {
			t.Errorf("longFuncExempt lists %s, which is no longer over %d lines (or no longer exists); remove it", k, maxFuncLines)
		}
	}
}

// longFunc is a function over maxFuncLines lines.
type longFunc struct {
	name        string // "Recv.Name", "Name" or "Name.func" for a literal inside Name
	line, lines int
}

// longFunctions returns the functions and function literals of f longer
// than maxFuncLines.
func longFunctions(fset *token.FileSet, f *ast.File) []longFunc {
	var out []longFunc
	for _, decl := range f.Decls {
		fd, ok := decl.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		name := fd.Name.Name
		if fd.Recv != nil && len(fd.Recv.List) == 1 {
			name = recvName(fd.Recv.List[0].Type) + "." + name
		}
		check := func(n ast.Node, name string) {
			start, end := fset.Position(n.Pos()).Line, fset.Position(n.End()).Line
			if l := end - start + 1; l > maxFuncLines {
				out = append(out, longFunc{name: name, line: start, lines: l})
			}
		}
		check(fd, name)
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if lit, ok := n.(*ast.FuncLit); ok {
				check(lit, name+".func")
			}
			return true
		})
	}
	return out
}

// recvName is a receiver type's name without pointer or type parameters.
func recvName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return recvName(x.X)
	case *ast.IndexExpr:
		return recvName(x.X)
	case *ast.IndexListExpr:
		return recvName(x.X)
	case *ast.Ident:
		return x.Name
	}
	return fmt.Sprintf("%T", e)
}
