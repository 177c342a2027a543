package boundary

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/seccompbench/seccompbench/"

// modulePackages returns the directories (relative to the module root,
// slash-separated) that hold non-test Go files, with the imports of those
// files.
func modulePackages(t *testing.T, root string) map[string][]string {
	t.Helper()
	pkgs := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly|parser.ParseComments)
		if err != nil {
			return err
		}
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				if c.Text == "//go:build ignore" {
					return nil // a generator, not part of any package
				}
			}
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		if _, ok := pkgs[rel]; !ok {
			pkgs[rel] = nil
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			pkgs[rel] = append(pkgs[rel], p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// TestArchitectureListsEveryPackage checks that docs/architecture.md's
// package map names every package of the module and no package that does
// not exist. A table row may name several packages as `a`, `b` or with a
// brace group `a/{b,c}`; `x/*` stands for every package under x.
func TestArchitectureListsEveryPackage(t *testing.T) {
	root := filepath.Join("..", "..")
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	var globs []string
	row := regexp.MustCompile(`^\| (.*?) \|`)
	code := regexp.MustCompile("`([^`]+)`")
	for _, line := range strings.Split(string(doc), "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		for _, c := range code.FindAllStringSubmatch(m[1], -1) {
			for _, p := range expandBraces(c[1]) {
				if strings.HasSuffix(p, "/*") {
					globs = append(globs, strings.TrimSuffix(p, "*"))
				} else {
					named[p] = true
				}
			}
		}
	}
	pkgs := modulePackages(t, root)
	var missing []string
	for p := range pkgs {
		if p == "." || named[p] {
			continue
		}
		covered := false
		for _, g := range globs {
			covered = covered || strings.HasPrefix(p, g)
		}
		if !covered {
			missing = append(missing, p)
		}
	}
	sort.Strings(missing)
	for _, p := range missing {
		t.Errorf("docs/architecture.md does not list package %s", p)
	}
	for p := range named {
		if _, ok := pkgs[p]; !ok {
			t.Errorf("docs/architecture.md lists %s, which is not a package", p)
		}
	}
}

// expandBraces expands one brace group: "a/{b,c}" -> "a/b", "a/c".
func expandBraces(s string) []string {
	i, j := strings.Index(s, "{"), strings.Index(s, "}")
	if i < 0 || j < i {
		return []string{s}
	}
	var out []string
	for _, part := range strings.Split(s[i+1:j], ",") {
		out = append(out, s[:i]+part+s[j+1:])
	}
	return out
}

// TestRunnerAndReportLayers checks the layering rules of
// docs/architecture.md for the runner and report packages.
func TestRunnerAndReportLayers(t *testing.T) {
	pkgs := modulePackages(t, filepath.Join("..", ".."))
	kernel := []string{"golang.org/x/sys", "os", "os/exec", "syscall", "unsafe"}
	for p, imps := range pkgs {
		for _, imp := range imps {
			local := strings.TrimPrefix(imp, module)
			isLocal := local != imp
			switch {
			case strings.HasPrefix(p, "runner/") && isLocal && local == "runner":
				t.Errorf("%s imports the runner root; the root is above its sub-packages", p)
			case p == "runner/result" && isLocal && strings.HasPrefix(local, "runner"):
				t.Errorf("runner/result imports %s; it must import nothing of the runner", local)
			case p == "runner/result" && hasKernelImport(imp, kernel[:4]) && imp != "syscall":
				t.Errorf("runner/result imports %s; it must import nothing kernel-side", imp)
			case p == "runner/workload" && isLocal:
				t.Errorf("runner/workload imports %s; the workload table is pure data and imports nothing of the module", local)
			case p == "runner/workload" && hasKernelImport(imp, kernel):
				t.Errorf("runner/workload imports %s; it must import nothing kernel-side", imp)
			case strings.HasPrefix(p, "runner/internal/") && isLocal && strings.HasPrefix(local, "runner") &&
				local != "runner/result" && local != "runner/internal/sys":
				t.Errorf("%s imports %s; runner/internal packages import only runner/result and runner/internal/sys", p, local)
			case strings.HasPrefix(p, "report") && isLocal && strings.HasPrefix(local, "runner") && local != "runner/result":
				t.Errorf("%s imports %s; report may import only runner/result", p, local)
			case p == "report/document" && isLocal && (strings.HasPrefix(local, "filters") || strings.HasPrefix(local, "report")):
				t.Errorf("report/document imports %s; the document types import nothing of filters/ or of report's renderers", local)
			case p == "report/internal/text" && isLocal:
				t.Errorf("report/internal/text imports %s; the text helpers import nothing of the module", local)
			case isLocal && local == "report/document" && !strings.HasPrefix(p, "report") && !strings.HasPrefix(p, "cmd/") && !strings.HasPrefix(p, "internal/"):
				t.Errorf("%s imports report/document; only report, the commands and the test helpers read the document types", p)
			case p == "report" && local == "report/chart":
				t.Errorf("report imports report/chart; chart renders report's documents, not the reverse")
			case strings.HasPrefix(imp, "gonum.org/v1/plot") && p != "report/chart":
				t.Errorf("%s imports %s; report/chart is the only importer of gonum/plot", p, imp)
			}
		}
	}
	for _, p := range []string{"runner/result", "runner/workload", "report", "report/chart", "report/document", "report/internal/text"} {
		if _, ok := pkgs[p]; !ok {
			t.Errorf("package %s is gone: update this test and docs/architecture.md", p)
		}
	}
}

func hasKernelImport(imp string, kernel []string) bool {
	for _, k := range kernel {
		if imp == k || strings.HasPrefix(imp, k+"/") && k == "golang.org/x/sys" {
			return true
		}
	}
	return false
}

// TestReadersOfTheWorkloadTable checks that the packages that only read
// the workload table (report, filters, lint: its command and
// cmd/seccompbench/internal/lint), tests included, take it
// from runner/workload and never import the measuring runner: lint runs
// where nothing is measured, and report and filters never start a child.
func TestReadersOfTheWorkloadTable(t *testing.T) {
	root := filepath.Join("..", "..")
	lint, err := filepath.Glob(filepath.Join(root, "cmd", "seccompbench", "lint*.go"))
	if err != nil || len(lint) == 0 {
		t.Fatalf("no lint sources in cmd/seccompbench: %v", err)
	}
	readers := append([]string{filepath.Join(root, "report"), filepath.Join(root, "filters"),
		filepath.Join(root, "cmd", "seccompbench", "internal", "lint")}, lint...)
	for _, r := range readers {
		err := filepath.WalkDir(r, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
				return err
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if local := strings.TrimPrefix(p, module); local == "runner" || strings.HasPrefix(local, "runner/") &&
					local != "runner/result" && local != "runner/workload" {
					t.Errorf("%s imports %s; readers of the workload table import runner/workload (and runner/result), never the runner", path, p)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
