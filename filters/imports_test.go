package filters

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/seccompbench/seccompbench/"

// formatPackages are the packages that each read one source format.
var formatPackages = []string{"filters/beats", "filters/oci", "filters/systemd",
	"filters/kubernetes", "filters/firecracker", "filters/lxc", "filters/minijail", "filters/unsupported"}

// ociShaped are the format packages whose files are converted to an OCI
// profile and compiled by filters/oci (through filters/ocigen): they may
// import oci, the profile model, and no other format package.
var ociShaped = []string{"filters/kubernetes", "filters/firecracker", "filters/lxc", "filters/minijail", "filters/ocigen"}

// TestImports enforces the package boundaries of the filters tree
// (docs/architecture.md, "Allowed imports") on the non-test source of every package under
// filters/, build-tagged files included and `//go:build ignore` generators
// excluded:
//
//   - none imports runner, report or cmd, x/sys/unix or os/exec:
//     filters is pure and deterministic;
//   - the root imports none of its sub-packages;
//   - a format package imports no other format package and neither
//     formats nor analysis (formats reaches them through its table); the
//     OCI-shaped ones (ociShaped) may import filters/oci, the profile
//     model they compile through;
//   - scmp imports no format package (formats build its rule model; its
//     compilers take the model);
//   - analysis imports no format package, scmp or formats: it works on
//     Programs and Stacks;
//   - the internal helpers import no format package, formats or analysis;
//     sym, the symbolic machine under equiv and optimize, imports neither
//     of them nor scmp;
//   - equiv and optimize work on Programs and Stacks: no format package,
//     formats or scmp; equiv does not import optimize or analysis (optimize
//     calls equiv to prove its results and reads profiles via analysis);
//   - subset works on Stacks too, on top of equiv and sym: no format
//     package, formats, scmp, analysis or optimize.
//
// The check is transitive over the module's own packages.
func TestImports(t *testing.T) {
	forbiddenEverywhere := []string{module + "runner", module + "report", module + "cmd/", "golang.org/x/sys/unix", "os/exec"}
	rules := map[string][]string{
		"filters":                      {"filters/"},
		"filters/scmp":                 append([]string{"filters/formats", "filters/analysis"}, formatPackages...),
		"filters/formats":              {"filters/analysis"},
		"filters/analysis":             append([]string{"filters/formats", "filters/scmp"}, formatPackages...),
		"filters/internal/suggest":     append([]string{"filters/formats", "filters/analysis", "filters/scmp"}, formatPackages...),
		"filters/internal/srcpos":      append([]string{"filters/formats", "filters/analysis", "filters/scmp"}, formatPackages...),
		"filters/internal/filterstest": append([]string{"filters/formats", "filters/analysis", "filters/scmp"}, formatPackages...),
		"filters/internal/lsdiff":      append([]string{"filters/formats", "filters/analysis"}, formatPackages...),
		"filters/internal/sym":         append([]string{"filters/formats", "filters/analysis", "filters/scmp", "filters/equiv", "filters/optimize"}, formatPackages...),
		"filters/equiv":                append([]string{"filters/formats", "filters/analysis", "filters/scmp", "filters/optimize"}, formatPackages...),
		"filters/optimize":             append([]string{"filters/formats", "filters/scmp"}, formatPackages...),
		"filters/subset":               append([]string{"filters/formats", "filters/analysis", "filters/scmp", "filters/optimize"}, formatPackages...),
	}
	for _, f := range append(slices.Clone(formatPackages), "filters/ocigen") {
		bad := []string{"filters/formats", "filters/analysis"}
		for _, g := range formatPackages {
			if g != "filters/oci" || !slices.Contains(ociShaped, f) {
				bad = append(bad, g)
			}
		}
		rules[f] = bad
	}
	for pkg, bad := range rules {
		t.Run(pkg, func(t *testing.T) {
			deps := moduleDeps(t, pkg)
			if len(deps) == 0 {
				t.Fatal("no imports found")
			}
			for dep, via := range deps {
				for _, f := range forbiddenEverywhere {
					if strings.HasPrefix(dep, f) || dep == strings.TrimSuffix(f, "/") {
						t.Errorf("%s imports %s (via %s); filters must stay pure", pkg, dep, via)
					}
				}
				rel, ok := strings.CutPrefix(dep, module)
				if !ok || rel == pkg {
					continue
				}
				for _, b := range bad {
					if rel == b || strings.HasSuffix(b, "/") && strings.HasPrefix(rel, b) && !strings.HasPrefix(rel, "filters/internal/") {
						t.Errorf("%s imports %s (via %s)", pkg, rel, via)
					}
				}
			}
		})
	}
}

// moduleDeps returns every import of pkg (a module-relative directory),
// following the module's own packages transitively, each with the package
// that imports it.
func moduleDeps(t *testing.T, pkg string) map[string]string {
	t.Helper()
	out := map[string]string{}
	queue := []string{pkg}
	seen := map[string]bool{pkg: true}
	for len(queue) > 0 {
		dir := queue[0]
		queue = queue[1:]
		for _, imp := range directImports(t, dir) {
			if _, ok := out[imp]; !ok {
				out[imp] = dir
			}
			if rel, ok := strings.CutPrefix(imp, module); ok && !seen[rel] {
				seen[rel] = true
				queue = append(queue, rel)
			}
		}
	}
	return out
}

// directImports parses the non-test Go files of the module directory dir
// (relative to the module root, which is this package's parent).
func directImports(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ImportsOnly|parser.ParseComments)
		if err != nil {
			t.Fatalf("parse %s: %v", name, err)
		}
		if ignored(f.Comments) {
			continue
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// ignored reports whether a file is a `//go:build ignore` generator.
func ignored(groups []*ast.CommentGroup) bool {
	for _, g := range groups {
		for _, c := range g.List {
			if c.Text == "//go:build ignore" {
				return true
			}
		}
	}
	return false
}

// TestMachineDoesNoIO: the root, the BPF machine, reads no files; the one
// reader is filters/internal/input, behind formats.ReadInput. The check
// is direct: the root imports none of its sub-packages (TestImports).
func TestMachineDoesNoIO(t *testing.T) {
	imps := directImports(t, "filters")
	if len(imps) == 0 {
		t.Fatal("no imports found in filters")
	}
	for _, imp := range imps {
		if slices.Contains([]string{"os", "io/fs", "io/ioutil", "syscall"}, imp) {
			t.Errorf("filters imports %s; the machine does no I/O: read files in filters/internal/input (formats.ReadInput)", imp)
		}
	}
}
